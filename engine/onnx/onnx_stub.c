/* ONNX export in a build without protobuf-c or ONNX's onnx.proto: says what
 * to install instead of writing anything. */
#include "base/error.h"
#include "onnx/onnx_export.h"
#include "sslat.h"

#define NO_ONNX "this build has no ONNX export: it needs protobuf-c and ONNX's onnx.proto at build time " \
                "(Debian: protobuf-c-compiler libprotobuf-c-dev libonnx-dev; bash scripts/setup.sh installs them)"

sslat_status sslat_space_onnx_bytes(const sslat_space *space, const int32_t *arch, int32_t arch_length,
                                    const sslat_onnx_options *options, uint8_t **bytes, size_t *size,
                                    sslat_error *error)
{
    (void)space, (void)arch, (void)arch_length, (void)options, (void)bytes, (void)size;
    return sslat_fail(error, SSLAT_ERR_UNSUPPORTED, NO_ONNX);
}

sslat_status sslat_space_export_onnx(const sslat_space *space, const int32_t *arch, int32_t arch_length,
                                     const sslat_onnx_options *options, const char *path, sslat_error *error)
{
    (void)space, (void)arch, (void)arch_length, (void)options, (void)path;
    return sslat_fail(error, SSLAT_ERR_UNSUPPORTED, NO_ONNX);
}
