# sslat with every calculator (mac*, cpu on oneDNN 2.6, cuda on cuDNN 9 +
# cuBLAS), on NVIDIA's CUDA + cuDNN development image. From the repository root:
#   docker build -t sslat:0.2.0 .
#   docker run --rm --gpus all sslat:0.2.0                      # sslat calculators
#   docker run --rm --gpus all -v "$PWD:/work" -w /work sslat:0.2.0 \
#       measure -c cuda /opt/sslat/examples/proxylessnas.json -o px.sslat
# Build arguments: CUDAARCHS (GPU architectures, e.g. 80 or "80;90"; default:
# CMakeLists.txt's list), BASE_IMAGE (e.g. a CUDA 12 image for a driver older
# than CUDA 13's: nvidia/cuda:12.8.1-cudnn-devel-ubuntu24.04). The image's CUDA
# needs a host driver that supports it (CUDA 13.0: driver 580 or newer).
# Apptainer: sslat.def builds the same image with the same build step.
ARG BASE_IMAGE=nvidia/cuda:13.0.1-cudnn-devel-ubuntu24.04
FROM ${BASE_IMAGE}
ARG CUDAARCHS
LABEL org.opencontainers.image.title="sslat" \
      org.opencontainers.image.description="Latency lookup tables for NAS search spaces" \
      org.opencontainers.image.licenses="Apache-2.0"
WORKDIR /opt/sslat
COPY CMakeLists.txt LICENSE README.md pyproject.toml ./
COPY cmake cmake
COPY include include
COPY engine engine
COPY host host
COPY kernels kernels
COPY cli cli
COPY python python
COPY bench bench
COPY examples examples
COPY scripts scripts
# the build step, the same commands as sslat.def's %post (scripts/lint_recipes.py checks it)
RUN bash scripts/container_build.sh --install /usr/local --require-cuda
RUN sslat calculators
ENTRYPOINT ["sslat"]
CMD ["calculators"]
