/* Search-space loader: JSON file → declarations → expanded sslat_space.
 * Two phases so that nothing is half-loaded: every layer is parsed and
 * checked first, then expanded; any failure frees everything. */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/file_io.h"
#include "base/limits.h"
#include "ir/expand.h"
#include "ir/space.h"

/* What one element of a candidate sequence reads: by default the element
 * before it (the first: the layer's sources); with "from", earlier elements
 * (their index) or the candidate's input (-1). */
typedef struct element_from {
    int32_t n;
    int32_t at[SSLAT_MAX_NODE_INPUTS];
} element_from;

/* One candidate: a sequence of layer specs (usually one). */
typedef struct candidate_decl {
    int32_t n_specs;
    sslat_layer_spec *specs;
    element_from *from; /* per spec */
    char label[96];
} candidate_decl;

/* One entry of "layers": a fixed layer (one candidate) or a choice. */
typedef struct layer_decl {
    bool is_choice;
    int32_t repeat;
    char name[48];
    char path[32];
    int32_t n_candidates;
    candidate_decl *candidates;
    int32_t n_from;                           /* 0: the row before (a chain) */
    int32_t from_row[SSLAT_MAX_NODE_INPUTS];  /* rows it reads; -1 the network input */
} layer_decl;

typedef struct loader {
    const char *source;
    sslat_error *err;
    layer_decl *decls;
    int32_t n_decls;
    int64_t total_candidates; /* after repeats, checked against the limit while parsing */
    bool in_sequence;         /* parsing an element of a candidate sequence: "from" is its own */
} loader;

typedef char json_path[96];

static sslat_status fail_at(loader *L, const char *path, sslat_status status, const char *format,
                            ...) __attribute__((format(printf, 4, 5)));

static sslat_status fail_at(loader *L, const char *path, sslat_status status, const char *format,
                            ...)
{
    char what[400];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    if (path && *path) return sslat_fail(L->err, status, "%s: %s: %s", L->source, path, what);
    return sslat_fail(L->err, status, "%s: %s", L->source, what);
}

static const char *json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "a value";
}

static void join_label(char *label, size_t size, const char *part)
{
    size_t used = strlen(label);
    snprintf(label + used, used < size ? size - used : 0, "%s%s", used ? "+" : "", part);
}

/* ---- Layer objects ({"op": "ir", "k": 5, …}) --------------------------------- */

static sslat_status set_object_option(loader *L, const char *path, sslat_layer_spec *spec,
                                      const char *key, json_t *value)
{
    char why[200];
    bool ok;
    uint32_t bit = 0;
    sslat_spec_option_bit(key, &bit); /* a known key: parse_object_spec checked it */
    if (strcmp(key, "act") == 0) {
        int act = json_is_string(value) ? sslat_act_from_name(json_string_value(value)) : -1;
        if (act < 0)
            return fail_at(L, path, SSLAT_ERR_SPACE,
                           "\"act\" must be one of relu, relu6, hswish, hsigmoid, sigmoid, silu, "
                           "gelu, tanh, gelu_tanh");
        ok = sslat_spec_set_act(spec, (sslat_act_kind)act, why, sizeof why);
    } else if (strcmp(key, "p") == 0 && json_is_string(value)) {
        if (strcmp(json_string_value(value), "same") != 0)
            return fail_at(L, path, SSLAT_ERR_PARSE, "\"p\" must be an integer or \"same\"");
        ok = sslat_spec_set_same_padding(spec, why, sizeof why);
    } else if (bit & SSLAT_FLAG_OPTIONS) {
        if (!json_is_boolean(value))
            return fail_at(L, path, SSLAT_ERR_PARSE, "\"%s\" must be true or false, got %s", key,
                           json_type_name(value));
        ok = sslat_spec_set_int(spec, key, json_is_true(value), why, sizeof why);
    } else if (bit & SSLAT_REAL_OPTIONS) {
        if (!json_is_number(value))
            return fail_at(L, path, SSLAT_ERR_PARSE, "\"%s\" must be a number, got %s", key,
                           json_type_name(value));
        ok = sslat_spec_set_real(spec, key, json_number_value(value), why, sizeof why);
    } else {
        if (!json_is_integer(value))
            return fail_at(L, path, SSLAT_ERR_PARSE, "\"%s\" must be an integer, got %s", key,
                           json_type_name(value));
        ok = sslat_spec_set_int(spec, key, json_integer_value(value), why, sizeof why);
    }
    return ok ? SSLAT_OK : fail_at(L, path, SSLAT_ERR_SPACE, "%s", why);
}

static sslat_status parse_object_spec(loader *L, const char *path, json_t *object,
                                      sslat_layer_spec *spec, char *name, size_t name_size)
{
    json_t *op = json_object_get(object, "op");
    if (!json_is_string(op))
        return fail_at(L, path, SSLAT_ERR_PARSE, "a layer object needs \"op\" (a layer type) or "
                                                 "\"choice\"");
    if (!sslat_spec_parse_type(json_string_value(op), spec))
        return fail_at(L, path, SSLAT_ERR_SPACE, "unknown layer type '%s'",
                       json_string_value(op));
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value) {
        if (strcmp(key, "op") == 0) continue;
        if (strcmp(key, "from") == 0) {
            if (!name && !L->in_sequence)
                return fail_at(L, path, SSLAT_ERR_PARSE, "\"from\" belongs on the layer, its choice or an "
                                                         "element of a candidate sequence");
            continue; /* read by parse_from */
        }
        if (strcmp(key, "name") == 0) {
            if (!name || !json_is_string(value))
                return fail_at(L, path, SSLAT_ERR_PARSE, "\"name\" %s",
                               name ? "must be a string" : "is not allowed inside a candidate");
            snprintf(name, name_size, "%s", json_string_value(value));
            continue;
        }
        /* the token options, but r: objects spell it "repeat" */
        uint32_t bit = 0;
        bool known = strcmp(key, "repeat") == 0 || (sslat_spec_option_bit(key, &bit) && bit != SSLAT_OPT_R);
        if (!known) return fail_at(L, path, SSLAT_ERR_PARSE, "unknown key \"%s\"", key);
        const char *option = strcmp(key, "repeat") == 0 ? "r" : key;
        sslat_status status = set_object_option(L, path, spec, option, value);
        if (status != SSLAT_OK) return status;
    }
    return SSLAT_OK;
}

