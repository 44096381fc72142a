/* Binary container files: writer and validating reader (docs/format.md). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/crc32.h"
#include "base/error.h"
#include "base/file_io.h"
#include "base/limits.h"
#include "base/text.h"
#include "table/container.h"
#include "table/latency_type.h"

static const unsigned char MAGIC[8] = {0x89, 'S', 'S', 'L', 'A', 'T', 0x0D, 0x0A};
enum { HEADER_SIZE = 32, SECTION_HEADER = 16, ENTRY_SIZE = 52, FORMAT_VERSION = 1 };
enum { SECTION_REQUIRED = 1u };

/* ---- writer ------------------------------------------------------------------------ */

typedef struct writer {
    unsigned char *data;
    size_t size, capacity;
    bool failed;
} writer;

static void put_bytes(writer *w, const void *bytes, size_t size)
{
    if (w->failed) return;
    if (w->size + size > w->capacity) {
        size_t capacity = w->capacity ? w->capacity : 4096;
        while (capacity < w->size + size) capacity *= 2;
        unsigned char *grown = realloc(w->data, capacity);
        if (!grown) {
            w->failed = true;
            return;
        }
        w->data = grown;
        w->capacity = capacity;
    }
    memcpy(w->data + w->size, bytes, size);
    w->size += size;
}

static void put_u32(writer *w, uint32_t v)
{
    unsigned char le[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                           (unsigned char)(v >> 24)};
    put_bytes(w, le, 4);
}

static void put_u64(writer *w, uint64_t v)
{
    put_u32(w, (uint32_t)v);
    put_u32(w, (uint32_t)(v >> 32));
}

static void put_f64(writer *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    put_u64(w, bits);
}

static void put_string(writer *w, const char *s)
{
    size_t length = strlen(s);
    put_u32(w, (uint32_t)length);
    put_bytes(w, s, length);
}

static void put_entry(writer *w, const sslat_entry *e)
{
    put_f64(w, e->value);
    put_f64(w, e->median);
    put_f64(w, e->mean);
    put_f64(w, e->stddev);
    put_f64(w, e->min);
    put_f64(w, e->max);
    put_u32(w, e->samples);
}

/* Sections are written with a placeholder length, patched when the body is done. */
static size_t begin_section(writer *w, const char tag[4], uint32_t flags)
{
    put_bytes(w, tag, 4);
    put_u32(w, flags);
    put_u64(w, 0);
    return w->size;
}

static void end_section(writer *w, size_t body_start)
{
    if (w->failed) return;
    uint64_t length = w->size - body_start;
    for (int i = 0; i < 8; i++) w->data[body_start - 8 + i] = (unsigned char)(length >> (8 * i));
}

static void write_payload(writer *w, const sslat_container *c)
{
    size_t at = begin_section(w, "META", SECTION_REQUIRED);
    put_u32(w, (uint32_t)c->n_meta);
    for (int32_t i = 0; i < c->n_meta; i++) {
        put_string(w, c->meta[i].key);
        put_string(w, c->meta[i].value);
    }
    end_section(w, at);

    at = begin_section(w, "SPAC", SECTION_REQUIRED);
    put_u64(w, c->space_hash);
    for (int i = 0; i < 4; i++) put_u32(w, (uint32_t)c->input[i]);
    put_string(w, c->space_name);
    end_section(w, at);

    at = begin_section(w, "TABL", SECTION_REQUIRED);
    put_entry(w, &c->constant);
    put_u32(w, (uint32_t)c->n_blocks);
    for (int32_t b = 0; b < c->n_blocks; b++) put_u32(w, (uint32_t)c->n_candidates[b]);
    for (int32_t i = 0; i < c->offset[c->n_blocks]; i++) put_entry(w, &c->entries[i]);
    end_section(w, at);

    if (c->shard) { /* required: a reader that ignored it would take a part for a whole */
        const sslat_shard_part *part = c->shard;
        at = begin_section(w, "SHRD", SECTION_REQUIRED);
        put_u32(w, (uint32_t)part->index);
        put_u32(w, (uint32_t)part->count);
        put_u32(w, (uint32_t)part->n_fixed);
        for (int32_t i = 0; i < part->n_fixed; i++) {
            unsigned char flag = part->fixed_present[i];
            put_bytes(w, &flag, 1);
            put_entry(w, &part->fixed[i]);
        }
        put_bytes(w, part->present, (size_t)c->offset[c->n_blocks]);
        end_section(w, at);
    }

    if (c->block_names) {
        at = begin_section(w, "LABL", 0);
        put_u32(w, (uint32_t)c->n_blocks);
        for (int32_t b = 0; b < c->n_blocks; b++) {
            put_string(w, c->block_names[b]);
            for (int32_t i = 0; i < c->n_candidates[b]; i++)
                put_string(w, c->labels[c->offset[b] + i]);
        }
        end_section(w, at);
    }
}

