#define _XOPEN_SOURCE 700 /* realpath */
#include "base/file_io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"

/* How an output is written. */
typedef enum target_kind {
    TARGET_REPLACE, /* a regular file (new or existing): temporary + rename */
    TARGET_DIRECT,  /* a FIFO or a character device: written in place */
} target_kind;

typedef struct target {
    target_kind kind;
    char *final; /* the file replaced (a symbolic link resolved), or the path written directly */
    char *temp;  /* the prepared temporary, or NULL */
} target;

static sslat_status write_all(int fd, const void *data, size_t size)
{
    const char *bytes = data;
    size_t done = 0;
    while (done < size) {
        ssize_t wrote = write(fd, bytes + done, size - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return wrote < 0 ? errno : EIO;
        done += (size_t)wrote;
    }
    return 0;
}

static char *copy_text(const char *text)
{
    char *copy = malloc(strlen(text) + 1);
    if (copy) strcpy(copy, text);
    return copy;
}

/* A path as a message shows it: a long one (4,000 bytes of "./") cut in its
 * middle, so that the reason after it still fits the error's message. */
typedef struct shown_text {
    char text[200];
} shown_text;

static shown_text shown(const char *path)
{
    shown_text s;
    size_t length = strlen(path);
    if (length < sizeof s.text) snprintf(s.text, sizeof s.text, "%s", path);
    else snprintf(s.text, sizeof s.text, "%.80s...%s", path, path + length - 100);
    return s;
}

/* What path is and where it is written (nothing is changed yet). */
static sslat_status classify(const char *path, target *t, sslat_error *err)
{
    memset(t, 0, sizeof *t);
    if (!*path) return sslat_fail(err, SSLAT_ERR_IO, "an empty output path");
    struct stat followed, link;
    if (stat(path, &followed) != 0) {
        if (errno != ENOENT) return sslat_fail(err, SSLAT_ERR_IO, "%s: %s", shown(path).text, strerror(errno));
        if (lstat(path, &link) == 0 && S_ISLNK(link.st_mode))
            return sslat_fail(err, SSLAT_ERR_IO, "%s: a symbolic link to nothing: refusing to guess where to write",
                              shown(path).text);
        t->kind = TARGET_REPLACE;
        t->final = copy_text(path);
    } else if (S_ISREG(followed.st_mode)) {
        t->kind = TARGET_REPLACE;
        /* through a symbolic link: the file it names is replaced, beside itself */
        t->final = lstat(path, &link) == 0 && S_ISLNK(link.st_mode) ? realpath(path, NULL) : copy_text(path);
    } else if (S_ISFIFO(followed.st_mode) || S_ISCHR(followed.st_mode)) {
        t->kind = TARGET_DIRECT; /* a pipe, a terminal, /dev/null: never replaced by a file */
        t->final = copy_text(path);
    } else {
        return sslat_fail(err, SSLAT_ERR_IO, "%s: %s: refusing to write there", shown(path).text,
                          S_ISDIR(followed.st_mode) ? "is a directory" : "not a regular file, a FIFO or a character device");
    }
    return t->final ? SSLAT_OK : sslat_fail(err, SSLAT_ERR_NOMEM, "%s: out of memory", shown(path).text);
}

sslat_status sslat_check_writable(const char *path, bool *direct, sslat_error *err)
{
    target t;
    if (direct) *direct = false;
    if (!path) return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "no output path");
    sslat_status status = classify(path, &t, err);
    if (status != SSLAT_OK) return status;
    if (direct) *direct = t.kind == TARGET_DIRECT;
    if (t.kind == TARGET_REPLACE) {
        /* the temporary and the rename happen in the target's folder */
        const char *slash = strrchr(t.final, '/');
        char *folder = slash ? strndup(t.final, (size_t)(slash - t.final) + (slash == t.final)) : copy_text(".");
        struct stat st;
        if (!folder) status = sslat_fail(err, SSLAT_ERR_NOMEM, "%s: out of memory", shown(path).text);
        else if (stat(folder, &st) != 0)
            status = sslat_fail(err, SSLAT_ERR_IO, "%s: its folder %s: %s", shown(path).text, shown(folder).text,
                                strerror(errno));
        else if (!S_ISDIR(st.st_mode))
            status = sslat_fail(err, SSLAT_ERR_IO, "%s: %s is not a folder", shown(path).text, shown(folder).text);
        else if (access(folder, W_OK | X_OK) != 0)
            status = sslat_fail(err, SSLAT_ERR_IO, "%s: its folder %s is not writable: %s", shown(path).text,
                                shown(folder).text, strerror(errno));
        free(folder);
    }
    free(t.final);
    return status;
}

/* The temporary of a file to replace: a unique name in the same folder (so
 * the rename is atomic), whatever the length of the target's name. */