/* A token or object as a spec. Repeats are for layers and choices, not candidates. */
static sslat_status parse_spec(loader *L, const char *path, json_t *value, bool in_candidate,
                               sslat_layer_spec *spec, char *name, size_t name_size)
{
    if (json_is_string(value)) {
        char why[300];
        if (!sslat_spec_parse_token(json_string_value(value), spec, why, sizeof why))
            return fail_at(L, path, SSLAT_ERR_SPACE, "%s", why);
    } else if (json_is_object(value)) {
        sslat_status status = parse_object_spec(L, path, value, spec, in_candidate ? NULL : name,
                                                name_size);
        if (status != SSLAT_OK) return status;
    } else {
        return fail_at(L, path, SSLAT_ERR_PARSE, "expected a token string or a layer object, got %s",
                       json_type_name(value));
    }
    if (in_candidate && (spec->set & SSLAT_OPT_R))
        return fail_at(L, path, SSLAT_ERR_SPACE,
                       "a candidate cannot repeat; put \"repeat\" on the choice");
    return SSLAT_OK;
}

/* ---- Choices ---------------------------------------------------------------- */

/* A "from" value: one entry or an array of 1..SSLAT_MAX_NODE_INPUTS entries,
 * each read by parse_entry into targets[] (what `index` may read decides the
 * entry parser: rows of the file, or elements of one candidate). */
typedef sslat_status (*from_entry_parser)(loader *L, const char *path, json_t *value, int32_t index, int32_t *target);

static sslat_status parse_sources(loader *L, const char *path, json_t *from, int32_t index, const char *reader,
                                  from_entry_parser parse_entry, int32_t *targets, int32_t *n)
{
    json_path where;
    snprintf(where, sizeof where, "%s.from", path);
    size_t count = json_is_array(from) ? json_array_size(from) : 1;
    if (count < 1 || count > SSLAT_MAX_NODE_INPUTS)
        return fail_at(L, where, SSLAT_ERR_SPACE, "%zu sources; %s reads 1..%d", count, reader, SSLAT_MAX_NODE_INPUTS);
    for (size_t k = 0; k < count; k++) {
        sslat_status status = parse_entry(L, where, json_is_array(from) ? json_array_get(from, k) : from, index,
                                          &targets[k]);
        if (status != SSLAT_OK) return status;
    }
    *n = (int32_t)count;
    return SSLAT_OK;
}

/* One "from" entry of element `index` of a candidate sequence: an element index
 * (negative: counted back, -1 the element before) or "input" (the candidate's input, -1). */
static sslat_status parse_element_entry(loader *L, const char *where, json_t *v, int32_t index, int32_t *target)
{
    if (json_is_string(v) && strcmp(json_string_value(v), "input") == 0) {
        *target = -1;
        return SSLAT_OK;
    }
    if (!json_is_integer(v))
        return fail_at(L, where, SSLAT_ERR_PARSE, "inside a candidate an entry is an element index or \"input\", "
                       "got %s", json_type_name(v));
    json_int_t e = json_integer_value(v), element = e < 0 ? index + e : e;
    if (element >= index || element < -1)
        return fail_at(L, where, SSLAT_ERR_SPACE, "from %lld: element %d reads earlier elements of its candidate "
                       "only", (long long)e, index);
    *target = (int32_t)element;
    return SSLAT_OK;
}

static sslat_status parse_candidate(loader *L, const char *path, json_t *value,
                                    candidate_decl *cand)
{
    memset(cand, 0, sizeof *cand);
    char label[96];
    size_t count = json_is_array(value) ? json_array_size(value) : 1;
    if (count == 0) return fail_at(L, path, SSLAT_ERR_SPACE, "empty sequence");
    if (count > SSLAT_MAX_SEQUENCE)
        return fail_at(L, path, SSLAT_ERR_LIMIT, "sequence of %zu layers (limit %d)", count,
                       SSLAT_MAX_SEQUENCE);
    cand->specs = calloc(count, sizeof *cand->specs);
    cand->from = calloc(count, sizeof *cand->from);
    if (!cand->specs || !cand->from) return fail_at(L, path, SSLAT_ERR_NOMEM, "out of memory");
    if (!json_is_array(value)) {
        cand->n_specs = 1;
        sslat_status status = parse_spec(L, path, value, true, &cand->specs[0], NULL, 0);
        if (status != SSLAT_OK) return status;
        sslat_spec_format(&cand->specs[0], cand->label, sizeof cand->label);
        return SSLAT_OK;
    }
    for (size_t i = 0; i < count; i++) {
        json_path element;
        snprintf(element, sizeof element, "%s[%zu]", path, i);
        json_t *item = json_array_get(value, i);
        if (json_is_array(item))
            return fail_at(L, element, SSLAT_ERR_PARSE, "nested sequences are not allowed");
        L->in_sequence = true;
        sslat_status status = parse_spec(L, element, item, true, &cand->specs[i], NULL, 0);
        L->in_sequence = false;
        json_t *from = json_is_object(item) ? json_object_get(item, "from") : NULL;
        if (status == SSLAT_OK && from) status = parse_sources(L, element, from, (int32_t)i, "an element",
                                                                 parse_element_entry, cand->from[i].at, &cand->from[i].n);
        if (status != SSLAT_OK) return status;
        sslat_spec_format(&cand->specs[i], label, sizeof label);
        join_label(cand->label, sizeof cand->label, label);
    }
    cand->n_specs = (int32_t)count;
    return SSLAT_OK;
}

