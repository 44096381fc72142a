#include "calc/journal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/crc32.h"
#include "base/error.h"
#include "base/key_index.h"

enum { MAGIC = 0x4E524A53 /* "SJRN" */, VERSION = 1, UNIT_PAYLOAD = 8 + 52, HEADER_PAYLOAD = 4 + 8 };

struct sslat_journal {
    int fd;
    char *path;
    uint64_t *units;
    sslat_entry *entries;
    size_t count, capacity;
    sslat_key_index index; /* unit → record */
};

static void put32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (unsigned char)(v >> (8 * i));
}

static void put64(unsigned char *p, uint64_t v)
{
    put32(p, (uint32_t)v);
    put32(p + 4, (uint32_t)(v >> 32));
}

static uint32_t get32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const unsigned char *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

static double getf(const unsigned char *p)
{
    uint64_t bits = get64(p);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static void putf(unsigned char *p, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put64(p, bits);
}

static sslat_status write_record(sslat_journal *j, const unsigned char *payload, uint32_t length,
                                 sslat_error *err)
{
    unsigned char record[12 + UNIT_PAYLOAD];
    put32(record, MAGIC);
    put32(record + 4, length);
    memcpy(record + 8, payload, length);
    put32(record + 8 + length, sslat_crc32(payload, length));
    size_t size = 12 + (size_t)length, done = 0;
    while (done < size) {
        ssize_t wrote = write(j->fd, record + done, size - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) return sslat_fail(err, SSLAT_ERR_IO, "%s: cannot write: %s", j->path, strerror(errno));
        done += (size_t)wrote;
    }
    if (fdatasync(j->fd) != 0) return sslat_fail(err, SSLAT_ERR_IO, "%s: cannot sync: %s", j->path, strerror(errno));
    return SSLAT_OK;
}

static bool remember(sslat_journal *j, uint64_t unit, const sslat_entry *e)
{
    if (j->count == j->capacity) {
        size_t capacity = j->capacity ? j->capacity * 2 : 64;
        uint64_t *units = realloc(j->units, capacity * sizeof *units);
        if (!units) return false;
        j->units = units;
        sslat_entry *entries = realloc(j->entries, capacity * sizeof *entries);
        if (!entries) return false;
        j->entries = entries;
        j->capacity = capacity;
    }
    if (!sslat_key_index_put(&j->index, unit, (long)j->count)) return false;
    j->units[j->count] = unit;
    j->entries[j->count++] = *e;
    return true;
}

/* Read every complete record; returns the offset after the last good one. */
static sslat_status replay(sslat_journal *j, uint64_t fingerprint, off_t *good_end,
                           sslat_journal_info *info, sslat_error *err)
{
    struct stat st;
    if (fstat(j->fd, &st) != 0) return sslat_fail(err, SSLAT_ERR_IO, "%s: %s", j->path, strerror(errno));
    size_t size = (size_t)st.st_size;
    unsigned char *data = malloc(size + 1);
    if (!data) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory reading %s", j->path);
    size_t got = 0;
    while (got < size) {
        ssize_t n = pread(j->fd, data + got, size - got, (off_t)got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    size_t at = 0;
    bool header = false;
    sslat_status status = SSLAT_OK;
    while (at + 12 <= got) {
        uint32_t length = get32(data + at + 4);
        if (get32(data + at) != MAGIC || length > UNIT_PAYLOAD || at + 12 + length > got ||
            get32(data + at + 8 + length) != sslat_crc32(data + at + 8, length))
            break; /* torn or garbage: everything from here is dropped */
        const unsigned char *p = data + at + 8;
        if (!header) {
            if (length != HEADER_PAYLOAD || get32(p) != VERSION || get64(p + 4) != fingerprint) {
                status = sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                                    "%s is the journal of another run (space, calculator or options differ): "
                                    "remove it or run without --resume", j->path);
                break;
            }
            header = true;
        } else if (length == UNIT_PAYLOAD) {
            sslat_entry e = {getf(p + 8), getf(p + 16), getf(p + 24), getf(p + 32), getf(p + 40), getf(p + 48),
                             get32(p + 56)};
            if (!remember(j, get64(p), &e)) {
                status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
                break;
            }
            info->recovered++;
        }
        at += 12 + length;
    }
    info->torn = status == SSLAT_OK && at < got;
    *good_end = (off_t)at;
    if (status == SSLAT_OK && !header) *good_end = 0; /* nothing usable: start afresh */
    free(data);
    return status;
}

sslat_status sslat_journal_open(const char *path, bool resume, uint64_t fingerprint,
                                sslat_journal **out, sslat_journal_info *info, sslat_error *err)
{
    *out = NULL;
    memset(info, 0, sizeof *info);
    sslat_journal *j = calloc(1, sizeof *j);
    if (!j || !(j->path = malloc(strlen(path) + 1))) {
        free(j);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    strcpy(j->path, path);
    j->fd = open(path, O_RDWR | O_CREAT | (resume ? 0 : O_TRUNC), 0644);
    if (j->fd < 0) {
        sslat_status status = sslat_fail(err, SSLAT_ERR_IO, "%s: cannot open the journal: %s", path, strerror(errno));
        sslat_journal_close(j, false);
        return status;
    }
    off_t end = 0;
    sslat_status status = resume ? replay(j, fingerprint, &end, info, err) : SSLAT_OK;
    if (status == SSLAT_OK && (ftruncate(j->fd, end) != 0 || lseek(j->fd, end, SEEK_SET) < 0))
        status = sslat_fail(err, SSLAT_ERR_IO, "%s: %s", path, strerror(errno));
    if (status == SSLAT_OK && end == 0) {
        unsigned char header[HEADER_PAYLOAD];
        put32(header, VERSION);
        put64(header + 4, fingerprint);
        status = write_record(j, header, HEADER_PAYLOAD, err);
    }
    if (status != SSLAT_OK) {
        sslat_journal_close(j, false);
        return status;
    }
    *out = j;
    return SSLAT_OK;
}

const sslat_entry *sslat_journal_find(const sslat_journal *j, uint64_t unit)
{
    long i = j ? sslat_key_index_get(&j->index, unit) : -1;
    return i >= 0 ? &j->entries[i] : NULL;
}

sslat_status sslat_journal_append(sslat_journal *j, uint64_t unit, const sslat_entry *e, sslat_error *err)
{
    unsigned char payload[UNIT_PAYLOAD];
    put64(payload, unit);
    const double figures[6] = {e->value, e->median, e->mean, e->stddev, e->min, e->max};
    for (int i = 0; i < 6; i++) putf(payload + 8 + 8 * i, figures[i]);
    put32(payload + 56, e->samples);
    sslat_status status = write_record(j, payload, UNIT_PAYLOAD, err);
    if (status == SSLAT_OK && !remember(j, unit, e)) status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    return status;
}

void sslat_journal_close(sslat_journal *j, bool remove_file)
{
    if (!j) return;
    if (j->fd >= 0) close(j->fd);
    if (remove_file && j->path) unlink(j->path);
    free(j->path);
    free(j->units);
    free(j->entries);
    sslat_key_index_release(&j->index);
    free(j);
}
