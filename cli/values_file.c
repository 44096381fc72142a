/* A user's per-candidate values (sslat import --values) from CSV or JSON,
 * checked against the space they belong to: every candidate given exactly
 * once, by index or by name, each value a finite number. */
#include "cli/values_file.h"

#include <ctype.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/file_io.h"
#include "base/limits.h"

/* Where each candidate's value goes: the first entry of each block. */
static size_t *block_offsets(const sslat_space *space)
{
    int32_t blocks = sslat_space_block_count(space);
    size_t *offset = calloc((size_t)blocks + 1, sizeof *offset);
    for (int32_t b = 0; offset && b < blocks; b++) offset[b + 1] = offset[b] + (size_t)sslat_space_candidate_count(space, b);
    return offset;
}

/* A whole number written in digits only, or -1. */
static long digits(const char *text)
{
    if (!*text || strlen(text) > 9) return -1;
    for (const char *p = text; *p; p++)
        if (!isdigit((unsigned char)*p)) return -1;
    return strtol(text, NULL, 10);
}

/* A block by index or name; -1 when the space has none such. */
static int32_t find_block(const sslat_space *space, const char *text)
{
    long index = digits(text);
    int32_t blocks = sslat_space_block_count(space);
    if (index >= 0) return index < blocks ? (int32_t)index : -1;
    for (int32_t b = 0; b < blocks; b++)
        if (!strcmp(sslat_space_block_name(space, b), text)) return b;
    return -1;
}

/* A candidate of block by index or label; -1 when it has none such. */
static int32_t find_candidate(const sslat_space *space, int32_t block, const char *text)
{
    long index = digits(text);
    int32_t count = sslat_space_candidate_count(space, block);
    if (index >= 0) return index < count ? (int32_t)index : -1;
    for (int32_t c = 0; c < count; c++)
        if (!strcmp(sslat_space_candidate_label(space, block, c), text)) return c;
    return -1;
}

typedef struct values_state {
    const sslat_space *space;
    const char *path;
    size_t *offset;
    unsigned char *given; /* per candidate, and one more for the constant (last) */
    double *values;
    double *constant;
    char *error;
    size_t error_size;
} values_state;

/* Stores one value; false (error written) on a second value for the same
 * place or a value that is not a finite number >= 0. */
static bool put(values_state *s, int32_t block, int32_t candidate, double value, const char *where)
{
    size_t total = s->offset[sslat_space_block_count(s->space)];
    size_t at = block < 0 ? total : s->offset[block] + (size_t)candidate;
    if (!isfinite(value) || value < 0) {
        snprintf(s->error, s->error_size, "%s: %s: the value %g is not a finite number >= 0 (values are added up "
                                          "over an architecture's blocks: shift signed terms by a constant per "
                                          "block, which changes no ranking)", s->path, where, value);
        return false;
    }
    if (s->given[at]) {
        snprintf(s->error, s->error_size, "%s: %s: a second value for the same %s", s->path, where,
                 block < 0 ? "constant" : "candidate");
        return false;
    }
    s->given[at] = 1;
    if (block < 0) *s->constant = value;
    else s->values[at] = value;
    return true;
}

/* Every candidate has its value; the constant defaults to 0. */
static bool all_given(values_state *s)
{
    for (int32_t b = 0; b < sslat_space_block_count(s->space); b++)
        for (int32_t c = 0; c < sslat_space_candidate_count(s->space, b); c++)
            if (!s->given[s->offset[b] + (size_t)c]) {
                snprintf(s->error, s->error_size, "%s: block %d (%s) candidate %d (%s) has no value: every "
                                                  "candidate of the space needs one", s->path, (int)b,
                         sslat_space_block_name(s->space, b), (int)c, sslat_space_candidate_label(s->space, b, c));
                return false;
            }
    return true;
}