/* The choice's defaults, held in an "ir" spec because ir accepts c, s, act, se. */
static sslat_status parse_choice_defaults(loader *L, const char *path, json_t *object,
                                          sslat_layer_spec *defaults, layer_decl *decl)
{
    *defaults = sslat_spec_new(SSLAT_LAYER_IR);
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value) {
        if (strcmp(key, "choice") == 0 || strcmp(key, "from") == 0 || strcmp(key, "labels") == 0) continue;
        if (strcmp(key, "name") == 0) {
            if (!json_is_string(value))
                return fail_at(L, path, SSLAT_ERR_PARSE, "\"name\" must be a string");
            snprintf(decl->name, sizeof decl->name, "%s", json_string_value(value));
        } else if (strcmp(key, "repeat") == 0 || strcmp(key, "c") == 0 || strcmp(key, "s") == 0 ||
                   strcmp(key, "act") == 0 || strcmp(key, "se") == 0) {
            const char *option = strcmp(key, "repeat") == 0 ? "r" : key;
            sslat_status status = set_object_option(L, path, defaults, option, value);
            if (status != SSLAT_OK) return status;
        } else {
            return fail_at(L, path, SSLAT_ERR_PARSE,
                           "unknown key \"%s\" in a choice (allowed: choice, c, s, act, se, "
                           "repeat, name, labels, from)",
                           key);
        }
    }
    decl->repeat = defaults->repeat;
    return SSLAT_OK;
}

/* A label is what `sslat arch`, `show` and the report print for a candidate:
 * one word, so that lists of labels and columns stay readable. */
static bool label_character(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           strchr("_.+-=:", c) != NULL;
}

/* "labels": one label per candidate, replacing the ones made from the specs. */
static sslat_status parse_choice_labels(loader *L, const char *path, json_t *labels, layer_decl *decl)
{
    if (!json_is_array(labels) || json_array_size(labels) != (size_t)decl->n_candidates)
        return fail_at(L, path, SSLAT_ERR_PARSE, "\"labels\" must be an array of %d strings, one per candidate",
                       decl->n_candidates);
    for (int32_t c = 0; c < decl->n_candidates; c++) {
        json_t *item = json_array_get(labels, (size_t)c);
        const char *text = json_is_string(item) ? json_string_value(item) : NULL;
        size_t length = text ? strlen(text) : 0;
        if (!text || length == 0 || length > 63 || length != json_string_length(item))
            return fail_at(L, path, SSLAT_ERR_PARSE, "labels[%d] must be a string of 1 to 63 characters", c);
        for (size_t i = 0; i < length; i++)
            if (!label_character(text[i]))
                return fail_at(L, path, SSLAT_ERR_PARSE,
                               "labels[%d] '%.63s': a label is letters, digits and _.+-=: only", c, text);
        for (int32_t other = 0; other < c; other++)
            if (strcmp(decl->candidates[other].label, text) == 0)
                return fail_at(L, path, SSLAT_ERR_SPACE, "labels[%d] '%s' repeats labels[%d]", c, text, other);
        snprintf(decl->candidates[c].label, sizeof decl->candidates[c].label, "%s", text);
    }
    return SSLAT_OK;
}

static sslat_status parse_choice(loader *L, const char *path, json_t *object, layer_decl *decl)
{
    json_t *choices = json_object_get(object, "choice");
    if (!json_is_array(choices))
        return fail_at(L, path, SSLAT_ERR_PARSE, "\"choice\" must be an array of candidates");
    size_t count = json_array_size(choices);
    if (count == 0) return fail_at(L, path, SSLAT_ERR_SPACE, "a choice needs at least one candidate");
    if (count > SSLAT_MAX_CANDIDATES)
        return fail_at(L, path, SSLAT_ERR_LIMIT, "%zu candidates (limit %d)", count,
                       SSLAT_MAX_CANDIDATES);
    sslat_layer_spec defaults;
    sslat_status status = parse_choice_defaults(L, path, object, &defaults, decl);
    if (status != SSLAT_OK) return status;

    decl->is_choice = true;
    decl->candidates = calloc(count, sizeof *decl->candidates);
    if (!decl->candidates) return fail_at(L, path, SSLAT_ERR_NOMEM, "out of memory");
    decl->n_candidates = (int32_t)count;
    for (size_t i = 0; i < count; i++) {
        json_path cand_path;
        snprintf(cand_path, sizeof cand_path, "%s.choice[%zu]", path, i);
        candidate_decl *cand = &decl->candidates[i];
        status = parse_candidate(L, cand_path, json_array_get(choices, i), cand);
        if (status != SSLAT_OK) return status;
        /* defaults fill every element; the stride only the first one */
        sslat_layer_spec rest = defaults;
        rest.set &= ~SSLAT_OPT_S;
        for (int32_t s = 0; s < cand->n_specs; s++)
            sslat_spec_apply_defaults(&cand->specs[s], s == 0 ? &defaults : &rest);
    }
    json_t *labels = json_object_get(object, "labels");
    return labels ? parse_choice_labels(L, path, labels, decl) : SSLAT_OK;
}

/* ---- Layers ----------------------------------------------------------------- */

/* One `from` entry of row `row`: an index as YOLOv5 writes it (negative:
 * relative, -1 the row before; otherwise absolute), a row's "name", or
 * "input". Only earlier rows: the graph stays acyclic by construction. */
static sslat_status parse_from_entry(loader *L, const char *path, json_t *value, int32_t row, int32_t *target)
{
    if (json_is_string(value)) {
        const char *name = json_string_value(value);
        if (!*name) /* unnamed rows have the name "": it must never find one of them */
            return fail_at(L, path, SSLAT_ERR_SPACE, "from \"\": an empty name names no layer");
        if (strcmp(name, "input") == 0) {
            *target = -1;
            return SSLAT_OK;
        }
        for (int32_t r = row - 1; r >= 0; r--)
            if (strcmp(L->decls[r].name, name) == 0) {
                *target = r;
                return SSLAT_OK;
            }
        return fail_at(L, path, SSLAT_ERR_SPACE, "from '%s': no earlier layer has that name", name);
    }
    if (!json_is_integer(value))
        return fail_at(L, path, SSLAT_ERR_PARSE, "from: an entry is a layer index or name, got %s",
                       json_type_name(value));
    json_int_t v = json_integer_value(value);
    if (v >= row)
        return fail_at(L, path, SSLAT_ERR_SPACE, "from %lld %s: a layer reads earlier layers only", (long long)v,
                       v == row ? "is the layer itself" : "points forward");
    if (v < 0 && row + v < -1)
        return fail_at(L, path, SSLAT_ERR_SPACE, "from %lld reaches before the first layer (this is layers[%d])",
                       (long long)v, row);
    *target = (int32_t)(v < 0 ? row + v : v);
    return SSLAT_OK;
}