sslat_status sslat_container_save_to_bytes(const sslat_container *c, uint8_t **bytes,
                                           size_t *size, sslat_error *error)
{
    sslat_error_clear(error);
    if (!c || !bytes || !size) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    *bytes = NULL;
    *size = 0;
    writer w = {0};
    unsigned char header[HEADER_SIZE] = {0};
    put_bytes(&w, header, sizeof header); /* filled below, once the payload is known */
    write_payload(&w, c);
    if (w.failed) {
        free(w.data);
        return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory serialising the container");
    }
    uint64_t payload = w.size - HEADER_SIZE;
    writer h = {0};
    put_bytes(&h, MAGIC, sizeof MAGIC);
    put_u32(&h, FORMAT_VERSION);
    put_u32(&h, 0);
    put_u64(&h, payload);
    put_u32(&h, sslat_crc32(w.data + HEADER_SIZE, payload));
    put_u32(&h, 0);
    if (h.failed) {
        free(w.data);
        return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    }
    memcpy(w.data, h.data, HEADER_SIZE);
    free(h.data);
    *bytes = w.data;
    *size = w.size;
    return SSLAT_OK;
}

/* ---- reader -------------------------------------------------------------------------- */

typedef struct reader {
    const unsigned char *data;
    size_t size, at; /* absolute offsets into the whole buffer */
    sslat_error *err;
    const char *where; /* the section being read */
    sslat_status status;
} reader;

static bool need(reader *r, size_t count)
{
    if (r->status != SSLAT_OK) return false;
    if (count > r->size - r->at) {
        r->status = sslat_fail(r->err, SSLAT_ERR_PARSE,
                               "container: %s: truncated at byte %zu (needs %zu more, has %zu)",
                               r->where, r->at, count, r->size - r->at);
        return false;
    }
    return true;
}

