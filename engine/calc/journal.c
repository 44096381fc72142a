#include "calc/journal.h"

#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/crc32.h"
#include "base/error.h"
#include "base/key_index.h"
#include "measure/quality.h"

/* A unit's payload: fingerprint, unit, entry (52), then what the run's
 * machine watch had seen when the record was written (WATCH_BYTES). */
enum { MAGIC = 0x4E524A53 /* "SJRN" */, VERSION = 3, ENTRY_END = 8 + 8 + 52, WATCH_BYTES = 4 + 5 * 4 + 8 * 8,
       UNIT_PAYLOAD = ENTRY_END + WATCH_BYTES, HEADER_PAYLOAD = 4 + 8, HEADER_RECORD = 12 + HEADER_PAYLOAD,
       UNIT_RECORD = 12 + UNIT_PAYLOAD };
enum { WATCH_PRESENT = 1, WATCH_OVERSUBSCRIBED = 2 };

struct sslat_journal {
    int fd;
    char *path;
    uint64_t fingerprint;
    uint64_t *units;
    sslat_entry *entries;
    size_t count, capacity;
    sslat_key_index index; /* unit → record */
    /* the resumed records' machine watch: the worst judged of them, and how
     * many were judged noisy or disturbed */
    bool resumed_watched;
    sslat_quality_input resumed_worst;
    sslat_quality_verdict resumed_verdict;
    size_t resumed_at_verdict[3]; /* resumed records judged ok, noisy, disturbed */
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

/* The watch as it was when a record was written (the entries' spread is the
 * whole table's, judged at the end, so it is not kept). */
static void put_watch(unsigned char *p, const sslat_quality_input *w)
{
    memset(p, 0, WATCH_BYTES);
    if (!w) return;
    put32(p, WATCH_PRESENT | (w->oversubscribed ? WATCH_OVERSUBSCRIBED : 0));
    const long counts[5] = {w->batches, w->remeasured, w->kept_disturbed, w->most_others, w->free_cores};
    for (int i = 0; i < 5; i++) put32(p + 4 + 4 * i, (uint32_t)(counts[i] < 0 ? 0 : counts[i]));
    const double shares[8] = {w->mean_share, w->worst_share, w->mean_wait, w->worst_wait,
                              w->worst_steal, w->busy_elsewhere, w->calibration_share, w->drift};
    for (int i = 0; i < 8; i++) putf(p + 24 + 8 * i, shares[i]);
}

static bool get_watch(const unsigned char *p, sslat_quality_input *w)
{
    uint32_t flags = get32(p);
    if (!(flags & WATCH_PRESENT)) return false;
    *w = (sslat_quality_input){.cov_median = NAN, .cov_worst = NAN};
    w->oversubscribed = flags & WATCH_OVERSUBSCRIBED;
    w->batches = get32(p + 4);
    w->remeasured = get32(p + 8);
    w->kept_disturbed = get32(p + 12);
    w->most_others = (int)get32(p + 16);
    w->free_cores = (int)get32(p + 20);
    double *shares[8] = {&w->mean_share, &w->worst_share, &w->mean_wait, &w->worst_wait,
                         &w->worst_steal, &w->busy_elsewhere, &w->calibration_share, &w->drift};
    for (int i = 0; i < 8; i++) *shares[i] = getf(p + 24 + 8 * i);
    return true;
}

/* A resumed record's watch: kept when it is judged worse than the worst so far. */
static void note_resumed_watch(sslat_journal *j, const sslat_quality_input *w)
{
    char cause[8];
    sslat_quality_verdict verdict = sslat_quality_judge(w, cause, sizeof cause);
    j->resumed_at_verdict[verdict]++;
    if (!j->resumed_watched || verdict > j->resumed_verdict ||
        (verdict == j->resumed_verdict && w->batches > j->resumed_worst.batches)) {
        j->resumed_worst = *w;
        j->resumed_verdict = verdict;
    }
    j->resumed_watched = true;
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
    return SSLAT_OK;
}

sslat_status sslat_journal_sync(sslat_journal *j, sslat_error *err)
{
    if (j && fdatasync(j->fd) != 0) return sslat_fail(err, SSLAT_ERR_IO, "%s: cannot sync: %s", j->path, strerror(errno));
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

/* Whether a record starts at data with the given payload length and a good checksum. */
static bool record_ok(const unsigned char *data, uint32_t length)
{
    return get32(data) == MAGIC && get32(data + 4) == length && get32(data + 8 + length) == sslat_crc32(data + 8, length);
}

/* Read the header and every unit record; *good_end = where appending goes on. */
static sslat_status replay(sslat_journal *j, off_t *good_end, sslat_journal_info *info, sslat_error *err)
{
    struct stat st;
    if (fstat(j->fd, &st) != 0) return sslat_fail(err, SSLAT_ERR_IO, "%s: %s", j->path, strerror(errno));
    size_t size = (size_t)st.st_size;
    *good_end = 0;
    if (size == 0) return SSLAT_OK; /* nothing yet: start afresh */
    unsigned char *data = malloc(size + 1);
    if (!data) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory reading %s", j->path);
    size_t got = 0;
    while (got < size) {
        ssize_t n = pread(j->fd, data + got, size - got, (off_t)got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    sslat_status status = SSLAT_OK;
    if (got < HEADER_RECORD || !record_ok(data, HEADER_PAYLOAD) || get32(data + 8) != VERSION)
        status = sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                            "%s: its header is damaged or of another sslat version: none of it can be trusted "
                            "(--restart discards it)", j->path);
    else if (get64(data + 12) != j->fingerprint)
        status = sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                            "%s is the journal of another run (space, calculator, options or machine differ): "
                            "--restart discards it", j->path);
    size_t at = HEADER_RECORD;
    /* unit records are all of one size: a damaged one is skipped alone */
    for (long index = 0; status == SSLAT_OK && at + UNIT_RECORD <= got; at += UNIT_RECORD, index++) {
        const unsigned char *p = data + at + 8;
        if (!record_ok(data + at, UNIT_PAYLOAD)) {
            if (info->damaged++ == 0) info->first_damaged = index;
            continue;
        }
        if (get64(p) != j->fingerprint) { /* written by another run into this file */
            info->foreign++;
            continue;
        }
        sslat_entry e = {getf(p + 16), getf(p + 24), getf(p + 32), getf(p + 40), getf(p + 48), getf(p + 56),
                         get32(p + 64)};
        if (!remember(j, get64(p + 8), &e)) status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
        else info->recovered++;
        sslat_quality_input watch;
        if (get_watch(p + ENTRY_END, &watch)) note_resumed_watch(j, &watch);
    }
    info->torn = status == SSLAT_OK && at < got;
    *good_end = (off_t)at;
    free(data);
    return status;
}

sslat_status sslat_journal_open(const char *path, sslat_journal_mode mode, uint64_t fingerprint,
                                sslat_journal **out, sslat_journal_info *info, sslat_error *err)
{
    *out = NULL;
    memset(info, 0, sizeof *info);
    info->first_damaged = -1;
    sslat_journal *j = calloc(1, sizeof *j);
    if (!j || !(j->path = malloc(strlen(path) + 1))) {
        free(j);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    strcpy(j->path, path);
    j->fingerprint = fingerprint;
    /* never through a symbolic link: its target would be overwritten */
    j->fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    sslat_status status = SSLAT_OK;
    struct stat st;
    if (j->fd < 0)
        status = errno == ELOOP
                     ? sslat_fail(err, SSLAT_ERR_IO, "%s is a symbolic link: refusing to write a journal through it", path)
                     : sslat_fail(err, SSLAT_ERR_IO, "%s: cannot open the journal: %s", path, strerror(errno));
    else if (fstat(j->fd, &st) != 0 || !S_ISREG(st.st_mode))
        status = sslat_fail(err, SSLAT_ERR_IO, "%s is not a regular file: refusing to use it as a journal", path);
    else if (flock(j->fd, LOCK_EX | LOCK_NB) != 0)
        status = errno == EWOULDBLOCK
                     ? sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                                  "%s is in use: another sslat run is writing the same output; wait for it or "
                                  "choose another -o", path)
                     : sslat_fail(err, SSLAT_ERR_IO, "%s: cannot lock: %s", path, strerror(errno));
    else if (mode == SSLAT_JOURNAL_NEW && st.st_size > 0)
        status = sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                            "%s holds the work of an earlier run that did not finish: --resume continues it, "
                            "--restart discards it", path);
    if (status != SSLAT_OK) {
        sslat_journal_close(j, false);
        return status;
    }
    off_t end = 0;
    if (mode == SSLAT_JOURNAL_RESUME) status = replay(j, &end, info, err);
    if (status == SSLAT_OK && (ftruncate(j->fd, end) != 0 || lseek(j->fd, end, SEEK_SET) < 0))
        status = sslat_fail(err, SSLAT_ERR_IO, "%s: %s", path, strerror(errno));
    if (status == SSLAT_OK && end == 0) {
        unsigned char header[HEADER_PAYLOAD];
        put32(header, VERSION);
        put64(header + 4, fingerprint);
        status = write_record(j, header, HEADER_PAYLOAD, err);
        if (status == SSLAT_OK) status = sslat_journal_sync(j, err);
        if (status != SSLAT_OK) { /* a full disk: the file holds no record, so nothing is lost with it */
            sslat_journal_close(j, true);
            return status;
        }
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

sslat_status sslat_journal_append(sslat_journal *j, uint64_t unit, const sslat_entry *e,
                                  const sslat_quality_input *watch, sslat_error *err)
{
    unsigned char payload[UNIT_PAYLOAD];
    put64(payload, j->fingerprint);
    put64(payload + 8, unit);
    const double figures[6] = {e->value, e->median, e->mean, e->stddev, e->min, e->max};
    for (int i = 0; i < 6; i++) putf(payload + 16 + 8 * i, figures[i]);
    put32(payload + 64, e->samples);
    put_watch(payload + ENTRY_END, watch);
    sslat_status status = write_record(j, payload, UNIT_PAYLOAD, err);
    if (status == SSLAT_OK && !remember(j, unit, e)) status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    return status;
}

void sslat_journal_close(sslat_journal *j, bool remove_file)
{
    if (!j) return;
    if (remove_file && j->path && j->fd >= 0) unlink(j->path); /* while it is still ours (locked) */
    if (j->fd >= 0) close(j->fd); /* the lock goes with it */
    free(j->path);
    free(j->units);
    free(j->entries);
    sslat_key_index_release(&j->index);
    free(j);
}

size_t sslat_journal_count(const sslat_journal *j) { return j ? j->count : 0; }

bool sslat_journal_resumed_watch(const sslat_journal *j, sslat_quality_input *worst, size_t *at_worst)
{
    if (!j || !j->resumed_watched) return false;
    *worst = j->resumed_worst;
    *at_worst = j->resumed_at_verdict[j->resumed_verdict];
    return true;
}