/* Multi-source layers (concat, detect) come first in their candidate, read
 * as many sources as they can take, and do not repeat. */
static sslat_status check_sources(loader *L, const layer_decl *decl)
{
    int32_t n = decl->n_from > 0 ? decl->n_from : 1;
    for (int32_t c = 0; c < decl->n_candidates; c++) {
        const candidate_decl *cand = &decl->candidates[c];
        for (int32_t s = 1; s < cand->n_specs; s++)
            if (sslat_layer_type_max_sources(cand->specs[s].type) > 1 && !(cand->from && cand->from[s].n > 0))
                return fail_at(L, decl->path, SSLAT_ERR_SPACE, "'%s' reads the layer's sources: it must come first in "
                               "its candidate, or name its own with \"from\"", sslat_layer_type_name(cand->specs[s].type));
        int most = sslat_layer_type_max_sources(cand->specs[0].type);
        if (n > most && most == 1)
            return fail_at(L, decl->path, SSLAT_ERR_SPACE, "'%s' reads one input but \"from\" gives %d (only "
                           "concat and detect read several)", cand->label, n);
        if (n > most)
            return fail_at(L, decl->path, SSLAT_ERR_SPACE, "'%s' reads at most %d sources but \"from\" gives %d",
                           cand->label, most, n);
    }
    if (n > 1 && decl->repeat > 1)
        return fail_at(L, decl->path, SSLAT_ERR_SPACE, "a layer with several sources cannot repeat");
    return SSLAT_OK;
}

/* A row's "name" is what `from` finds it by: unique, and not "input" (which
 * names the network's input). */
static sslat_status check_name(loader *L, const layer_decl *decl, int32_t row)
{
    if (strcmp(decl->name, "") == 0)
        return fail_at(L, decl->path, SSLAT_ERR_SPACE, "name \"\": a name is one or more characters");
    if (strcmp(decl->name, "input") == 0)
        return fail_at(L, decl->path, SSLAT_ERR_SPACE, "name \"input\" is the network's input in \"from\": "
                       "give this layer another name");
    for (int32_t r = 0; r < row; r++)
        if (strcmp(L->decls[r].name, decl->name) == 0)
            return fail_at(L, decl->path, SSLAT_ERR_SPACE, "name '%s' is layers[%d]'s too: \"from\" finds a layer "
                           "by a name only it has", decl->name, r);
    return SSLAT_OK;
}

static sslat_status parse_layer_body(loader *L, const char *path, json_t *value, layer_decl *decl);

static sslat_status parse_layer(loader *L, const char *path, json_t *value, layer_decl *decl)
{
    memset(decl, 0, sizeof *decl);
    snprintf(decl->path, sizeof decl->path, "%s", path);
    sslat_status status = parse_layer_body(L, path, value, decl);
    json_t *from = json_is_object(value) ? json_object_get(value, "from") : NULL;
    if (status == SSLAT_OK && from) status = parse_sources(L, path, from, L->n_decls - 1, "a layer",
                                                                 parse_from_entry, decl->from_row, &decl->n_from);
    if (status == SSLAT_OK) status = check_sources(L, decl);
    json_t *name = json_is_object(value) ? json_object_get(value, "name") : NULL;
    if (status == SSLAT_OK && (decl->name[0] || json_is_string(name))) status = check_name(L, decl, L->n_decls - 1);
    return status;
}

/* A fixed layer of several elements: {"sequence": [...], "name": …, "from": …}
 * (what sslat.torch writes for a run of the constant part, so that a conv and
 * its BN stay in one subgraph and --fuse-bn folds them). */
static sslat_status parse_sequence(loader *L, const char *path, json_t *object, layer_decl *decl)
{
    const char *key;
    json_t *value;
    json_object_foreach(object, key, value) {
        if (strcmp(key, "sequence") != 0 && strcmp(key, "name") != 0 && strcmp(key, "from") != 0)
            return fail_at(L, path, SSLAT_ERR_PARSE, "unknown key \"%s\" in a sequence (allowed: sequence, name, "
                           "from)", key);
    }
    json_t *name = json_object_get(object, "name");
    if (name && !json_is_string(name)) return fail_at(L, path, SSLAT_ERR_PARSE, "\"name\" must be a string");
    if (name) snprintf(decl->name, sizeof decl->name, "%s", json_string_value(name));
    json_t *elements = json_object_get(object, "sequence");
    if (!json_is_array(elements))
        return fail_at(L, path, SSLAT_ERR_PARSE, "\"sequence\" must be an array of layers");
    decl->candidates = calloc(1, sizeof *decl->candidates);
    if (!decl->candidates) return fail_at(L, path, SSLAT_ERR_NOMEM, "out of memory");
    decl->n_candidates = 1;
    decl->repeat = 1;
    json_path where;
    snprintf(where, sizeof where, "%s.sequence", path);
    return parse_candidate(L, where, elements, &decl->candidates[0]);
}

