/* kernels/token.cu compiled as host C++ (SSLAT_CUDA_EMULATE): its launchers run
 * the emulated grid of kernels/emulate.h. */
#include "kernels/token.cu"
