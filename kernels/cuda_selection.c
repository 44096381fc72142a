/* The persistent selection cache (kernels/cuda_selection.h says what it keeps and trusts). */
#define _GNU_SOURCE
#include "kernels/cuda_selection.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/crc32.h"
#include "base/file_io.h"
#include "base/hash.h"

#define MAX_FILE_BYTES ((size_t)64 << 20)
/* the longest line an entry makes (24 key fields, 11 others, 44 knobs of two
 * 64-bit values, the time): under 2,500 characters; longer lines are not ours */
#define MAX_LINE 4096
/* how long a run waits for another's lock before it leaves the cache as it is */
#define LOCK_WAIT_S 10

static uint64_t text_hash(const char *text)
{
    sslat_hasher h;
    sslat_hash_begin(&h);
    sslat_hash_bytes(&h, text, strlen(text));
    return h.state;
}

uint64_t cuda_selection_hardware(const char *gpu_name, int sm_count, int cc_major, int cc_minor)
{
    char text[512];
    snprintf(text, sizeof text, "gpu=%s;sms=%d;cc=%d.%d", gpu_name, sm_count, cc_major, cc_minor);
    return text_hash(text);
}

uint64_t cuda_selection_software(int driver_version, int cudnn_version, const char *sslat_version)
{
    char text[256];
    snprintf(text, sizeof text, "driver=%d;cudnn=%d;sslat=%s", driver_version, cudnn_version, sslat_version);
    return text_hash(text);
}

const char *cuda_selection_folder(const char *option, char *out, size_t size, const char **why)
{
    *why = NULL;
    if (option && strcmp(option, "off") == 0) {
        *why = "off (--selection-cache off)";
        return NULL;
    }
    const char *from_env = getenv("SSLAT_SELECTION_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    if (!option && from_env && from_env[0]) {
        if (strcmp(from_env, "off") == 0) {
            *why = "off (SSLAT_SELECTION_CACHE=off)";
            return NULL;
        }
        option = from_env;
    }
    int n;
    if (option) n = snprintf(out, size, "%s", option);
    else if (xdg && xdg[0] == '/') n = snprintf(out, size, "%s/sslat", xdg);
    else if (home && home[0]) n = snprintf(out, size, "%s/.cache/sslat", home);
    else {
        *why = "off: no --selection-cache, XDG_CACHE_HOME or HOME to put it in";
        return NULL;
    }
    if (n < 0 || (size_t)n >= size) {
        *why = "off: the cache folder's path is too long";
        return NULL;
    }
    return out;
}

/* ---- one line per entry -------------------------------------------------------------------- */

/* The entry's line without its checksum. */
static int format_entry(const cuda_selection_entry *e, char *out, size_t size)
{
    size_t used = 0;
    int n = snprintf(out, size, "E %016" PRIx64 " %016" PRIx64, e->hardware, e->software);
    if (n < 0) return -1;
    used = (size_t)n;
#define APPEND(...)                                                 \
    do {                                                            \
        if (used >= size) return -1;                                \
        n = snprintf(out + used, size - used, __VA_ARGS__);         \
        if (n < 0) return -1;                                       \
        used += (size_t)n;                                          \
    } while (0)
    for (int i = 0; i < CUDA_CONV_KEY_FIELDS; i++) APPEND(" %" PRId64, e->key.fields[i]);
    APPEND(" %d %d %d %d %d %" PRIu64 " %" PRId64 " %u %u %d %d", (int)e->route, e->algo, e->math, e->fallback ? 1 : 0,
           e->fma_forced ? 1 : 0, e->workspace, e->engine.global_index, e->engine.numerical, e->engine.behavior,
           e->engine.fallback ? 1 : 0, e->engine.knobs);
    for (int k = 0; k < e->engine.knobs; k++) APPEND(" %" PRId64 " %" PRId64, e->engine.knob_type[k], e->engine.knob_value[k]);
    APPEND(" %.9g", e->ms);
#undef APPEND
    return used < size ? (int)used : -1;
}

/* The next integer of a line, or false at its end or on anything else. */
static bool next_integer(const char **at, int64_t *value, int base)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(*at, &end, base);
    if (end == *at || errno || (*end != ' ' && *end != '\0')) return false;
    *value = (int64_t)v;
    *at = end;
    return true;
}

