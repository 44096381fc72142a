/* Container construction, validation, accessors and setters. */
#include "table/container.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/error.h"
#include "base/limits.h"
#include "base/memory.h"
#include "base/text.h"
#include "table/latency_type.h"

bool sslat_entry_noisy(const sslat_entry *e)
{
    return e->samples > 1 && e->mean > 0 && e->stddev / e->mean > SSLAT_NOISY_COV;
}

void sslat_container_noise_summary(const sslat_container *c, char *text, size_t size)
{
    int32_t noisy = 0, timed = 0;
    for (int32_t i = 0; i < c->offset[c->n_blocks]; i++) {
        if (c->entries[i].samples < 2) continue;
        timed++;
        noisy += sslat_entry_noisy(&c->entries[i]);
    }
    snprintf(text, size, "%d of %d timed candidate entries have stddev / mean > %.1f%% (column noisy of the CSV)",
             noisy, timed, 100 * SSLAT_NOISY_COV);
}

sslat_entry sslat_entry_of_value(double value)
{
    sslat_entry entry = {value, value, value, 0.0, value, value, 1};
    return entry;
}

void sslat_entry_accumulate(sslat_entry *total, const sslat_entry *e, bool first)
{
    if (first) {
        *total = *e;
        return;
    }
    total->value += e->value;
    total->median += e->median;
    total->mean += e->mean;
    total->stddev = sqrt(total->stddev * total->stddev + e->stddev * e->stddev);
    total->min += e->min;
    total->max += e->max;
    /* the fewest samples of what ran: a part that never runs (an identity,
     * 0 samples, all figures 0) adds nothing, nor takes the count to 0 */
    if (e->samples > 0 && (total->samples == 0 || e->samples < total->samples)) total->samples = e->samples;
}

bool sslat_input_shape_valid(const int32_t input[4])
{
    int zeros = 0;
    for (int i = 0; i < 4; i++) zeros += input[i] == 0;
    return zeros == 0 || zeros == 4;
}

bool sslat_entry_valid(const sslat_entry *entry, char *why, size_t why_size)
{
    const struct { const char *name; double v; } figures[] = {
        {"value", entry->value}, {"median", entry->median}, {"mean", entry->mean},
        {"stddev", entry->stddev}, {"min", entry->min},     {"max", entry->max},
    };
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++) {
        if (!isfinite(figures[i].v) || figures[i].v < 0) {
            snprintf(why, why_size, "%s is %g (must be finite and >= 0)", figures[i].name,
                     figures[i].v);
            return false;
        }
    }
    /* the figures of one set of samples: min <= value, median, mean <= max (the
     * mean to rounding), and no samples only for an op that never ran (all 0) */
    double slack = 1e-9 * entry->max;
    if (entry->min > entry->max || entry->median < entry->min || entry->median > entry->max ||
        entry->value < entry->min || entry->value > entry->max || entry->mean < entry->min - slack ||
        entry->mean > entry->max + slack) {
        snprintf(why, why_size, "inconsistent figures: min %g, value %g, median %g, mean %g, max %g", entry->min,
                 entry->value, entry->median, entry->mean, entry->max);
        return false;
    }
    if (entry->samples == 0 && (entry->value != 0 || entry->max != 0)) {
        snprintf(why, why_size, "0 samples but a value of %g", entry->value);
        return false;
    }
    return true;
}

static void free_labels(sslat_container *c)
{
    if (c->block_names)
        for (int32_t b = 0; b < c->n_blocks; b++) free(c->block_names[b]);
    if (c->labels)
        for (int32_t i = 0; i < c->offset[c->n_blocks]; i++) free(c->labels[i]);
    free(c->block_names);
    free(c->labels);
    c->block_names = c->labels = NULL;
}

void sslat_shard_part_free(sslat_shard_part *part)
{
    if (!part) return;
    free(part->fixed);
    free(part->fixed_present);
    free(part->present);
    free(part);
}

sslat_status sslat_container_make_partial(sslat_container *c, int32_t index, int32_t count,
                                          int32_t n_fixed, sslat_error *err)
{
    if (count < 1 || index < 0 || index >= count || n_fixed < 0 || n_fixed > SSLAT_MAX_LAYERS)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "shard %d/%d is not a valid shard", index, count);
    sslat_shard_part *part = calloc(1, sizeof *part);
    if (part) {
        part->fixed = calloc((size_t)n_fixed + 1, sizeof *part->fixed);
        part->fixed_present = calloc((size_t)n_fixed + 1, 1);
        part->present = calloc((size_t)c->offset[c->n_blocks] + 1, 1);
    }
    if (!part || !part->fixed || !part->fixed_present || !part->present) {
        sslat_shard_part_free(part);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    part->index = index;
    part->count = count;
    part->n_fixed = n_fixed;
    sslat_shard_part_free(c->shard);
    c->shard = part;
    return SSLAT_OK;
}