/* Splits line at commas into at most 3 fields, trimmed; returns the count. */
static int split_fields(char *line, char **fields)
{
    int n = 0;
    char *p = line;
    for (;;) {
        char *comma = strchr(p, ',');
        if (comma) *comma = '\0';
        while (isspace((unsigned char)*p)) p++;
        char *end = p + strlen(p);
        while (end > p && isspace((unsigned char)end[-1])) *--end = '\0';
        if (n < 4) fields[n] = p;
        n++;
        if (!comma) break;
        p = comma + 1;
    }
    return n;
}

static bool read_csv(values_state *s, char *text)
{
    int line_number = 0;
    bool header = false;
    for (char *line = text, *next; line; line = next) { /* every line counted, blank ones too */
        next = strchr(line, '\n');
        if (next) *next++ = '\0';
        line_number++;
        size_t length = strlen(line);
        if (length && line[length - 1] == '\r') line[length - 1] = '\0';
        char *first = line;
        while (isspace((unsigned char)*first)) first++;
        if (!*first || *first == '#') continue;
        char *fields[4] = {0};
        char where[64];
        snprintf(where, sizeof where, "line %d", line_number);
        if (split_fields(line, fields) != 3) {
            snprintf(s->error, s->error_size, "%s: %s: a row is block,candidate,value (three fields)", s->path, where);
            return false;
        }
        if (!header) { /* the first row names the columns */
            if (strcmp(fields[0], "block") || strcmp(fields[1], "candidate") || strcmp(fields[2], "value")) {
                snprintf(s->error, s->error_size, "%s: %s: the first row must be the header block,candidate,value",
                         s->path, where);
                return false;
            }
            header = true;
            continue;
        }
        char *end = NULL;
        errno = 0;
        double value = strtod(fields[2], &end);
        if (!*fields[2] || *end || errno == ERANGE) {
            snprintf(s->error, s->error_size, "%s: %s: value '%.40s' is not a number", s->path, where, fields[2]);
            return false;
        }
        if (!strcmp(fields[0], "constant")) {
            if (*fields[1]) {
                snprintf(s->error, s->error_size, "%s: %s: the constant row has no candidate", s->path, where);
                return false;
            }
            if (!put(s, -1, 0, value, where)) return false;
            continue;
        }
        int32_t block = find_block(s->space, fields[0]);
        if (block < 0) {
            snprintf(s->error, s->error_size, "%s: %s: the space has no block '%.60s' (an index 0..%d or a block "
                                              "name; sslat show lists them)", s->path, where, fields[0],
                     (int)sslat_space_block_count(s->space) - 1);
            return false;
        }
        int32_t candidate = find_candidate(s->space, block, fields[1]);
        if (candidate < 0) {
            snprintf(s->error, s->error_size, "%s: %s: block %d (%s) has no candidate '%.60s' (an index 0..%d or a "
                                              "label)", s->path, where, (int)block,
                     sslat_space_block_name(s->space, block), fields[1],
                     (int)sslat_space_candidate_count(s->space, block) - 1);
            return false;
        }
        if (!put(s, block, candidate, value, where)) return false;
    }
    if (!header) {
        snprintf(s->error, s->error_size, "%s: no rows (the first row is the header block,candidate,value)", s->path);
        return false;
    }
    return all_given(s);
}

/* JSON: {"constant": x, "values": [[...], ...]} (one list per block, in the
 * space's order) or "values": {"block name": {"label": value, ...}, ...}. */