static bool next_unsigned_hex(const char **at, uint64_t *value)
{
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(*at, &end, 16);
    if (end == *at || errno || *end != ' ') return false;
    *value = (uint64_t)v;
    *at = end;
    return true;
}

/* One line read back: its checksum first, then every field in range. */
static bool parse_entry(const char *line, cuda_selection_entry *e)
{
    memset(e, 0, sizeof *e);
    const char *crc_at = strrchr(line, ' ');
    if (strncmp(line, "E ", 2) != 0 || !crc_at) return false;
    char *end = NULL;
    unsigned long crc = strtoul(crc_at + 1, &end, 16);
    if (*end != '\0' || (uint32_t)crc != sslat_crc32(line, (size_t)(crc_at - line))) return false;
    const char *at = line + 1;
    if (!next_unsigned_hex(&at, &e->hardware) || !next_unsigned_hex(&at, &e->software)) return false;
    for (int i = 0; i < CUDA_CONV_KEY_FIELDS; i++)
        if (!next_integer(&at, &e->key.fields[i], 10)) return false;
    int64_t v[11];
    for (int i = 0; i < 11; i++)
        if (!next_integer(&at, &v[i], 10)) return false;
    if (v[0] < CUDA_ROUTE_LEGACY || v[0] > CUDA_ROUTE_OWN_DEPTHWISE || v[5] < 0 || v[10] < 0 || v[10] > CUDA_MAX_KNOBS)
        return false;
    e->route = (cuda_conv_route)v[0];
    e->algo = (int32_t)v[1], e->math = (int32_t)v[2], e->fallback = v[3] != 0, e->fma_forced = v[4] != 0;
    e->workspace = (uint64_t)v[5];
    e->engine.global_index = v[6], e->engine.numerical = (unsigned)v[7], e->engine.behavior = (unsigned)v[8];
    e->engine.fallback = v[9] != 0, e->engine.knobs = (int32_t)v[10];
    for (int k = 0; k < e->engine.knobs; k++)
        if (!next_integer(&at, &e->engine.knob_type[k], 10) || !next_integer(&at, &e->engine.knob_value[k], 10))
            return false;
    e->ms = strtod(at, &end);
    return end != at && end == crc_at;
}

/* ---- the file -------------------------------------------------------------------------------- */

static bool append(cuda_selection_entry **items, int32_t *count, int32_t *capacity, const cuda_selection_entry *e)
{
    if (*count == *capacity) {
        int32_t next = *capacity ? 2 * *capacity : 64;
        cuda_selection_entry *grown = realloc(*items, (size_t)next * sizeof *grown);
        if (!grown) return false;
        *items = grown;
        *capacity = next;
    }
    (*items)[(*count)++] = *e;
    return true;
}

/* Every entry the file holds (a missing file holds none); false with
 * problem set when it cannot be read or is of another format. */
static bool read_all(const char *path, cuda_selection_entry **all, int32_t *count, int32_t *unreadable, char *problem,
                     size_t problem_size)
{
    *all = NULL;
    *count = 0;
    *unreadable = 0;
    struct stat st;
    if (stat(path, &st) != 0 && errno == ENOENT) return true;
    /* a regular file only: a FIFO would block the run, a device is nobody's cache */
    if (!S_ISREG(st.st_mode)) {
        snprintf(problem, problem_size, "%s is not a regular file: not read, not replaced", path);
        return false;
    }
    char *data = NULL;
    size_t size = 0;
    sslat_error err;
    if (sslat_read_file(path, MAX_FILE_BYTES, &data, &size, &err) != SSLAT_OK) {
        snprintf(problem, problem_size, "%s", err.message);
        return false;
    }
    size_t header = strlen(CUDA_SELECTION_HEADER);
    if (size == 0) { /* an empty file holds nothing to lose */
        free(data);
        return true;
    }
    if (size < header || strncmp(data, CUDA_SELECTION_HEADER, header) != 0 || (data[header] != '\n' && data[header])) {
        snprintf(problem, problem_size, "%s is not a selection cache of this version (its first line is not '%s'): "
                 "not read, not replaced", path, CUDA_SELECTION_HEADER);
        free(data);
        return false;
    }
    int32_t capacity = 0;
    /* line by line up to the file's size: a NUL byte makes its line unreadable, not the end of the file */
    const char *line = data + header, *end_of_file = data + size;
    while (line < end_of_file) {
        const char *newline = memchr(line, '\n', (size_t)(end_of_file - line));
        size_t length = (size_t)((newline ? newline : end_of_file) - line);
        if (length > 0) {
            cuda_selection_entry e;
            if (memchr(line, '\0', length) || length >= MAX_LINE) (*unreadable)++;
            else {
                char text[MAX_LINE];
                memcpy(text, line, length);
                text[length] = '\0';
                if (!parse_entry(text, &e)) (*unreadable)++;
                else if (!append(all, count, &capacity, &e)) {
                    snprintf(problem, problem_size, "out of memory reading %s", path);
                    free(data);
                    return false;
                }
            }
        }
        line = newline ? newline + 1 : end_of_file;
    }
    free(data);
    return true;
}