static sslat_status parse_layer_body(loader *L, const char *path, json_t *value, layer_decl *decl)
{
    if (json_is_object(value) && json_object_get(value, "choice"))
        return parse_choice(L, path, value, decl);
    if (json_is_object(value) && json_object_get(value, "sequence"))
        return parse_sequence(L, path, value, decl);
    if (json_is_array(value))
        return fail_at(L, path, SSLAT_ERR_PARSE,
                       "a layer is a token, an object, a choice or {\"sequence\": [...]}; bare arrays "
                       "(sequences) belong inside \"choice\" or \"sequence\"");
    decl->candidates = calloc(1, sizeof *decl->candidates);
    if (!decl->candidates) return fail_at(L, path, SSLAT_ERR_NOMEM, "out of memory");
    decl->n_candidates = 1;
    candidate_decl *cand = &decl->candidates[0];
    cand->specs = calloc(1, sizeof *cand->specs);
    if (!cand->specs) return fail_at(L, path, SSLAT_ERR_NOMEM, "out of memory");
    cand->n_specs = 1;
    sslat_status status =
        parse_spec(L, path, value, false, &cand->specs[0], decl->name, sizeof decl->name);
    if (status != SSLAT_OK) return status;
    decl->repeat = cand->specs[0].repeat;
    cand->specs[0].set &= ~SSLAT_OPT_R;
    cand->specs[0].repeat = 1;
    sslat_spec_format(&cand->specs[0], cand->label, sizeof cand->label);
    return SSLAT_OK;
}

static void free_decls(loader *L)
{
    for (int32_t i = 0; i < L->n_decls; i++) {
        for (int32_t c = 0; c < L->decls[i].n_candidates; c++) {
            free(L->decls[i].candidates[c].specs);
            free(L->decls[i].candidates[c].from);
        }
        free(L->decls[i].candidates);
    }
    free(L->decls);
    L->decls = NULL;
    L->n_decls = 0;
}

/* ---- Top level ---------------------------------------------------------------- */

static sslat_status read_int(loader *L, const char *path, json_t *value, int64_t lo, int64_t hi,
                             int32_t *out)
{
    if (!json_is_integer(value))
        return fail_at(L, path, SSLAT_ERR_PARSE, "must be an integer, got %s",
                       value ? json_type_name(value) : "nothing");
    json_int_t v = json_integer_value(value);
    if (v < lo || v > hi)
        return fail_at(L, path, v < lo ? SSLAT_ERR_SPACE : SSLAT_ERR_LIMIT,
                       "%lld is outside %lld..%lld", (long long)v, (long long)lo, (long long)hi);
    *out = (int32_t)v;
    return SSLAT_OK;
}

static sslat_status parse_input(loader *L, json_t *input, const sslat_space_options *options,
                                sslat_shape *shape)
{
    if (!json_is_object(input))
        return fail_at(L, "input", SSLAT_ERR_PARSE,
                       "must be an object like {\"shape\": [3, 224, 224], \"batch\": 1}");
    const char *key;
    json_t *value;
    json_object_foreach(input, key, value) {
        if (strcmp(key, "shape") != 0 && strcmp(key, "batch") != 0)
            return fail_at(L, "input", SSLAT_ERR_PARSE, "unknown key \"%s\"", key);
    }
    json_t *dims = json_object_get(input, "shape");
    if (!json_is_array(dims) || json_array_size(dims) != 3)
        return fail_at(L, "input.shape", SSLAT_ERR_PARSE,
                       "must be [channels, height, width] (three integers)");
    sslat_status status = read_int(L, "input.shape[0]", json_array_get(dims, 0), 1,
                                   SSLAT_MAX_CHANNELS, &shape->c);
    if (status == SSLAT_OK)
        status = read_int(L, "input.shape[1]", json_array_get(dims, 1), 1, SSLAT_MAX_SPATIAL,
                          &shape->h);
    if (status == SSLAT_OK)
        status = read_int(L, "input.shape[2]", json_array_get(dims, 2), 1, SSLAT_MAX_SPATIAL,
                          &shape->w);
    shape->n = 1;
    json_t *batch = json_object_get(input, "batch");
    if (status == SSLAT_OK && batch)
        status = read_int(L, "input.batch", batch, 1, SSLAT_MAX_BATCH, &shape->n);
    if (status != SSLAT_OK || !options) return status;
    if (options->batch < 0 || options->batch > SSLAT_MAX_BATCH || options->height < 0 ||
        options->height > SSLAT_MAX_SPATIAL || options->width < 0 ||
        options->width > SSLAT_MAX_SPATIAL)
        return fail_at(L, "", SSLAT_ERR_INVALID_ARGUMENT,
                       "batch or resolution override out of range (batch ≤ %d, H and W ≤ %d)",
                       SSLAT_MAX_BATCH, SSLAT_MAX_SPATIAL);
    if (options->batch) shape->n = options->batch;
    if (options->height) shape->h = options->height;
    if (options->width) shape->w = options->width;
    return SSLAT_OK;
}

static sslat_status parse_layers(loader *L, json_t *layers)
{
    if (!json_is_array(layers) || json_array_size(layers) == 0)
        return fail_at(L, "layers", SSLAT_ERR_PARSE, "must be a non-empty array of layers");
    size_t count = json_array_size(layers);
    if (count > SSLAT_MAX_LAYERS)
        return fail_at(L, "layers", SSLAT_ERR_LIMIT, "%zu layers (limit %d)", count,
                       SSLAT_MAX_LAYERS);
    L->decls = calloc(count, sizeof *L->decls);
    if (!L->decls) return fail_at(L, "layers", SSLAT_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < count; i++) {
        json_path path;
        snprintf(path, sizeof path, "layers[%zu]", i);
        L->n_decls = (int32_t)i + 1;
        sslat_status status = parse_layer(L, path, json_array_get(layers, i), &L->decls[i]);
        if (status != SSLAT_OK) return status;
        L->total_candidates += (int64_t)L->decls[i].n_candidates * L->decls[i].repeat;
        if (L->total_candidates > SSLAT_MAX_TOTAL_CANDIDATES)
            return fail_at(L, path, SSLAT_ERR_LIMIT,
                           "the space has more than %d candidates after repeats",
                           SSLAT_MAX_TOTAL_CANDIDATES);
    }
    return SSLAT_OK;
}

