/* Atomic writes: a temporary file beside the target, fsync, rename. A crash or
 * a failed write never leaves a half-written target. */
#ifndef SSLAT_ATOMIC_FILE_H
#define SSLAT_ATOMIC_FILE_H

#include <stddef.h>

#include "sslat.h"

sslat_status sslat_write_file_atomic(const char *path, const void *data, size_t size,
                                     sslat_error *err);

#endif