void cuda_selection_open(cuda_selection_cache *c, const char *folder, uint64_t hardware, uint64_t software)
{
    memset(c, 0, sizeof *c);
    c->hardware = hardware, c->software = software;
    if (!folder) return;
    int n = snprintf(c->path, sizeof c->path, "%s/%s", folder, CUDA_SELECTION_FILE);
    if (n < 0 || (size_t)n >= sizeof c->path) {
        snprintf(c->problem, sizeof c->problem, "off: the cache folder's path is too long");
        return;
    }
    c->on = true;
    cuda_selection_entry *all = NULL;
    int32_t count = 0;
    if (!read_all(c->path, &all, &count, &c->unreadable, c->problem, sizeof c->problem)) return;
    for (int32_t i = 0; i < count; i++) {
        const cuda_selection_entry *e = &all[i];
        if (e->hardware != hardware) c->other_devices++;
        else if (e->software != software) c->stale++;
        else if (!append(&c->items, &c->count, &c->capacity, e)) break;
    }
    free(all);
}

static bool same_key(const cuda_conv_key *a, const cuda_conv_key *b) { return !memcmp(a, b, sizeof *a); }

const cuda_selection_entry *cuda_selection_get(cuda_selection_cache *c, const cuda_conv_key *key)
{
    if (!c->on) return NULL;
    for (int32_t i = c->count - 1; i >= 0; i--) /* the latest first */
        if (same_key(&c->items[i].key, key)) {
            c->hits++;
            return &c->items[i];
        }
    c->misses++;
    return NULL;
}

void cuda_selection_mark_stale(cuda_selection_cache *c)
{
    c->hits--; /* counted when it was found */
    c->stale++;
}

void cuda_selection_put(cuda_selection_cache *c, const cuda_selection_entry *entry)
{
    if (!c->on) return;
    cuda_selection_entry e = *entry;
    e.hardware = c->hardware, e.software = c->software;
    append(&c->fresh, &c->n_fresh, &c->fresh_capacity, &e); /* out of memory: not kept, nothing else lost */
}

/* The folder and its parents, as mkdir -p (private: it describes the machine). */
static bool make_folders(const char *path, char *problem, size_t size)
{
    char copy[4096];
    snprintf(copy, sizeof copy, "%s", path);
    char *slash = strrchr(copy, '/');
    if (!slash) return true;
    *slash = '\0';
    for (char *p = copy + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(copy, 0700) != 0 && errno != EEXIST) break;
        *p = '/';
    }
    if (copy[0] && mkdir(copy, 0700) != 0 && errno != EEXIST) {
        snprintf(problem, size, "cannot make the cache folder %s: %s", copy, strerror(errno));
        return false;
    }
    return true;
}

/* The file's text: the header, then each entry with its checksum. */
static char *serialize(const cuda_selection_entry *const *entries, int32_t n, size_t *size)
{
    size_t capacity = 64 + (size_t)n * (MAX_LINE + 16), used = 0;
    char *text = malloc(capacity);
    if (!text) return NULL;
    used = (size_t)snprintf(text, capacity, "%s\n", CUDA_SELECTION_HEADER);
    for (int32_t i = 0; i < n; i++) {
        char line[MAX_LINE];
        int length = format_entry(entries[i], line, sizeof line);
        if (length < 0) { /* cannot happen: every field is bounded (44 knobs at most) */
            free(text);
            return NULL;
        }
        used += (size_t)snprintf(text + used, capacity - used, "%s %08x\n", line,
                                 (unsigned)sslat_crc32(line, (size_t)length));
    }
    *size = used;
    return text;
}