static uint32_t get_u32(reader *r)
{
    if (!need(r, 4)) return 0;
    const unsigned char *p = r->data + r->at;
    r->at += 4;
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(reader *r)
{
    uint64_t lo = get_u32(r);
    return lo | (uint64_t)get_u32(r) << 32;
}

static double get_f64(reader *r)
{
    uint64_t bits = get_u64(r);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

static void bad(reader *r, const char *format, ...) __attribute__((format(printf, 2, 3)));

static void bad(reader *r, const char *format, ...)
{
    if (r->status != SSLAT_OK) return;
    char what[300];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    r->status = sslat_fail(r->err, SSLAT_ERR_PARSE, "container: %s at byte %zu: %s", r->where,
                           r->at, what);
}

/* A string, allocated only after its length is checked against the buffer. */
static char *get_string(reader *r)
{
    uint32_t length = get_u32(r);
    if (r->status != SSLAT_OK) return NULL;
    if (length > SSLAT_MAX_STRING) {
        bad(r, "string of %u bytes (limit %d)", length, SSLAT_MAX_STRING);
        return NULL;
    }
    if (!need(r, length)) return NULL;
    if (memchr(r->data + r->at, 0, length)) {
        bad(r, "string with a NUL byte");
        return NULL;
    }
    if (!sslat_utf8_valid((const char *)r->data + r->at, length)) { /* the format says UTF-8; JSON needs it */
        bad(r, "string that is not UTF-8");
        return NULL;
    }
    char *s = malloc((size_t)length + 1);
    if (!s) {
        r->status = sslat_fail(r->err, SSLAT_ERR_NOMEM, "out of memory");
        return NULL;
    }
    memcpy(s, r->data + r->at, length);
    s[length] = '\0';
    r->at += length;
    return s;
}

static sslat_entry get_entry(reader *r, const char *name, int32_t block, int32_t candidate)
{
    sslat_entry e;
    e.value = get_f64(r);
    e.median = get_f64(r);
    e.mean = get_f64(r);
    e.stddev = get_f64(r);
    e.min = get_f64(r);
    e.max = get_f64(r);
    e.samples = get_u32(r);
    char why[96];
    if (r->status == SSLAT_OK && !sslat_entry_valid(&e, why, sizeof why)) {
        if (block < 0) bad(r, "%s: %s", name, why);
        else bad(r, "%s[%d][%d]: %s", name, block, candidate, why);
    }
    return e;
}

typedef struct parsed {
    sslat_meta_pair *meta;
    int32_t n_meta;
    uint64_t space_hash;
    int32_t input[4];
    char *space_name;
    sslat_container *table; /* created from META's type and TABL's shape */
    char **block_names, **labels;
    int32_t n_label_blocks, n_labels;
    bool seen_meta, seen_space, seen_table, seen_labels, seen_shard;
} parsed;

static void free_parsed(parsed *p)
{
    for (int32_t i = 0; i < p->n_meta; i++) {
        free(p->meta[i].key);
        free(p->meta[i].value);
    }
    free(p->meta);
    free(p->space_name);
    for (int32_t i = 0; i < p->n_label_blocks; i++) free(p->block_names[i]);
    for (int32_t i = 0; i < p->n_labels; i++) free(p->labels[i]);
    free(p->block_names);
    free(p->labels);
    sslat_container_free(p->table);
}

static void read_meta(reader *r, parsed *p)
{
    uint32_t count = get_u32(r);
    if (r->status != SSLAT_OK) return;
    /* each pair takes at least 8 bytes: a count the buffer cannot hold is refused
     * before anything is allocated */
    if (count > SSLAT_MAX_META || (size_t)count * 8 > r->size - r->at) {
        bad(r, "%u metadata pairs (limit %d, or more than the section holds)", count, SSLAT_MAX_META);
        return;
    }
    p->meta = calloc((size_t)count + 1, sizeof *p->meta);
    if (!p->meta) {
        r->status = sslat_fail(r->err, SSLAT_ERR_NOMEM, "out of memory");
        return;
    }
    for (uint32_t i = 0; i < count && r->status == SSLAT_OK; i++) {
        char *key = get_string(r);
        char *value = key ? get_string(r) : NULL;
        if (!value) {
            free(key);
            return;
        }
        p->meta[p->n_meta++] = (sslat_meta_pair){key, value};
        if (!*key) bad(r, "empty metadata key");
        for (int32_t j = 0; j + 1 < p->n_meta && r->status == SSLAT_OK; j++)
            if (strcmp(p->meta[j].key, key) == 0) bad(r, "metadata key '%.60s' appears twice", key);
    }
}

static const char *parsed_meta(const parsed *p, const char *key)
{
    for (int32_t i = 0; i < p->n_meta; i++)
        if (strcmp(p->meta[i].key, key) == 0) return p->meta[i].value;
    return NULL;
}

static void read_space(reader *r, parsed *p)
{
    p->space_hash = get_u64(r);
    for (int i = 0; i < 4; i++) {
        uint32_t v = get_u32(r);
        if (v > (i == 1 ? SSLAT_MAX_CHANNELS : SSLAT_MAX_SPATIAL)) bad(r, "input dimension %u is too large", v);
        p->input[i] = (int32_t)v;
    }
    if (r->status == SSLAT_OK && !sslat_input_shape_valid(p->input))
        bad(r, "input %dx%dx%dx%d has a zero dimension (a batch, channel count, height or width of 0)", p->input[0],
            p->input[1], p->input[2], p->input[3]);
    p->space_name = get_string(r);
}

static void read_table(reader *r, parsed *p)
{
    const char *type = parsed_meta(p, "latency_type");
    const char *unit = parsed_meta(p, "unit");
    if (!p->seen_meta || !type || !unit) {
        bad(r, "TABL before META, or META without latency_type and unit");
        return;
    }
    const char *expected = sslat_latency_type_unit(type);
    if (!expected) {
        bad(r, "unknown latency type '%.40s'", type);
        return;
    }
    if (!sslat_latency_type_unit_fits(type, unit)) {
        bad(r, "unit '%.20s' does not match latency type '%s' (%s)", unit, type,
            *expected ? expected : "a value unit: 0 to 16 printable characters");
        return;
    }
    const char *value_name = parsed_meta(p, "value.name");
    if (!strcmp(sslat_latency_type_canonical(type), SSLAT_VALUE_TYPE) &&
        (!value_name || !sslat_value_name_valid(value_name, NULL, 0))) {
        bad(r, "a value table needs a valid value.name in its metadata");
        return;
    }
    sslat_entry constant = get_entry(r, "constant_latency", -1, -1);
    uint32_t blocks = get_u32(r);
    if (r->status != SSLAT_OK) return;
    if (blocks > SSLAT_MAX_LAYERS || (size_t)blocks * 4 > r->size - r->at) {
        bad(r, "%u blocks (limit %d, or more than the section holds)", blocks, SSLAT_MAX_LAYERS);
        return;
    }
    int32_t *counts = calloc((size_t)blocks + 1, sizeof *counts);
    if (!counts) {
        r->status = sslat_fail(r->err, SSLAT_ERR_NOMEM, "out of memory");
        return;
    }
    uint64_t total = 0;
    for (uint32_t b = 0; b < blocks && r->status == SSLAT_OK; b++) {
        uint32_t n = get_u32(r);
        if (r->status == SSLAT_OK && (n < 1 || n > SSLAT_MAX_CANDIDATES))
            bad(r, "block %u has %u candidates (must be 1..%d)", b, n, SSLAT_MAX_CANDIDATES);
        counts[b] = (int32_t)n;
        total += n;
    }
    if (r->status == SSLAT_OK && total * ENTRY_SIZE > r->size - r->at)
        bad(r, "%llu entries do not fit the %zu bytes left", (unsigned long long)total, r->size - r->at);
    if (r->status == SSLAT_OK) {
        sslat_error local;
        sslat_status status = sslat_container_new(type, counts, (int32_t)blocks, &p->table, &local);
        if (status != SSLAT_OK) bad(r, "%s", local.message);
    }
    free(counts);
    if (r->status != SSLAT_OK) return;
    p->table->constant = constant;
    for (int32_t b = 0; b < p->table->n_blocks && r->status == SSLAT_OK; b++)
        for (int32_t i = 0; i < p->table->n_candidates[b] && r->status == SSLAT_OK; i++)
            p->table->entries[p->table->offset[b] + i] = get_entry(r, "operations_latencies", b, i);
}

static void read_labels(reader *r, parsed *p)
{
    if (!p->seen_table) {
        bad(r, "LABL before TABL");
        return;
    }
    uint32_t blocks = get_u32(r);
    if (r->status == SSLAT_OK && blocks != (uint32_t)p->table->n_blocks) {
        bad(r, "%u block names for %d blocks", blocks, p->table->n_blocks);
        return;
    }
    int32_t total = p->table->offset[p->table->n_blocks];
    p->block_names = calloc((size_t)blocks + 1, sizeof *p->block_names);
    p->labels = calloc((size_t)total + 1, sizeof *p->labels);
    if (!p->block_names || !p->labels) {
        r->status = sslat_fail(r->err, SSLAT_ERR_NOMEM, "out of memory");
        return;
    }
    for (uint32_t b = 0; b < blocks && r->status == SSLAT_OK; b++) {
        if (!(p->block_names[b] = get_string(r))) return;
        p->n_label_blocks++;
        for (int32_t i = 0; i < p->table->n_candidates[b]; i++) {
            if (!(p->labels[p->n_labels] = get_string(r))) return;
            p->n_labels++;
        }
    }
}

static bool get_flag(reader *r)
{
    if (!need(r, 1)) return false;
    unsigned char v = r->data[r->at++];
    if (v > 1) bad(r, "flag byte %u (must be 0 or 1)", v);
    return v == 1;
}

static void read_shard(reader *r, parsed *p)
{
    if (!p->seen_table) {
        bad(r, "SHRD before TABL");
        return;
    }
    uint32_t index = get_u32(r), count = get_u32(r), fixed = get_u32(r);
    if (r->status != SSLAT_OK) return;
    if (count < 1 || count > 1u << 20 || index >= count) {
        bad(r, "shard %u/%u is not a valid shard", index, count);
        return;
    }
    if (fixed > SSLAT_MAX_LAYERS || (size_t)fixed * (1 + ENTRY_SIZE) > r->size - r->at) {
        bad(r, "%u fixed layers (limit %d, or more than the section holds)", fixed, SSLAT_MAX_LAYERS);
        return;
    }
    sslat_error local;
    if (sslat_container_make_partial(p->table, (int32_t)index, (int32_t)count, (int32_t)fixed, &local) != SSLAT_OK) {
        bad(r, "%s", local.message);
        return;
    }
    sslat_shard_part *part = p->table->shard;
    for (uint32_t i = 0; i < fixed && r->status == SSLAT_OK; i++) {
        part->fixed_present[i] = get_flag(r);
        part->fixed[i] = get_entry(r, "fixed layer", -1, -1);
    }
    for (int32_t i = 0; i < p->table->offset[p->table->n_blocks] && r->status == SSLAT_OK; i++)
        part->present[i] = get_flag(r);
}

static void read_section(reader *r, parsed *p, const char tag[4], uint32_t flags, size_t end)
{
    struct { const char *tag; bool *seen; void (*read)(reader *, parsed *); } known[] = {
        {"META", &p->seen_meta, read_meta},
        {"SPAC", &p->seen_space, read_space},
        {"TABL", &p->seen_table, read_table},
        {"LABL", &p->seen_labels, read_labels},
        {"SHRD", &p->seen_shard, read_shard},
    };
    for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) {
        if (memcmp(tag, known[k].tag, 4) != 0) continue;
        if (*known[k].seen) {
            bad(r, "section %s appears twice", known[k].tag);
            return;
        }
        size_t size = r->size;
        r->size = end; /* a body cannot read past its own length */
        r->where = known[k].tag;
        known[k].read(r, p);
        r->size = size;
        *known[k].seen = true;
        if (r->status == SSLAT_OK && r->at != end)
            bad(r, "%zu unread bytes at the end of the section", end - r->at);
        return;
    }
    if (flags & SECTION_REQUIRED) {
        bad(r, "unknown required section '%c%c%c%c'", tag[0], tag[1], tag[2], tag[3]);
        return;
    }
    r->at = end; /* unknown optional section: skipped */
}

static sslat_status read_header(reader *r)
{
    r->where = "header";
    if (r->size < HEADER_SIZE)
        return r->status = sslat_fail(r->err, SSLAT_ERR_PARSE,
                                      "container: %zu bytes, shorter than the 32-byte header", r->size);
    if (r->size > (size_t)SSLAT_MAX_CONTAINER_BYTES)
        return r->status = sslat_fail(r->err, SSLAT_ERR_LIMIT, "container: %zu bytes (limit %ld)",
                                      r->size, SSLAT_MAX_CONTAINER_BYTES);
    if (memcmp(r->data, MAGIC, sizeof MAGIC) != 0)
        return r->status = sslat_fail(r->err, SSLAT_ERR_PARSE,
                                      "container: not an sslat container (bad magic)");
    r->at = 8;
    uint32_t version = get_u32(r);
    uint32_t flags = get_u32(r);
    uint64_t payload = get_u64(r);
    uint32_t checksum = get_u32(r);
    uint32_t reserved = get_u32(r);
    if (version != FORMAT_VERSION)
        return r->status = sslat_fail(r->err, SSLAT_ERR_PARSE,
                                      "container: format version %u; this build reads %d", version,
                                      FORMAT_VERSION);
    if (flags != 0 || reserved != 0) {
        r->at = flags ? 12 : 28;
        bad(r, "reserved bits set (flags 0x%x, reserved 0x%x)", flags, reserved);
        return r->status;
    }
    if (payload != r->size - HEADER_SIZE)
        return r->status = sslat_fail(r->err, SSLAT_ERR_PARSE,
                                      "container: header says %llu payload bytes, the buffer has %zu%s",
                                      (unsigned long long)payload, r->size - HEADER_SIZE,
                                      payload > r->size - HEADER_SIZE ? " (truncated)" : " (trailing bytes)");
    uint32_t actual = sslat_crc32(r->data + HEADER_SIZE, r->size - HEADER_SIZE);
    if (actual != checksum)
        return r->status = sslat_fail(r->err, SSLAT_ERR_PARSE,
                                      "container: checksum mismatch (stored %08x, computed %08x): corrupted",
                                      checksum, actual);
    return SSLAT_OK;
}

static sslat_status assemble(parsed *p, sslat_container **out, sslat_error *error)
{
    sslat_container *c = p->table;
    /* the table came with fresh metadata; replace it by the file's, in the file's order */
    for (int32_t i = 0; i < c->n_meta; i++) {
        free(c->meta[i].key);
        free(c->meta[i].value);
    }
    free(c->meta);
    c->meta = p->meta;
    c->n_meta = p->n_meta;
    p->meta = NULL;
    p->n_meta = 0;
    free(c->space_name);
    c->space_name = p->space_name;
    p->space_name = NULL;
    c->space_hash = p->space_hash;
    memcpy(c->input, p->input, sizeof c->input);
    if (p->seen_labels) {
        c->block_names = p->block_names;
        c->labels = p->labels;
        p->block_names = p->labels = NULL;
        p->n_label_blocks = p->n_labels = 0;
    }
    p->table = NULL;
    (void)error;
    *out = c;
    return SSLAT_OK;
}

sslat_status sslat_container_load_from_bytes(const uint8_t *bytes, size_t size,
                                             sslat_container **out, sslat_error *error)
{
    sslat_error_clear(error);
    if (!out) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "out must not be NULL");
    *out = NULL;
    if (!bytes && size) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "bytes is NULL");
    reader r = {bytes, size, 0, error, "header", SSLAT_OK};
    if (read_header(&r) != SSLAT_OK) return r.status;
    parsed p;
    memset(&p, 0, sizeof p);
    r.at = HEADER_SIZE;
    while (r.status == SSLAT_OK && r.at < r.size) {
        r.where = "section header";
        if (!need(&r, SECTION_HEADER)) break;
        char tag[4];
        memcpy(tag, r.data + r.at, 4);
        r.at += 4;
        uint32_t flags = get_u32(&r);
        uint64_t length = get_u64(&r);
        if (flags & ~SECTION_REQUIRED) {
            bad(&r, "reserved section flag bits set (0x%x)", flags);
            break;
        }
        if (length > r.size - r.at) {
            bad(&r, "section length %llu runs past the end (%zu bytes left)",
                (unsigned long long)length, r.size - r.at);
            break;
        }
        read_section(&r, &p, tag, flags, r.at + (size_t)length);
    }
    if (r.status == SSLAT_OK && !(p.seen_meta && p.seen_space && p.seen_table)) {
        r.where = "payload";
        bad(&r, "missing required section %s",
            !p.seen_meta ? "META" : !p.seen_space ? "SPAC" : "TABL");
    }
    sslat_status status = r.status == SSLAT_OK ? assemble(&p, out, error) : r.status;
    free_parsed(&p);
    return status;
}

sslat_status sslat_container_clone(const sslat_container *src, sslat_container **out,
                                   sslat_error *error)
{
    /* one serialisation path: the clone is what a save and load would give */
    uint8_t *bytes = NULL;
    size_t size = 0;
    sslat_status status = sslat_container_save_to_bytes(src, &bytes, &size, error);
    if (status == SSLAT_OK) status = sslat_container_load_from_bytes(bytes, size, out, error);
    free(bytes);
    return status;
}