sslat_status sslat_container_require_whole(const sslat_container *c, sslat_error *err)
{
    if (c && c->shard)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                          "this is shard %d/%d of a sharded run: merge the shards first (sslat merge)",
                          c->shard->index, c->shard->count);
    return SSLAT_OK;
}

void sslat_container_free(sslat_container *c)
{
    if (!c) return;
    sslat_shard_part_free(c->shard);
    free_labels(c);
    for (int32_t i = 0; i < c->n_meta; i++) {
        free(c->meta[i].key);
        free(c->meta[i].value);
    }
    free(c->meta);
    free(c->n_candidates);
    free(c->offset);
    free(c->entries);
    free(c->space_name);
    free(c);
}

static void utc_now(char *buffer, size_t size)
{
    time_t now = time(NULL);
    struct tm utc;
    gmtime_r(&now, &utc);
    strftime(buffer, size, "%Y-%m-%dT%H:%M:%SZ", &utc);
}

/* Add or replace a pair without the latency_type / unit guard. */
static sslat_status put_meta(sslat_container *c, const char *key, const char *value,
                             sslat_error *err)
{
    if (strlen(key) == 0 || strlen(key) > SSLAT_MAX_STRING || strlen(value) > SSLAT_MAX_STRING)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "metadata key '%.40s' or its value is empty or too long", key);
    if (!sslat_utf8_valid(key, strlen(key)) || !sslat_utf8_valid(value, strlen(value)))
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "metadata key '%.40s' or its value is not UTF-8", key);
    for (int32_t i = 0; i < c->n_meta; i++) {
        if (strcmp(c->meta[i].key, key) != 0) continue;
        char *copy = sslat_strdup(value);
        if (!copy) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
        free(c->meta[i].value);
        c->meta[i].value = copy;
        return SSLAT_OK;
    }
    if (c->n_meta >= SSLAT_MAX_META)
        return sslat_fail(err, SSLAT_ERR_LIMIT, "more than %d metadata pairs", SSLAT_MAX_META);
    sslat_meta_pair *grown = realloc(c->meta, (size_t)(c->n_meta + 1) * sizeof *grown);
    if (!grown) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    c->meta = grown;
    char *k = sslat_strdup(key), *v = sslat_strdup(value);
    if (!k || !v) {
        free(k);
        free(v);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    c->meta[c->n_meta++] = (sslat_meta_pair){k, v};
    return SSLAT_OK;
}

sslat_status sslat_container_new(const char *latency_type, const int32_t *candidate_counts,
                                 int32_t block_count, sslat_container **out, sslat_error *err)
{
    *out = NULL;
    const char *unit = latency_type ? sslat_latency_type_unit(latency_type) : NULL;
    if (!unit)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                          "unknown latency type '%s' (sslat calculators lists them)",
                          latency_type ? latency_type : "(null)");
    if (block_count < 0 || block_count > SSLAT_MAX_LAYERS || (block_count > 0 && !candidate_counts))
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "block count %d is outside 0..%d",
                          block_count, SSLAT_MAX_LAYERS);
    int64_t total = 0;
    for (int32_t b = 0; b < block_count; b++) {
        if (candidate_counts[b] < 1 || candidate_counts[b] > SSLAT_MAX_CANDIDATES)
            return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                              "block %d has %d candidates (must be 1..%d: no empty blocks)", b,
                              candidate_counts[b], SSLAT_MAX_CANDIDATES);
        total += candidate_counts[b];
    }
    if (total > SSLAT_MAX_TOTAL_CANDIDATES)
        return sslat_fail(err, SSLAT_ERR_LIMIT, "%lld candidates (limit %d)", (long long)total,
                          SSLAT_MAX_TOTAL_CANDIDATES);
    sslat_container *c = calloc(1, sizeof *c);
    if (!c) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    c->n_blocks = block_count;
    c->n_candidates = calloc((size_t)block_count + 1, sizeof *c->n_candidates);
    c->offset = calloc((size_t)block_count + 1, sizeof *c->offset);
    c->entries = calloc((size_t)total + 1, sizeof *c->entries);
    c->space_name = sslat_strdup("");
    if (!c->n_candidates || !c->offset || !c->entries || !c->space_name) {
        sslat_container_free(c);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    for (int32_t b = 0; b < block_count; b++) {
        c->n_candidates[b] = candidate_counts[b];
        c->offset[b + 1] = c->offset[b] + candidate_counts[b];
    }
    char created[32];
    utc_now(created, sizeof created);
    sslat_status status = put_meta(c, "latency_type", sslat_latency_type_canonical(latency_type), err);
    if (status == SSLAT_OK) status = put_meta(c, "unit", unit, err);
    if (status == SSLAT_OK) status = put_meta(c, "tool_version", sslat_version(), err);
    if (status == SSLAT_OK) status = put_meta(c, "created", created, err);
    if (status != SSLAT_OK) {
        sslat_container_free(c);
        return status;
    }
    *out = c;
    return SSLAT_OK;
}

