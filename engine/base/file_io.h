/* Whole files in and out. Writes are atomic: a temporary file beside the
 * target, fsync, rename, so a crash or a failed write never leaves a
 * half-written target. Only regular files are replaced so: a symbolic link is
 * written through (the file it names is replaced, beside itself); a FIFO or a
 * character device (a terminal, /dev/null, the pipe behind /dev/stdout) is
 * written directly and stays what it is; a directory, a block device or a
 * socket is refused. Reads are bounded: a file (or a pipe, or /dev/zero)
 * larger than the caller's limit fails with SSLAT_ERR_LIMIT after reading at
 * most limit + 1 bytes. */
#ifndef SSLAT_FILE_IO_H
#define SSLAT_FILE_IO_H

#include <stdbool.h>
#include <stddef.h>

#include "sslat.h"

sslat_status sslat_write_file_atomic(const char *path, const void *data, size_t size,
                                     sslat_error *err);

/* Several files, all or nothing: every output is prepared (its temporary
 * written and synced) before any target changes, so a failure leaves every
 * target as it was. */
typedef struct sslat_output {
    const char *path;
    const void *data;
    size_t size;
} sslat_output;

sslat_status sslat_write_files_atomic(const sslat_output *outputs, size_t n, sslat_error *err);

/* Whether path can be written as sslat_write_file_atomic writes it, checked
 * before any work (nothing is created): a file to replace needs an existing,
 * writable folder; a dangling symbolic link, a loop, a directory or a block
 * device is refused. *direct (may be NULL) says whether it is a FIFO or a
 * character device, written in place: nothing (no journal) belongs beside it. */
sslat_status sslat_check_writable(const char *path, bool *direct, sslat_error *err);

/* The whole file into *data (NUL-terminated, the caller frees it) and its
 * size; at most max_bytes. Messages start with the path. */
sslat_status sslat_read_file(const char *path, size_t max_bytes, char **data, size_t *size,
                             sslat_error *err);

#endif
