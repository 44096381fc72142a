/* JSON export / import (exact round trip) and CSV export of containers. */
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/text.h"
#include "base/limits.h"
#include "base/memory.h"
#include "table/container.h"
#include "table/latency_type.h"

static json_t *entry_stats_json(const sslat_entry *e)
{
    return json_pack("{s:f, s:f, s:f, s:f, s:f, s:I}", "median", e->median, "mean", e->mean,
                     "stddev", e->stddev, "min", e->min, "max", e->max, "samples",
                     (json_int_t)e->samples);
}

sslat_status sslat_container_export_json(const sslat_container *c, char **text, sslat_error *error)
{
    sslat_error_clear(error);
    if (!c || !text) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    *text = NULL;
    sslat_status whole = sslat_container_require_whole(c, error);
    if (whole != SSLAT_OK) return whole;
    char hash[24];
    snprintf(hash, sizeof hash, "%016" PRIx64, c->space_hash);
    json_t *meta = json_object(), *values = json_array(), *stats = json_array(), *blocks = json_array();
    for (int32_t i = 0; i < c->n_meta; i++)
        json_object_set_new(meta, c->meta[i].key, json_string(c->meta[i].value));
    for (int32_t b = 0; b < c->n_blocks; b++) {
        json_t *row = json_array(), *row_stats = json_array(), *labels = json_array();
        for (int32_t i = 0; i < c->n_candidates[b]; i++) {
            const sslat_entry *e = &c->entries[c->offset[b] + i];
            json_array_append_new(row, json_real(e->value));
            json_array_append_new(row_stats, entry_stats_json(e));
            if (c->labels) json_array_append_new(labels, json_string(c->labels[c->offset[b] + i]));
        }
        json_array_append_new(values, row);
        json_array_append_new(stats, row_stats);
        if (c->block_names)
            json_array_append_new(blocks, json_pack("{s:s, s:o}", "name", c->block_names[b],
                                                    "candidates", labels));
        else
            json_decref(labels);
    }
    json_t *root = json_pack(
        "{s:i, s:s, s:s, s:o, s:{s:s, s:s, s:[i,i,i,i]}, s:f, s:o, s:o, s:o}", "sslat_container", 1,
        "latency_type", sslat_container_latency_type(c), "unit", sslat_container_unit(c),
        "metadata", meta, "space", "name", c->space_name, "hash", hash, "input", c->input[0],
        c->input[1], c->input[2], c->input[3], "constant_latency", c->constant.value,
        "constant_stats", entry_stats_json(&c->constant), "operations_latencies", values,
        "operations_stats", stats);
    if (root && c->block_names) json_object_set_new(root, "blocks", blocks);
    else json_decref(blocks);
    *text = root ? json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(17)) : NULL;
    json_decref(root);
    return *text ? SSLAT_OK : sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory writing JSON");
}

/* ---- import -------------------------------------------------------------------------- */

/* Every key of object must be one of keys: an unknown one (a typo, a field of
 * another tool) is refused, at any depth, not dropped silently. */
static sslat_status only_keys(json_t *object, const char *const *keys, size_t n, const char *path, sslat_error *error)
{
    const char *key;
    json_t *field;
    json_object_foreach(object, key, field) {
        size_t k = 0;
        while (k < n && strcmp(key, keys[k]) != 0) k++;
        if (k == n)
            return sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: unknown key \"%.60s\" in %s (a typo would "
                              "be lost silently)", key, path);
    }
    return SSLAT_OK;
}

#define ONLY_KEYS(object, path, ...)                                                                        \
    only_keys(object, (const char *const[]){__VA_ARGS__}, sizeof((const char *const[]){__VA_ARGS__}) /     \
                                                          sizeof(const char *), path, error)

static sslat_status read_stats(json_t *stats, double value, const char *path, sslat_entry *e,
                               sslat_error *error)
{
    *e = sslat_entry_of_value(value);
    if (!stats) return SSLAT_OK; /* values only: an analytic-style entry */
    if (!json_is_object(stats))
        return sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: %s must be an object", path);
    sslat_status status = ONLY_KEYS(stats, path, "median", "mean", "stddev", "min", "max", "samples");
    if (status != SSLAT_OK) return status;
    struct { const char *key; double *field; } reals[] = {
        {"median", &e->median}, {"mean", &e->mean}, {"stddev", &e->stddev},
        {"min", &e->min},       {"max", &e->max},
    };
    for (size_t i = 0; i < sizeof reals / sizeof reals[0]; i++) {
        json_t *v = json_object_get(stats, reals[i].key);
        if (!json_is_number(v))
            return sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: %s.%s must be a number", path,
                              reals[i].key);
        *reals[i].field = json_number_value(v);
    }
    json_t *samples = json_object_get(stats, "samples");
    if (!json_is_integer(samples) || json_integer_value(samples) < 0 ||
        json_integer_value(samples) > UINT32_MAX)
        return sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: %s.samples must be a count", path);
    e->samples = (uint32_t)json_integer_value(samples);
    return SSLAT_OK;
}