static sslat_status prepare(target *t, const void *data, size_t size, sslat_error *err)
{
    const char *slash = strrchr(t->final, '/');
    size_t folder = slash ? (size_t)(slash - t->final) + 1 : 0;
    t->temp = malloc(folder + sizeof ".sslat-tmp-XXXXXX");
    if (!t->temp) return sslat_fail(err, SSLAT_ERR_NOMEM, "%s: out of memory", shown(t->final).text);
    memcpy(t->temp, t->final, folder);
    strcpy(t->temp + folder, ".sslat-tmp-XXXXXX");
    int fd = mkstemp(t->temp);
    if (fd < 0) {
        sslat_status status = sslat_fail(err, SSLAT_ERR_IO, "%s: cannot create a temporary file beside it: %s",
                                         shown(t->final).text, strerror(errno));
        free(t->temp);
        t->temp = NULL;
        return status;
    }
    int saved = fchmod(fd, 0644) != 0 ? errno : 0;
    if (!saved) saved = write_all(fd, data, size);
    if (!saved && fsync(fd) != 0) saved = errno;
    if (close(fd) != 0 && !saved) saved = errno;
    if (saved) {
        unlink(t->temp);
        free(t->temp);
        t->temp = NULL;
        return sslat_fail(err, SSLAT_ERR_IO, "%s: cannot write: %s", shown(t->final).text, strerror(saved));
    }
    return SSLAT_OK;
}

static sslat_status commit(const target *t, const void *data, size_t size, sslat_error *err)
{
    if (t->kind == TARGET_REPLACE) {
        if (rename(t->temp, t->final) != 0)
            return sslat_fail(err, SSLAT_ERR_IO, "%s: cannot write: %s", shown(t->final).text, strerror(errno));
        return SSLAT_OK;
    }
    int fd = open(t->final, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return sslat_fail(err, SSLAT_ERR_IO, "%s: cannot open: %s", shown(t->final).text, strerror(errno));
    int saved = write_all(fd, data, size);
    if (close(fd) != 0 && !saved) saved = errno;
    return saved ? sslat_fail(err, SSLAT_ERR_IO, "%s: cannot write: %s", shown(t->final).text, strerror(saved))
                 : SSLAT_OK;
}

sslat_status sslat_write_files_atomic(const sslat_output *outputs, size_t n, sslat_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (!outputs[i].path || (!outputs[i].data && outputs[i].size))
            return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "path and data are required");
    target *targets = calloc(n + 1, sizeof *targets);
    if (!targets) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    sslat_status status = SSLAT_OK;
    size_t ready = 0;
    /* every temporary first: a failure here changes no target */
    for (; status == SSLAT_OK && ready < n; ready++) {
        status = classify(outputs[ready].path, &targets[ready], err);
        if (status == SSLAT_OK && targets[ready].kind == TARGET_REPLACE)
            status = prepare(&targets[ready], outputs[ready].data, outputs[ready].size, err);
        if (status != SSLAT_OK) {
            free(targets[ready].final);
            break;
        }
    }
    for (size_t i = 0; status == SSLAT_OK && i < n; i++) status = commit(&targets[i], outputs[i].data, outputs[i].size, err);
    for (size_t i = 0; i < ready; i++) {
        if (targets[i].temp) unlink(targets[i].temp); /* left only when something failed */
        free(targets[i].temp);
        free(targets[i].final);
    }
    free(targets);
    return status;
}

sslat_status sslat_write_file_atomic(const char *path, const void *data, size_t size, sslat_error *err)
{
    const sslat_output one = {path, data, size};
    return sslat_write_files_atomic(&one, 1, err);
}

sslat_status sslat_read_file(const char *path, size_t max_bytes, char **data, size_t *size,
                             sslat_error *err)
{
    *data = NULL;
    *size = 0;
    FILE *file = fopen(path, "rb");
    if (!file) return sslat_fail(err, SSLAT_ERR_IO, "%s: cannot open: %s", shown(path).text, strerror(errno));
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
                             ? sslat_fail(err, SSLAT_ERR_LIMIT, "%s: larger than the %zu-byte limit", shown(path).text,
                                          max_bytes)
                             : sslat_fail(err, SSLAT_ERR_NOMEM, "%s: out of memory", shown(path).text);
                break;
            }
            buffer = grown;
            capacity = next;
        }
        size_t got = fread(buffer + used, 1, capacity - used, file);
        used += got;
        if (got == 0) {
            if (ferror(file))
                status = sslat_fail(err, SSLAT_ERR_IO, "%s: cannot read: %s", shown(path).text, strerror(errno));
            break;
        }
    }
    fclose(file);
    if (status != SSLAT_OK) {
        free(buffer);
        return status;
    }
    if (!buffer && !(buffer = malloc(1))) return sslat_fail(err, SSLAT_ERR_NOMEM, "%s: out of memory", shown(path).text);
    buffer[used] = '\0';
    *data = buffer;
    *size = used;
    return SSLAT_OK;
}