static bool read_json(values_state *s, const char *text, size_t size)
{
    json_error_t json_error;
    json_t *root = json_loadb(text, size, 0, &json_error);
    bool ok = root != NULL;
    if (!root)
        snprintf(s->error, s->error_size, "%s: line %d: %s", s->path, json_error.line, json_error.text);
    json_t *values = root ? json_object_get(root, "values") : NULL, *constant = root ? json_object_get(root, "constant") : NULL;
    const char *key;
    json_t *item;
    if (ok && json_is_object(root)) {
        json_object_foreach(root, key, item) {
            if (strcmp(key, "values") && strcmp(key, "constant")) {
                snprintf(s->error, s->error_size, "%s: unknown key '%.40s' (the keys are constant and values)",
                         s->path, key);
                ok = false;
                break;
            }
        }
    }
    if (ok && (!json_is_object(root) || !(json_is_array(values) || json_is_object(values)))) {
        snprintf(s->error, s->error_size, "%s: a values file is {\"constant\": x, \"values\": [[one per candidate], "
                                          "one list per block]} or \"values\": {block: {label: value}}", s->path);
        ok = false;
    }
    if (ok && constant && !json_is_number(constant)) {
        snprintf(s->error, s->error_size, "%s: constant is a number", s->path);
        ok = false;
    }
    if (ok && constant) ok = put(s, -1, 0, json_number_value(constant), "constant");
    int32_t blocks = sslat_space_block_count(s->space);
    if (ok && json_is_array(values) && json_array_size(values) != (size_t)blocks) {
        snprintf(s->error, s->error_size, "%s: values has %zu lists; the space has %d blocks", s->path,
                 json_array_size(values), (int)blocks);
        ok = false;
    }
    for (int32_t b = 0; ok && json_is_array(values) && b < blocks; b++) {
        json_t *list = json_array_get(values, (size_t)b);
        int32_t count = sslat_space_candidate_count(s->space, b);
        if (!json_is_array(list) || json_array_size(list) != (size_t)count) {
            snprintf(s->error, s->error_size, "%s: values[%d] (block %s) must list %d numbers, one per candidate",
                     s->path, (int)b, sslat_space_block_name(s->space, b), (int)count);
            ok = false;
        }
        for (int32_t c = 0; ok && c < count; c++) {
            json_t *v = json_array_get(list, (size_t)c);
            char where[64];
            snprintf(where, sizeof where, "values[%d][%d]", (int)b, (int)c);
            if (!json_is_number(v)) {
                snprintf(s->error, s->error_size, "%s: %s is not a number", s->path, where);
                ok = false;
            } else ok = put(s, b, c, json_number_value(v), where);
        }
    }
    if (ok && json_is_object(values)) {
        json_object_foreach(values, key, item) {
            int32_t b = find_block(s->space, key);
            if (b < 0 || !json_is_object(item)) {
                snprintf(s->error, s->error_size, "%s: values.%.60s: %s", s->path, key,
                         b < 0 ? "the space has no such block (sslat show lists them)"
                               : "a block's values are {label: value}");
                ok = false;
                break;
            }
            const char *label;
            json_t *v;
            json_object_foreach(item, label, v) {
                int32_t c = find_candidate(s->space, b, label);
                char where[160];
                snprintf(where, sizeof where, "values.%.60s.%.60s", key, label);
                if (c < 0 || !json_is_number(v)) {
                    snprintf(s->error, s->error_size, "%s: %s: %s", s->path, where,
                             c < 0 ? "the block has no such candidate" : "not a number");
                    ok = false;
                    break;
                }
                if (!(ok = put(s, b, c, json_number_value(v), where))) break;
            }
            if (!ok) break;
        }
    }
    json_decref(root);
    return ok && all_given(s);
}

bool cli_read_values(const char *path, const sslat_space *space, double *constant, double *values, char *error,
                     size_t error_size)
{
    size_t size = 0;
    char *text = NULL;
    sslat_error err;
    if (sslat_read_file(path, (size_t)SSLAT_MAX_CONTAINER_BYTES, &text, &size, &err) != SSLAT_OK) {
        snprintf(error, error_size, "%s", err.message);
        return false;
    }
    size_t *offset = block_offsets(space);
    unsigned char *given = offset ? calloc(offset[sslat_space_block_count(space)] + 1, 1) : NULL;
    values_state s = {space, path, offset, given, values, constant, error, error_size};
    *constant = 0;
    bool ok = offset && given;
    if (!ok) snprintf(error, error_size, "out of memory");
    const char *first = text;
    while (ok && isspace((unsigned char)*first)) first++;
    if (ok && strlen(text) != size) {
        snprintf(error, error_size, "%s: a NUL byte: not a text file", path);
        ok = false;
    }
    if (ok) ok = *first == '{' ? read_json(&s, text, size) : read_csv(&s, text);
    free(given);
    free(offset);
    free(text);
    return ok;
}