/* hsigmoid gates in hswish nets (MobileNetV3, OFA), sigmoid elsewhere (EfficientNet). */
static sslat_act_kind default_se_gate(const loader *L)
{
    for (int32_t i = 0; i < L->n_decls; i++)
        for (int32_t c = 0; c < L->decls[i].n_candidates; c++)
            for (int32_t s = 0; s < L->decls[i].candidates[c].n_specs; s++) {
                const sslat_layer_spec *spec = &L->decls[i].candidates[c].specs[s];
                if ((spec->set & SSLAT_OPT_N) && spec->act == SSLAT_ACT_HSWISH)
                    return SSLAT_ACT_HSIGMOID;
            }
    return SSLAT_ACT_SIGMOID;
}

/* ---- Expansion ------------------------------------------------------------------ */

static const char *shape_text(sslat_shape s, char *buffer, size_t size)
{
    snprintf(buffer, size, "%dx%dx%dx%d", s.n, s.c, s.h, s.w);
    return buffer;
}

static sslat_status expand_candidate(loader *L, const char *path, const candidate_decl *cand,
                                     bool later_copy, bool relabel,
                                     const sslat_expand_context *context, const sslat_shape *inputs,
                                     int n_inputs, sslat_candidate *out)
{
    sslat_graph_init(&out->graph, inputs[0]);
    snprintf(out->label, sizeof out->label, "%s", cand->label);
    int32_t element_out[SSLAT_MAX_SEQUENCE]; /* each element's output node */
    for (int k = 1; k < n_inputs; k++) { /* the other sources, as input nodes */
        char name[16];
        snprintf(name, sizeof name, "from%d", k);
        sslat_status status = sslat_graph_add_input(&out->graph, inputs[k], name, NULL, L->err);
        if (status != SSLAT_OK) return status;
    }
    for (int32_t s = 0; s < cand->n_specs; s++) {
        sslat_layer_spec spec = cand->specs[s];
        if (later_copy && s == 0) { /* timm: the stride applies to the first copy only */
            spec.stride = 1;
            spec.set |= SSLAT_OPT_S;
        }
        if (later_copy && relabel) sslat_spec_format(&spec, out->label, sizeof out->label);
        sslat_status status;
        if (cand->from && cand->from[s].n > 0) { /* wired inside the candidate */
            int32_t sources[SSLAT_MAX_NODE_INPUTS];
            for (int k = 0; k < cand->from[s].n; k++)
                sources[k] = cand->from[s].at[k] < 0 ? SSLAT_GRAPH_INPUT : element_out[cand->from[s].at[k]];
            status = sslat_spec_expand_from(&spec, context, &out->graph, sources, cand->from[s].n, L->err);
        } else if (s > 0) { /* the element before */
            status = sslat_spec_expand_from(&spec, context, &out->graph, &element_out[s - 1], 1, L->err);
        } else {
            status = sslat_spec_expand(&spec, context, &out->graph, L->err);
        }
        element_out[s] = sslat_graph_chain_index(&out->graph);
        if (status != SSLAT_OK) {
            char where[160];
            if (cand->n_specs > 1) snprintf(where, sizeof where, "%s[%d]", path, s);
            else snprintf(where, sizeof where, "%s", path);
            sslat_error_prefix(L->err, "%s: %s: '%s': ", L->source, where, cand->label);
            return status;
        }
    }
    return SSLAT_OK;
}

/* Expand one copy of a row into the next layer of space, reading the
 * layers in sources (-1: the network input); shapes[] holds every layer's
 * output shape and gets this one's. */
static sslat_status expand_decl(loader *L, const layer_decl *decl, int32_t copy,
                                const sslat_expand_context *context, sslat_space *space,
                                const int32_t *sources, int n_sources, sslat_shape *shapes,
                                int64_t *total_nodes)
{
    sslat_layer *layer = &space->layers[space->n_layers];
    layer->block = decl->is_choice ? space->n_blocks : -1;
    layer->n_sources = n_sources;
    sslat_shape inputs[SSLAT_MAX_NODE_INPUTS];
    for (int k = 0; k < n_sources; k++) {
        layer->source[k] = sources[k];
        inputs[k] = sources[k] < 0 ? space->input : shapes[sources[k]];
    }
    layer->candidates = calloc((size_t)decl->n_candidates, sizeof *layer->candidates);
    if (!layer->candidates) return fail_at(L, decl->path, SSLAT_ERR_NOMEM, "out of memory");
    space->n_layers++; /* counted now so that a failure below frees what was built */
    for (int32_t c = 0; c < decl->n_candidates; c++) {
        json_path path;
        if (decl->is_choice) snprintf(path, sizeof path, "%s.choice[%d]", decl->path, c);
        else snprintf(path, sizeof path, "%s", decl->path);
        layer->n_candidates = c + 1;
        sslat_status status = expand_candidate(L, path, &decl->candidates[c], copy > 0,
                                               !decl->is_choice, context,
                                               inputs, n_sources, &layer->candidates[c]);
        if (status != SSLAT_OK) return status;
        *total_nodes += layer->candidates[c].graph.count;
        if (*total_nodes > SSLAT_MAX_TOTAL_NODES)
            return fail_at(L, path, SSLAT_ERR_LIMIT, "the space has more than %d operations",
                           SSLAT_MAX_TOTAL_NODES);
    }
    /* every candidate must give the same output shape */
    sslat_shape first = sslat_graph_output(&layer->candidates[0].graph);
    for (int32_t c = 1; c < decl->n_candidates; c++) {
        sslat_shape other = sslat_graph_output(&layer->candidates[c].graph);
        /* field by field: the padding after `tokens` is not part of a shape */
        if (first.n != other.n || first.c != other.c || first.h != other.h || first.w != other.w ||
            first.tokens != other.tokens) {
            char a[48], b[48];
            return fail_at(L, decl->path, SSLAT_ERR_SPACE,
                           "candidates of block %d give different shapes: choice[0] '%s' gives "
                           "%s, choice[%d] '%s' gives %s",
                           space->n_blocks, layer->candidates[0].label, shape_text(first, a, 48),
                           c, layer->candidates[c].label, shape_text(other, b, 48));
        }
    }
    if (decl->is_choice) {
        if (decl->name[0] && decl->repeat > 1)
            snprintf(layer->name, sizeof layer->name, "%s.%d", decl->name, copy);
        else if (decl->name[0])
            snprintf(layer->name, sizeof layer->name, "%s", decl->name);
        else
            snprintf(layer->name, sizeof layer->name, "blk%02d", space->n_blocks);
        space->block_layer[space->n_blocks++] = space->n_layers - 1;
    } else {
        snprintf(layer->name, sizeof layer->name, "%s",
                 decl->name[0] ? decl->name : layer->candidates[0].label);
    }
    shapes[space->n_layers - 1] = first;
    return SSLAT_OK;
}

