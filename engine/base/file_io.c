#include "atomic_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"

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