bool cuda_selection_save(cuda_selection_cache *c)
{
    if (!c->on || c->n_fresh == 0) return true;
    if (!make_folders(c->path, c->problem, sizeof c->problem)) return false;
    char lock_path[4200];
    snprintf(lock_path, sizeof lock_path, "%s.lock", c->path);
    /* the lock file itself, never what a link there points at */
    int lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (lock < 0) {
        snprintf(c->problem, sizeof c->problem, "cannot lock %s: %s", lock_path, strerror(errno));
        return false;
    }
    /* another run holds it while it writes (milliseconds): wait a while, never forever */
    int waited_ms = 0;
    while (flock(lock, LOCK_EX | LOCK_NB) != 0) {
        if ((errno != EWOULDBLOCK && errno != EINTR) || waited_ms >= LOCK_WAIT_S * 1000) {
            char why[160];
            if (waited_ms >= LOCK_WAIT_S * 1000)
                snprintf(why, sizeof why, "another process has held it for %d s", LOCK_WAIT_S);
            else
                snprintf(why, sizeof why, "%s", strerror(errno));
            snprintf(c->problem, sizeof c->problem, "cannot lock %s: %s", lock_path, why);
            close(lock);
            return false;
        }
        usleep(20000);
        waited_ms += 20;
    }
    /* what is there now (other runs may have written since this one read) */
    cuda_selection_entry *all = NULL;
    int32_t count = 0, unreadable = 0;
    bool ok = read_all(c->path, &all, &count, &unreadable, c->problem, sizeof c->problem);
    if (ok && access(c->path, F_OK) == 0 && access(c->path, W_OK) != 0) { /* made read-only by its owner */
        snprintf(c->problem, sizeof c->problem, "%s is read-only: not replaced", c->path);
        ok = false;
    }
    const cuda_selection_entry **merged = ok ? malloc(((size_t)count + (size_t)c->n_fresh + 1) * sizeof *merged) : NULL;
    if (ok && !merged) {
        snprintf(c->problem, sizeof c->problem, "out of memory writing %s", c->path);
        ok = false;
    }
    int32_t n = 0;
    for (int32_t i = 0; ok && i < count; i++) {
        const cuda_selection_entry *e = &all[i];
        if (e->hardware == c->hardware && e->software != c->software) continue; /* stale: dropped */
        bool replaced = false;
        for (int32_t f = 0; e->hardware == c->hardware && !replaced && f < c->n_fresh; f++)
            replaced = same_key(&c->fresh[f].key, &e->key);
        if (!replaced) merged[n++] = e;
    }
    for (int32_t f = 0; ok && f < c->n_fresh; f++) merged[n++] = &c->fresh[f];
    size_t size = 0;
    char *text = ok ? serialize(merged, n, &size) : NULL;
    sslat_error err;
    if (ok && !text) {
        snprintf(c->problem, sizeof c->problem, "out of memory writing %s", c->path);
        ok = false;
    } else if (ok && sslat_write_file_atomic(c->path, text, size, &err) != SSLAT_OK) {
        snprintf(c->problem, sizeof c->problem, "%s", err.message);
        ok = false;
    }
    if (ok) c->written = c->n_fresh;
    free(text);
    free(merged);
    free(all);
    flock(lock, LOCK_UN);
    close(lock);
    return ok;
}

void cuda_selection_release(cuda_selection_cache *c)
{
    free(c->items);
    free(c->fresh);
    memset(c, 0, sizeof *c);
}

void cuda_selection_describe(const cuda_selection_cache *c, char *out, size_t size)
{
    if (!c->on) {
        snprintf(out, size, "%s", c->problem[0] ? c->problem : "off");
        return;
    }
    snprintf(out, size, "%s: %d decisions reused, %d made and %s; %d entries of this GPU from other software or no "
             "longer working ignored, %d of other GPUs kept, %d unreadable lines skipped%s%s",
             c->path, c->hits, c->n_fresh, c->written == c->n_fresh ? "written" : "NOT written", c->stale,
             c->other_devices, c->unreadable, c->problem[0] ? "; " : "", c->problem);
}