static sslat_status expand_all(loader *L, const sslat_expand_context *context, sslat_space *space)
{
    int64_t total_layers = 0;
    for (int32_t i = 0; i < L->n_decls; i++) total_layers += L->decls[i].repeat;
    if (total_layers > SSLAT_MAX_LAYERS)
        return fail_at(L, "layers", SSLAT_ERR_LIMIT, "%lld layers after repeats (limit %d)",
                       (long long)total_layers, SSLAT_MAX_LAYERS);
    space->layers = calloc((size_t)total_layers, sizeof *space->layers);
    space->block_layer = calloc((size_t)total_layers, sizeof *space->block_layer);
    if (!space->layers || !space->block_layer)
        return fail_at(L, "layers", SSLAT_ERR_NOMEM, "out of memory");
    sslat_shape *shapes = calloc((size_t)total_layers + 1, sizeof *shapes);     /* each layer's output */
    int32_t *row_output = calloc((size_t)L->n_decls + 1, sizeof *row_output); /* each row's last layer */
    if (!shapes || !row_output) {
        free(shapes), free(row_output);
        return fail_at(L, "layers", SSLAT_ERR_NOMEM, "out of memory");
    }
    int64_t total_nodes = 0;
    sslat_status status = SSLAT_OK;
    for (int32_t i = 0; status == SSLAT_OK && i < L->n_decls; i++) {
        const layer_decl *decl = &L->decls[i];
        for (int32_t copy = 0; status == SSLAT_OK && copy < decl->repeat; copy++) {
            int32_t sources[SSLAT_MAX_NODE_INPUTS] = {space->n_layers - 1};
            int n_sources = 1;
            if (copy == 0 && decl->n_from > 0) { /* later copies chain from the copy before */
                n_sources = decl->n_from;
                for (int k = 0; k < n_sources; k++)
                    sources[k] = decl->from_row[k] < 0 ? -1 : row_output[decl->from_row[k]];
            }
            status = expand_decl(L, decl, copy, context, space, sources, n_sources, shapes, &total_nodes);
        }
        row_output[i] = space->n_layers - 1;
    }
    free(shapes);
    free(row_output);
    /* a repeated block's generated name ("s.1") may be another row's own: a
     * table would show two blocks by one name */
    for (int32_t b = 0; status == SSLAT_OK && b < space->n_blocks; b++)
        for (int32_t other = 0; status == SSLAT_OK && other < b; other++)
            if (!strcmp(sslat_space_block_layer(space, b)->name, sslat_space_block_layer(space, other)->name))
                status = fail_at(L, "layers", SSLAT_ERR_SPACE, "blocks %d and %d are both named '%s' (a repeated "
                                 "block's copies are named NAME.1, NAME.2, …)", other, b,
                                 sslat_space_block_layer(space, b)->name);
    return status;
}

static sslat_status parse_arch(loader *L, json_t *arch, sslat_space *space)
{
    if (!json_is_array(arch))
        return fail_at(L, "arch", SSLAT_ERR_PARSE, "must be an array of candidate indices");
    if ((int64_t)json_array_size(arch) != space->n_blocks)
        return fail_at(L, "arch", SSLAT_ERR_SPACE, "has %zu entries but the space has %d NAS blocks",
                       json_array_size(arch), space->n_blocks);
    space->arch = calloc((size_t)space->n_blocks + 1, sizeof *space->arch);
    if (!space->arch) return fail_at(L, "arch", SSLAT_ERR_NOMEM, "out of memory");
    for (int32_t b = 0; b < space->n_blocks; b++) {
        json_path path;
        snprintf(path, sizeof path, "arch[%d]", b);
        int32_t count = sslat_space_block_layer(space, b)->n_candidates;
        json_t *v = json_array_get(arch, (size_t)b);
        if (!json_is_integer(v))
            return fail_at(L, path, SSLAT_ERR_PARSE, "must be an integer, got %s", json_type_name(v));
        if (json_integer_value(v) < 0 || json_integer_value(v) >= count)
            return fail_at(L, path, SSLAT_ERR_SPACE,
                           "candidate %lld is out of range: block '%s' has %d candidates (0..%d)",
                           (long long)json_integer_value(v), sslat_space_block_layer(space, b)->name,
                           count, count - 1);
        space->arch[b] = (int32_t)json_integer_value(v);
    }
    return SSLAT_OK;
}