sslat_status sslat_container_create(const char *latency_type, double constant_latency,
                                    const double *operations_latencies,
                                    const int32_t *candidate_counts, int32_t block_count,
                                    sslat_container **out, sslat_error *error)
{
    sslat_error_clear(error);
    if (!out) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "out must not be NULL");
    sslat_container *c = NULL;
    sslat_status status = sslat_container_new(latency_type, candidate_counts, block_count, &c, error);
    if (status != SSLAT_OK) return status;
    sslat_entry constant = sslat_entry_of_value(constant_latency);
    status = sslat_container_set_constant_entry(c, &constant, error);
    for (int32_t b = 0; status == SSLAT_OK && b < block_count; b++)
        for (int32_t i = 0; status == SSLAT_OK && i < c->n_candidates[b]; i++) {
            if (!operations_latencies) {
                status = sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "operations_latencies is NULL");
                break;
            }
            sslat_entry e = sslat_entry_of_value(operations_latencies[c->offset[b] + i]);
            status = sslat_container_set_entry(c, b, i, &e, error);
        }
    if (status != SSLAT_OK) {
        sslat_container_free(c);
        return status;
    }
    *out = c;
    return SSLAT_OK;
}

sslat_status sslat_container_set_labels(sslat_container *c, char **block_names, char **labels,
                                        sslat_error *err)
{
    int32_t total = c->offset[c->n_blocks];
    /* what the reader would refuse is refused here: labels are UTF-8 of bounded length */
    for (int32_t k = 0; k < c->n_blocks + total; k++) {
        const char *text = k < c->n_blocks ? (block_names ? block_names[k] : NULL) : (labels ? labels[k - c->n_blocks] : NULL);
        if (text && (strlen(text) > SSLAT_MAX_STRING || !sslat_utf8_valid(text, strlen(text))))
            return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "a block name or label is not UTF-8 of at most %d bytes",
                              SSLAT_MAX_STRING);
    }
    char **names = calloc((size_t)c->n_blocks + 1, sizeof *names);
    char **cands = calloc((size_t)total + 1, sizeof *cands);
    bool ok = names && cands;
    for (int32_t b = 0; ok && b < c->n_blocks; b++)
        ok = (names[b] = sslat_strdup(block_names && block_names[b] ? block_names[b] : "")) != NULL;
    for (int32_t i = 0; ok && i < total; i++)
        ok = (cands[i] = sslat_strdup(labels && labels[i] ? labels[i] : "")) != NULL;
    if (!ok) {
        for (int32_t b = 0; names && b < c->n_blocks; b++) free(names[b]);
        for (int32_t i = 0; cands && i < total; i++) free(cands[i]);
        free(names);
        free(cands);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    free_labels(c);
    c->block_names = names;
    c->labels = cands;
    return SSLAT_OK;
}

/* ---- accessors ------------------------------------------------------------------ */

const char *sslat_container_metadata(const sslat_container *c, const char *key)
{
    for (int32_t i = 0; c && key && i < c->n_meta; i++)
        if (strcmp(c->meta[i].key, key) == 0) return c->meta[i].value;
    return NULL;
}

static const char *meta_or_empty(const sslat_container *c, const char *key)
{
    const char *value = sslat_container_metadata(c, key);
    return value ? value : "";
}

