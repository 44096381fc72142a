/* kernels/depthwise.cu compiled as host C++ (SSLAT_CUDA_EMULATE): its launcher runs
 * the emulated grid of kernels/emulate.h. */
#include "kernels/depthwise.cu"