static sslat_status import_root(json_t *root, sslat_container **out, sslat_error *error)
{
    if (!json_is_object(root) || json_integer_value(json_object_get(root, "sslat_container")) != 1)
        return sslat_fail(error, SSLAT_ERR_PARSE,
                          "JSON container: not an sslat container export (\"sslat_container\": 1)");
    sslat_status checked = ONLY_KEYS(root, "the top level", "sslat_container", "latency_type", "unit", "metadata",
                                     "space", "constant_latency", "constant_stats", "operations_latencies",
                                     "operations_stats", "blocks");
    if (checked != SSLAT_OK) return checked;
    json_t *type = json_object_get(root, "latency_type");
    json_t *unit = json_object_get(root, "unit");
    if (json_is_string(type) && unit &&
        (!json_is_string(unit) || !sslat_latency_type_unit_fits(json_string_value(type), json_string_value(unit))))
        return sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: unit does not match latency_type '%.40s' (%s)",
                          json_string_value(type), sslat_latency_type_unit(json_string_value(type))
                                                       ? sslat_latency_type_unit(json_string_value(type)) : "unknown");
    json_t *values = json_object_get(root, "operations_latencies");
    json_t *stats = json_object_get(root, "operations_stats");
    json_t *constant = json_object_get(root, "constant_latency");
    if (!json_is_string(type) || !json_is_array(values) || !json_is_number(constant))
        return sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: needs latency_type, "
                                                  "constant_latency and operations_latencies");
    size_t blocks = json_array_size(values);
    if (blocks > SSLAT_MAX_LAYERS) return sslat_fail(error, SSLAT_ERR_LIMIT, "JSON container: %zu blocks", blocks);
    int32_t *counts = calloc(blocks + 1, sizeof *counts);
    if (!counts) return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    sslat_status status = SSLAT_OK;
    for (size_t b = 0; b < blocks && status == SSLAT_OK; b++) {
        json_t *row = json_array_get(values, b);
        if (!json_is_array(row) || json_array_size(row) > SSLAT_MAX_CANDIDATES)
            status = sslat_fail(error, SSLAT_ERR_PARSE,
                                "JSON container: operations_latencies[%zu] must be an array of up to %d numbers", b, SSLAT_MAX_CANDIDATES);
        counts[b] = (int32_t)json_array_size(row);
    }
    sslat_container *c = NULL;
    if (status == SSLAT_OK)
        status = sslat_container_new(json_string_value(type), counts, (int32_t)blocks, &c, error);
    free(counts);
    if (status != SSLAT_OK) return status;

    sslat_entry e;
    status = read_stats(json_object_get(root, "constant_stats"), json_number_value(constant),
                        "constant_stats", &e, error);
    if (status == SSLAT_OK) status = sslat_container_set_constant_entry(c, &e, error);
    for (int32_t b = 0; b < c->n_blocks && status == SSLAT_OK; b++)
        for (int32_t i = 0; i < c->n_candidates[b] && status == SSLAT_OK; i++) {
            char path[64];
            snprintf(path, sizeof path, "operations_stats[%d][%d]", b, i);
            json_t *v = json_array_get(json_array_get(values, (size_t)b), (size_t)i);
            if (!json_is_number(v)) {
                status = sslat_fail(error, SSLAT_ERR_PARSE,
                                    "JSON container: operations_latencies[%d][%d] must be a number", b, i);
                break;
            }
            json_t *s = stats ? json_array_get(json_array_get(stats, (size_t)b), (size_t)i) : NULL;
            if (stats && !s)
                status = sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: %s is missing", path);
            if (status == SSLAT_OK) status = read_stats(s, json_number_value(v), path, &e, error);
            if (status == SSLAT_OK) status = sslat_container_set_entry(c, b, i, &e, error);
        }

    /* metadata replaces the fresh one, in the file's order */
    json_t *meta = json_object_get(root, "metadata");
    if (status == SSLAT_OK && meta) {
        if (!json_is_object(meta)) {
            status = sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: metadata must be an object");
        } else {
            for (int32_t i = 0; i < c->n_meta; i++) {
                free(c->meta[i].key);
                free(c->meta[i].value);
            }
            c->n_meta = 0;
            const char *key;
            json_t *value;
            json_object_foreach(meta, key, value) {
                if (!json_is_string(value)) {
                    status = sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: metadata.%s must be a string", key);
                    break;
                }
                if (!strcmp(key, "latency_type") && strcmp(json_string_value(value), json_string_value(type))) {
                    status = sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: metadata.latency_type differs from latency_type");
                    break;
                }
                /* bypass the set_metadata guard: latency_type / unit come back as written */
                sslat_meta_pair *grown = realloc(c->meta, (size_t)(c->n_meta + 1) * sizeof *grown);
                char *k = sslat_strdup(key), *v = sslat_strdup(json_string_value(value));
                if (!grown || !k || !v) {
                    if (grown) c->meta = grown;
                    free(k);
                    free(v);
                    status = sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
                    break;
                }
                c->meta = grown;
                c->meta[c->n_meta++] = (sslat_meta_pair){k, v};
            }
            if (status == SSLAT_OK && (!sslat_container_metadata(c, "latency_type") ||
                                       !sslat_latency_type_unit_fits(json_string_value(type), sslat_container_unit(c))))
                status = sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: metadata needs latency_type and the unit of that type");
        }
    }
    /* a value table: its name and unit, the same wherever the export says them */
    if (status == SSLAT_OK && !strcmp(sslat_container_latency_type(c), SSLAT_VALUE_TYPE)) {
        const char *name = sslat_container_metadata(c, "value.name");
        char why[160] = "it has none";
        if (!name || !sslat_value_name_valid(name, why, sizeof why))
            status = sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: a value table needs metadata.value.name (%s)",
                                why);
        else if (json_is_string(unit) && strcmp(json_string_value(unit), sslat_container_unit(c)))
            status = sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: unit differs from metadata.unit");
    }

    json_t *space = json_object_get(root, "space");
    if (status == SSLAT_OK && json_is_object(space)) status = ONLY_KEYS(space, "space", "name", "hash", "input");
    if (status == SSLAT_OK && space) {
        json_t *name = json_object_get(space, "name"), *hash = json_object_get(space, "hash");
        json_t *input = json_object_get(space, "input");
        char *end = NULL;
        uint64_t h = json_is_string(hash) ? strtoull(json_string_value(hash), &end, 16) : 0;
        /* exactly the exporter's form: 16 lowercase hex digits (strtoull also takes "-", " ", "0x") */
        bool hex = json_is_string(hash) && strlen(json_string_value(hash)) == 16 &&
                   strspn(json_string_value(hash), "0123456789abcdef") == 16;
        if (!json_is_string(name) || !hex || !end || *end || !json_is_array(input) || json_array_size(input) != 4) {
            status = sslat_fail(error, SSLAT_ERR_PARSE,
                                "JSON container: space needs name, a 16-digit hex hash and input [N, C, H, W]");
        } else {
            char *copy = sslat_strdup(json_string_value(name));
            if (!copy) status = sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
            else {
                free(c->space_name);
                c->space_name = copy;
                c->space_hash = h;
                for (int i = 0; i < 4; i++) {
                    json_t *d = json_array_get(input, (size_t)i);
                    if (!json_is_integer(d) || json_integer_value(d) < 0 || json_integer_value(d) > SSLAT_MAX_DIMENSION)
                        status = sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: space.input[%d] must be a dimension", i);
                    else c->input[i] = (int32_t)json_integer_value(d);
                }
                if (status == SSLAT_OK && !sslat_input_shape_valid(c->input))
                    status = sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: space.input has a zero dimension");
            }
        }
    }

    json_t *names = json_object_get(root, "blocks");
    if (status == SSLAT_OK && names) {
        if (!json_is_array(names) || json_array_size(names) != (size_t)c->n_blocks) {
            status = sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: blocks must list every block");
        } else {
            char **block_names = calloc((size_t)c->n_blocks + 1, sizeof *block_names);
            char **labels = calloc((size_t)c->offset[c->n_blocks] + 1, sizeof *labels);
            if (!block_names || !labels) status = sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
            for (int32_t b = 0; status == SSLAT_OK && b < c->n_blocks; b++) {
                json_t *block = json_array_get(names, (size_t)b);
                json_t *cands = json_object_get(block, "candidates");
                if (json_is_object(block) && (status = ONLY_KEYS(block, "blocks[]", "name", "candidates")) != SSLAT_OK)
                    break;
                if (!json_is_string(json_object_get(block, "name")) || !json_is_array(cands) ||
                    json_array_size(cands) != (size_t)c->n_candidates[b]) {
                    status = sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: blocks[%d] needs a name and one label per candidate", b);
                    break;
                }
                block_names[b] = (char *)json_string_value(json_object_get(block, "name"));
                for (int32_t i = 0; i < c->n_candidates[b]; i++) {
                    json_t *label = json_array_get(cands, (size_t)i);
                    if (!json_is_string(label)) {
                        status = sslat_fail(error, SSLAT_ERR_PARSE, "JSON container: blocks[%d].candidates[%d] must be a string", b, i);
                        break;
                    }
                    labels[c->offset[b] + i] = (char *)json_string_value(label);
                }
            }
            if (status == SSLAT_OK) status = sslat_container_set_labels(c, block_names, labels, error);
            free(block_names);
            free(labels);
        }
    }
    if (status != SSLAT_OK) {
        sslat_container_free(c);
        return status;
    }
    *out = c;
    return SSLAT_OK;
}

