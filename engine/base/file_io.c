#include "base/file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/error.h"

sslat_status sslat_write_file_atomic(const char *path, const void *data, size_t size,
                                     sslat_error *err)
{
    if (!path || (!data && size))
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "path and data are required");
    size_t length = strlen(path) + 32;
    char *temp = malloc(length);
    if (!temp) return sslat_fail(err, SSLAT_ERR_NOMEM, "%s: out of memory", path);
    snprintf(temp, length, "%s.tmp.%ld", path, (long)getpid());
    int fd = open(temp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        sslat_status status =
            sslat_fail(err, SSLAT_ERR_IO, "%s: cannot create: %s", temp, strerror(errno));
        free(temp);
        return status;
    }
    const char *bytes = data;
    size_t done = 0;
    int saved = 0;
    while (done < size) {
        ssize_t wrote = write(fd, bytes + done, size - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) {
            saved = wrote < 0 ? errno : EIO;
            break;
        }
        done += (size_t)wrote;
    }
    if (!saved && fsync(fd) != 0) saved = errno;
    if (close(fd) != 0 && !saved) saved = errno;
    if (!saved && rename(temp, path) != 0) saved = errno;
    if (saved) {
        unlink(temp);
        free(temp);
        return sslat_fail(err, SSLAT_ERR_IO, "%s: cannot write: %s", path, strerror(saved));
    }
    free(temp);
    return SSLAT_OK;
}

sslat_status sslat_read_file(const char *path, size_t max_bytes, char **data, size_t *size,
                             sslat_error *err)
{
    *data = NULL;
    *size = 0;
    FILE *file = fopen(path, "rb");
    if (!file) return sslat_fail(err, SSLAT_ERR_IO, "%s: cannot open: %s", path, strerror(errno));
    /* grow as it reads: a size from fstat means nothing for pipes and devices */
    char *buffer = NULL;
    size_t capacity = 0, used = 0;
    sslat_status status = SSLAT_OK;
    while (status == SSLAT_OK) {
        if (used == capacity) {
            size_t next = capacity ? 2 * capacity : 64 * 1024;
            if (next > max_bytes + 1) next = max_bytes + 1;
            char *grown = next > capacity ? realloc(buffer, next + 1) : NULL;
            if (!grown) {
                status = used > max_bytes
                             ? sslat_fail(err, SSLAT_ERR_LIMIT, "%s: larger than the %zu-byte limit", path, max_bytes)
                             : sslat_fail(err, SSLAT_ERR_NOMEM, "%s: out of memory", path);
                break;
            }
            buffer = grown;
            capacity = next;
        }
        size_t got = fread(buffer + used, 1, capacity - used, file);
        used += got;
        if (got == 0) {
            if (ferror(file)) status = sslat_fail(err, SSLAT_ERR_IO, "%s: cannot read: %s", path, strerror(errno));
            break;
        }
    }
    fclose(file);
    if (status != SSLAT_OK) {
        free(buffer);
        return status;
    }
    if (!buffer && !(buffer = malloc(1))) return sslat_fail(err, SSLAT_ERR_NOMEM, "%s: out of memory", path);
    buffer[used] = '\0';
    *data = buffer;
    *size = used;
    return SSLAT_OK;
}