static sslat_status check_top_level(loader *L, json_t *root)
{
    if (!json_is_object(root))
        return fail_at(L, "", SSLAT_ERR_PARSE, "the top level must be an object, got %s",
                       json_type_name(root));
    static const char *const KEYS[] = {"sslat", "name", "description", "input", "layers", "arch",
                                       "se_gate", "se_act", "se_base", "se_divisor"};
    const char *key;
    json_t *value;
    json_object_foreach(root, key, value) {
        bool known = false;
        for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++) known |= !strcmp(KEYS[i], key);
        if (!known) return fail_at(L, "", SSLAT_ERR_PARSE, "unknown top-level key \"%s\"", key);
    }
    json_t *version = json_object_get(root, "sslat");
    if (!json_is_integer(version))
        return fail_at(L, "sslat", SSLAT_ERR_PARSE,
                       "missing or not an integer: a search-space file starts with \"sslat\": 1");
    if (json_integer_value(version) != 1)
        return fail_at(L, "sslat", SSLAT_ERR_PARSE, "format version %lld; this build reads 1",
                       (long long)json_integer_value(version));
    json_t *name = json_object_get(root, "name");
    if (name && !json_is_string(name))
        return fail_at(L, "name", SSLAT_ERR_PARSE, "must be a string");
    json_t *gate = json_object_get(root, "se_gate");
    if (gate && !(json_is_string(gate) && (!strcmp(json_string_value(gate), "hsigmoid") ||
                                           !strcmp(json_string_value(gate), "sigmoid"))))
        return fail_at(L, "se_gate", SSLAT_ERR_PARSE, "must be \"hsigmoid\" or \"sigmoid\"");
    json_t *se_act = json_object_get(root, "se_act");
    if (se_act && !(json_is_string(se_act) && sslat_act_from_name(json_string_value(se_act)) >= 0))
        return fail_at(L, "se_act", SSLAT_ERR_PARSE,
                       "must be an activation: relu, relu6, hswish, hsigmoid, sigmoid, silu, gelu, tanh, gelu_tanh");
    json_t *base = json_object_get(root, "se_base");
    if (base && !(json_is_string(base) && (!strcmp(json_string_value(base), "expanded") ||
                                           !strcmp(json_string_value(base), "input"))))
        return fail_at(L, "se_base", SSLAT_ERR_PARSE, "must be \"expanded\" or \"input\"");
    json_t *divisor = json_object_get(root, "se_divisor");
    if (divisor && !(json_is_integer(divisor) && json_integer_value(divisor) >= 1 &&
                     json_integer_value(divisor) <= 64))
        return fail_at(L, "se_divisor", SSLAT_ERR_PARSE, "must be an integer in 1..64");
    return SSLAT_OK;
}

static void default_name(const char *source, char *name, size_t size)
{
    const char *base = strrchr(source, '/');
    base = base ? base + 1 : source;
    snprintf(name, size, "%s", base);
    char *dot = strrchr(name, '.');
    if (dot && dot != name) *dot = '\0';
}

static sslat_status build_space(loader *L, json_t *root, const sslat_space_options *options,
                                sslat_space *space)
{
    sslat_status status = check_top_level(L, root);
    if (status != SSLAT_OK) return status;
    json_t *name = json_object_get(root, "name");
    if (name) snprintf(space->name, sizeof space->name, "%s", json_string_value(name));
    else default_name(L->source, space->name, sizeof space->name);

    status = parse_input(L, json_object_get(root, "input"), options, &space->input);
    if (status == SSLAT_OK && !sslat_shape_fits(space->input))
        status = fail_at(L, "input", SSLAT_ERR_LIMIT, "the input has more than 2^40 elements");
    if (status == SSLAT_OK) status = parse_layers(L, json_object_get(root, "layers"));
    if (status != SSLAT_OK) return status;

    json_t *gate = json_object_get(root, "se_gate");
    json_t *se_act = json_object_get(root, "se_act"), *base = json_object_get(root, "se_base");
    json_t *divisor = json_object_get(root, "se_divisor");
    sslat_expand_context context = {default_se_gate(L), SSLAT_ACT_RELU, false, 8};
    if (gate) context.se_gate = strcmp(json_string_value(gate), "hsigmoid") == 0
                                    ? SSLAT_ACT_HSIGMOID
                                    : SSLAT_ACT_SIGMOID;
    if (se_act) context.se_act = (sslat_act_kind)sslat_act_from_name(json_string_value(se_act));
    if (base) context.se_from_input = strcmp(json_string_value(base), "input") == 0;
    if (divisor) context.se_divisor = (int32_t)json_integer_value(divisor);
    space->se_gate = context.se_gate;
    status = expand_all(L, &context, space);
    if (status != SSLAT_OK) return status;
    json_t *arch = json_object_get(root, "arch");
    if (arch) status = parse_arch(L, arch, space);
    if (status == SSLAT_OK) sslat_space_compute_hash(space);
    return status;
}

sslat_status sslat_space_load_string(const char *text, size_t length, const char *source_name,
                                     const sslat_space_options *options, sslat_space **out,
                                     sslat_error *error)
{
    sslat_error_clear(error);
    if (!out) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "out must not be NULL");
    *out = NULL;
    if (!text) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "text must not be NULL");
    loader L = {.source = source_name ? source_name : "<string>", .err = error};
    if (length > (size_t)SSLAT_MAX_FILE_BYTES)
        return fail_at(&L, "", SSLAT_ERR_LIMIT, "%zu bytes (limit %ld)", length,
                       SSLAT_MAX_FILE_BYTES);

    json_error_t jerr;
    json_t *root = json_loadb(text, length, JSON_REJECT_DUPLICATES, &jerr);
    if (!root)
        return sslat_fail(error, SSLAT_ERR_PARSE, "%s:%d:%d: JSON syntax error: %s", L.source,
                          jerr.line, jerr.column, jerr.text);
    sslat_space *space = calloc(1, sizeof *space);
    sslat_status status = space ? build_space(&L, root, options, space)
                                : fail_at(&L, "", SSLAT_ERR_NOMEM, "out of memory");
    json_decref(root);
    free_decls(&L);
    if (status != SSLAT_OK) {
        sslat_space_release(space);
        return status;
    }
    *out = space;
    return SSLAT_OK;
}

sslat_status sslat_space_load_file(const char *path, const sslat_space_options *options,
                                   sslat_space **out, sslat_error *error)
{
    sslat_error_clear(error);
    if (!out || !path)
        return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "path and out must not be NULL");
    *out = NULL;
    char *text = NULL;
    size_t length = 0;
    sslat_status status = sslat_read_file(path, (size_t)SSLAT_MAX_FILE_BYTES, &text, &length, error);
    if (status == SSLAT_OK) status = sslat_space_load_string(text, length, path, options, out, error);
    free(text);
    return status;
}

sslat_status sslat_space_load_default(const sslat_space_options *options, sslat_space **out,
                                      sslat_error *error)
{
    const char *text = sslat_default_space_json();
    return sslat_space_load_string(text, strlen(text), "<built-in default space>", options, out,
                                   error);
}
