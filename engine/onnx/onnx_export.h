/* ONNX export, in memory: the model sslat_space_export_onnx writes, as bytes
 * (the fuzz target of loaded spaces uses it: no file, no fsync per input). */
#ifndef SSLAT_ONNX_EXPORT_H
#define SSLAT_ONNX_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "sslat.h"

/* *bytes (free with free()) and *size; the errors of sslat_space_export_onnx. */
sslat_status sslat_space_onnx_bytes(const sslat_space *space, const int32_t *arch, int32_t arch_length,
                                    const sslat_onnx_options *options, uint8_t **bytes, size_t *size,
                                    sslat_error *error);

#endif