const char *sslat_container_latency_type(const sslat_container *c) { return meta_or_empty(c, "latency_type"); }
const char *sslat_container_unit(const sslat_container *c) { return meta_or_empty(c, "unit"); }
const char *sslat_container_dtype(const sslat_container *c) { return meta_or_empty(c, "dtype"); }
const char *sslat_container_layout(const sslat_container *c) { return meta_or_empty(c, "layout"); }
const char *sslat_container_tool_version(const sslat_container *c) { return meta_or_empty(c, "tool_version"); }
const char *sslat_container_created(const sslat_container *c) { return meta_or_empty(c, "created"); }
double sslat_container_constant_latency(const sslat_container *c) { return c->constant.value; }
sslat_entry sslat_container_constant_entry(const sslat_container *c) { return c->constant; }
int32_t sslat_container_block_count(const sslat_container *c) { return c->n_blocks; }
const char *sslat_container_space_name(const sslat_container *c) { return c->space_name; }
uint64_t sslat_container_space_hash(const sslat_container *c) { return c->space_hash; }
int32_t sslat_container_batch(const sslat_container *c) { return c->input[0]; }
int32_t sslat_container_metadata_count(const sslat_container *c) { return c->n_meta; }

void sslat_container_input_shape(const sslat_container *c, int32_t nchw[4])
{
    memcpy(nchw, c->input, sizeof c->input);
}

int32_t sslat_container_candidate_count(const sslat_container *c, int32_t block)
{
    return c && block >= 0 && block < c->n_blocks ? c->n_candidates[block] : -1;
}

static bool in_range(const sslat_container *c, int32_t block, int32_t candidate)
{
    return c && block >= 0 && block < c->n_blocks && candidate >= 0 &&
           candidate < c->n_candidates[block];
}

double sslat_container_latency(const sslat_container *c, int32_t block, int32_t candidate)
{
    return in_range(c, block, candidate) ? c->entries[c->offset[block] + candidate].value : NAN;
}

static sslat_status out_of_range(const sslat_container *c, int32_t block, int32_t candidate,
                                 sslat_error *error)
{
    return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT,
                      "block %d candidate %d is out of range (%d blocks%s)", block, candidate,
                      c ? c->n_blocks : 0, c && block >= 0 && block < c->n_blocks ? "" : "; no such block");
}

sslat_status sslat_container_entry(const sslat_container *c, int32_t block, int32_t candidate,
                                   sslat_entry *entry, sslat_error *error)
{
    if (!in_range(c, block, candidate) || !entry) return out_of_range(c, block, candidate, error);
    *entry = c->entries[c->offset[block] + candidate];
    return SSLAT_OK;
}

const char *sslat_container_block_name(const sslat_container *c, int32_t block)
{
    if (!c || block < 0 || block >= c->n_blocks) return NULL;
    return c->block_names ? c->block_names[block] : "";
}

const char *sslat_container_candidate_label(const sslat_container *c, int32_t block,
                                            int32_t candidate)
{
    if (!in_range(c, block, candidate)) return NULL;
    return c->labels ? c->labels[c->offset[block] + candidate] : "";
}

sslat_status sslat_container_metadata_at(const sslat_container *c, int32_t index,
                                         const char **key, const char **value)
{
    if (!c || index < 0 || index >= c->n_meta || !key || !value) return SSLAT_ERR_INVALID_ARGUMENT;
    *key = c->meta[index].key;
    *value = c->meta[index].value;
    return SSLAT_OK;
}

/* ---- setters --------------------------------------------------------------------- */

sslat_status sslat_container_set_entry(sslat_container *c, int32_t block, int32_t candidate,
                                       const sslat_entry *entry, sslat_error *error)
{
    if (!in_range(c, block, candidate) || !entry) return out_of_range(c, block, candidate, error);
    char why[96];
    if (!sslat_entry_valid(entry, why, sizeof why))
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "operations_latencies[%d][%d]: %s",
                          block, candidate, why);
    c->entries[c->offset[block] + candidate] = *entry;
    if (c->shard) c->shard->present[c->offset[block] + candidate] = 1; /* this part measured it */
    return SSLAT_OK;
}

sslat_status sslat_container_set_constant_entry(sslat_container *c, const sslat_entry *entry,
                                                sslat_error *error)
{
    char why[96];
    if (!c || !entry) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    if (!sslat_entry_valid(entry, why, sizeof why))
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "constant_latency: %s", why);
    c->constant = *entry;
    return SSLAT_OK;
}

const char *sslat_container_block_title(const sslat_container *c, int32_t block, char *buffer, size_t size)
{
    const char *name = sslat_container_block_name(c, block);
    if (name && *name) return name;
    snprintf(buffer, size, "block %d", block);
    return buffer;
}