sslat_status sslat_container_import_json(const char *text, size_t length, sslat_container **out,
                                         sslat_error *error)
{
    sslat_error_clear(error);
    if (!out || !text) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    *out = NULL;
    json_error_t jerr;
    json_t *root = json_loadb(text, length, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return sslat_fail(error, SSLAT_ERR_PARSE, "JSON container:%d:%d: JSON syntax error: %s",
                          jerr.line, jerr.column, jerr.text);
    sslat_status status = import_root(root, out, error);
    json_decref(root);
    /* what the binary reader refuses is refused here too: the imported table
     * goes through it once (limits, UTF-8, entries), so an import never writes
     * a file no reader accepts */
    uint8_t *bytes = NULL;
    size_t size = 0;
    sslat_container *check = NULL;
    if (status == SSLAT_OK) status = sslat_container_save_to_bytes(*out, &bytes, &size, error);
    if (status == SSLAT_OK) status = sslat_container_load_from_bytes(bytes, size, &check, error);
    if (status != SSLAT_OK && *out) sslat_error_prefix(error, "JSON container: ");
    sslat_free(bytes);
    sslat_container_free(check);
    if (status != SSLAT_OK) {
        sslat_container_free(*out);
        *out = NULL;
    }
    return status;
}

/* ---- CSV ------------------------------------------------------------------------------ */

sslat_status sslat_container_export_csv(const sslat_container *c, char **text, sslat_error *error)
{
    sslat_error_clear(error);
    if (!c || !text) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    *text = NULL;
    sslat_status whole = sslat_container_require_whole(c, error);
    if (whole != SSLAT_OK) return whole;
    size_t size = 0;
    FILE *out = open_memstream(text, &size);
    if (!out) return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory writing CSV");
    fprintf(out, "block,block_name,candidate,label,value,median,mean,stddev,min,max,samples,noisy\n");
    for (int32_t b = 0; b < c->n_blocks; b++)
        for (int32_t i = 0; i < c->n_candidates[b]; i++) {
            const sslat_entry *e = &c->entries[c->offset[b] + i];
            char title[32];
            fprintf(out, "%d,", b);
            sslat_csv_field(out, sslat_container_block_title(c, b, title, sizeof title));
            fprintf(out, ",%d,", i);
            sslat_csv_field(out, sslat_container_candidate_title(c, b, i, title, sizeof title));
            if (sslat_container_entry_failed(c, b, i)) /* not measured (--keep-going): never a 0 to plot */
                fprintf(out, ",nan,nan,nan,nan,nan,nan,0,0\n");
            else
                fprintf(out, ",%.17g,%.17g,%.17g,%.17g,%.17g,%.17g,%u,%d\n", e->value, e->median, e->mean,
                        e->stddev, e->min, e->max, e->samples, sslat_entry_noisy(e));
        }
    if (fclose(out) != 0 || !*text) {
        free(*text);
        *text = NULL;
        return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory writing CSV");
    }
    return SSLAT_OK;
}
