/* Whole files in and out. Writes are atomic: a temporary file beside the
 * target, fsync, rename, so a crash or a failed write never leaves a
 * half-written target. Reads are bounded: a file (or a pipe, or /dev/zero)
 * larger than the caller's limit fails with SSLAT_ERR_LIMIT after reading at
 * most limit + 1 bytes. */
#ifndef SSLAT_FILE_IO_H
#define SSLAT_FILE_IO_H

#include <stddef.h>

#include "sslat.h"

sslat_status sslat_write_file_atomic(const char *path, const void *data, size_t size,
                                     sslat_error *err);

/* The whole file into *data (NUL-terminated, the caller frees it) and its
 * size; at most max_bytes. Messages start with the path. */
sslat_status sslat_read_file(const char *path, size_t max_bytes, char **data, size_t *size,
                             sslat_error *err);

#endif