const char *sslat_container_candidate_title(const sslat_container *c, int32_t block, int32_t candidate,
                                            char *buffer, size_t size)
{
    const char *label = sslat_container_candidate_label(c, block, candidate);
    if (label && *label) return label;
    snprintf(buffer, size, "candidate %d", candidate);
    return buffer;
}

const char *sslat_container_space_title(const sslat_container *c)
{
    const char *name = sslat_container_space_name(c);
    return name && *name ? name : "unknown (no space bound: an imported table)";
}

sslat_status sslat_container_relabel_type(sslat_container *c, const char *latency_type, sslat_error *err)
{
    const char *unit = latency_type ? sslat_latency_type_unit(latency_type) : NULL;
    if (!unit)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "unknown latency type '%s'",
                          latency_type ? latency_type : "(null)");
    if (!strcmp(sslat_latency_type_canonical(latency_type), SSLAT_VALUE_TYPE) ||
        !strcmp(sslat_container_latency_type(c), SSLAT_VALUE_TYPE))
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "a value table is made by sslat import --values (or "
                          "sslat.value_table), not by relabelling: a %s table stays one",
                          sslat_container_latency_type(c));
    if (strcmp(unit, sslat_container_unit(c)) != 0)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "a %s table (%s) cannot be relabelled %s (%s): other unit",
                          sslat_container_latency_type(c), sslat_container_unit(c), latency_type, unit);
    return put_meta(c, "latency_type", sslat_latency_type_canonical(latency_type), err);
}

sslat_status sslat_container_set_metadata(sslat_container *c, const char *key, const char *value,
                                          sslat_error *error)
{
    if (!c || !key || !value) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    if (!strcmp(key, "latency_type") || !strcmp(key, "unit") || !strcmp(key, "value.name"))
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "'%s' is fixed when the container is created%s", key,
                          strcmp(key, "latency_type") ? " (a value table's by sslat_container_name_values)" : "");
    return put_meta(c, key, value, error);
}

sslat_status sslat_container_name_values(sslat_container *c, const char *name, const char *unit, sslat_error *error)
{
    sslat_error_clear(error);
    if (!c || !name || !unit) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    if (strcmp(sslat_container_latency_type(c), SSLAT_VALUE_TYPE))
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "a %s table keeps its own name and unit (%s): only a "
                          "value table is named", sslat_container_latency_type(c), sslat_container_unit(c));
    char why[160];
    if (!sslat_value_name_valid(name, why, sizeof why))
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "value name '%.60s': %s", name, why);
    if (!sslat_value_unit_valid(unit, why, sizeof why))
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "value unit '%.60s': %s", unit, why);
    sslat_status status = put_meta(c, "value.name", name, error);
    return status == SSLAT_OK ? put_meta(c, "unit", unit, error) : status;
}

const char *sslat_container_value_name(const sslat_container *c)
{
    const char *name = sslat_container_metadata(c, "value.name");
    if (!strcmp(sslat_container_latency_type(c), SSLAT_VALUE_TYPE)) return name ? name : SSLAT_VALUE_TYPE;
    return sslat_container_latency_type(c);
}

sslat_status sslat_container_set_fixed_entry(sslat_container *c, int32_t fixed, const sslat_entry *entry,
                                             sslat_error *error)
{
    if (!c || !c->shard || fixed < 0 || fixed >= c->shard->n_fixed || !entry)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "fixed layer %d: not a fixed layer of this shard's part",
                          fixed);
    char why[96];
    if (!sslat_entry_valid(entry, why, sizeof why))
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "fixed layer %d: %s", fixed, why);
    c->shard->fixed[fixed] = *entry;
    c->shard->fixed_present[fixed] = 1;
    return SSLAT_OK;
}

sslat_status sslat_container_set_space_info(sslat_container *c, const char *name, uint64_t hash,
                                            const int32_t nchw[4], sslat_error *error)
{
    if (!name || strlen(name) > SSLAT_MAX_STRING || !sslat_utf8_valid(name, strlen(name)))
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "a space name must be UTF-8 of at most %d bytes",
                          SSLAT_MAX_STRING);
    char *copy = sslat_strdup(name);
    if (!copy) return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    free(c->space_name);
    c->space_name = copy;
    c->space_hash = hash;
    memcpy(c->input, nchw, sizeof c->input);
    return SSLAT_OK;
}
