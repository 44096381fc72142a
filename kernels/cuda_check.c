/* The cuda backend's checks of what the CUDA runtime, cuDNN and cuBLAS return
 * (CUDA_RETURN_IF_FAILED), and whether a device is there. Apart from the loader
 * (kernels/cuda_api.c): the stand-in device of the tests (tests/standin/) fills
 * the call table itself and links these as they are. */
#include "kernels/cuda_api.h"

#include <stdbool.h>
#include <stdio.h>

#include "base/error.h"

int cuda_device_count(void)
{
    int count = 0;
    return cudaGetDeviceCount(&count) == cudaSuccess ? count : 0;
}

sslat_status cuda_check_runtime(cudaError_t code, const char *call, const char *file, int line, sslat_error *err)
{
    if (code == cudaSuccess) return SSLAT_OK;
    cudaGetLastError(); /* clear a sticky launch error so the next call reports its own */
    sslat_status status = code == cudaErrorMemoryAllocation ? SSLAT_ERR_NOMEM
                          : code == cudaErrorNoDevice || code == cudaErrorInsufficientDriver ? SSLAT_ERR_NO_DEVICE
                                                                                              : SSLAT_ERR_DEVICE;
    return sslat_fail(err, status, "%s failed at %s:%d: %s (%s)", call, file, line, cudaGetErrorString(code),
                      cudaGetErrorName(code));
}

/* cuDNN's and cuBLAS's statuses map the same way: allocation, unsupported, the rest. */
static sslat_status library_failure(bool alloc_failed, bool not_supported, const char *why, const char *call,
                                    const char *file, int line, sslat_error *err)
{
    sslat_status status = alloc_failed ? SSLAT_ERR_NOMEM : not_supported ? SSLAT_ERR_UNSUPPORTED : SSLAT_ERR_DEVICE;
    return sslat_fail(err, status, "%s failed at %s:%d: %s", call, file, line, why);
}

sslat_status cuda_check_cudnn(cudnnStatus_t code, const char *call, const char *file, int line, sslat_error *err)
{
    if (code == CUDNN_STATUS_SUCCESS) return SSLAT_OK;
    /* cuDNN 9 returns sub-codes (3002 NOT_SUPPORTED_SHAPE, 4004 device
     * allocation failed, …): map by category, and add cuDNN's own reason */
    char why[640];
    int written = snprintf(why, sizeof why, "%s (%d)",
                           CUDNN(cudnnGetErrorString) ? CUDNN(cudnnGetErrorString)(code) : "cuDNN error", (int)code);
    if (CUDNN(cudnnGetLastErrorString) && written > 0 && (size_t)written + 3 < sizeof why) {
        char detail[512] = "";
        CUDNN(cudnnGetLastErrorString)(detail, sizeof detail);
        if (detail[0]) snprintf(why + written, sizeof why - (size_t)written, ": %s", detail);
    }
    bool alloc_failed = code == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
                        code == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED;
    return library_failure(alloc_failed, CUDNN_STATUS_CATEGORY(code) == CUDNN_STATUS_NOT_SUPPORTED, why, call, file,
                           line, err);
}

sslat_status cuda_check_cublas(cublasStatus_t code, const char *call, const char *file, int line, sslat_error *err)
{
    if (code == CUBLAS_STATUS_SUCCESS) return SSLAT_OK;
    return library_failure(code == CUBLAS_STATUS_ALLOC_FAILED, code == CUBLAS_STATUS_NOT_SUPPORTED,
                           CUBLAS(cublasGetStatusString) ? CUBLAS(cublasGetStatusString)(code) : "cuBLAS error", call,
                           file, line, err);
}
