#include "ir/spec.h"

#include <assert.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/limits.h"

static const char *const TYPE_NAMES[] = {
    "cn",   "ds",   "ir",  "er",      "basic",   "bottleneck", "conv", "skip",
    "gap",  "maxpool", "avgpool", "flatten", "fc", "bn",         "act",  "shuffle",
    "sv2", "upsample", "focus", "c3", "convblock", "spp", "sppf", "concat", "detect", "add", "mul", "slice", "s2d",
    "patch", "tokens", "cls", "pos", "ln", "attn", "vit", "tokpool", "sdpa", "adapool", "leaky",
    "image", "scale", "cnx",
};
static_assert(sizeof(TYPE_NAMES) / sizeof(TYPE_NAMES[0]) == SSLAT_LAYER_TYPE_COUNT,
              "TYPE_NAMES must name every sslat_layer_type");

enum { CONV_OPTIONS = SSLAT_OPT_K | SSLAT_OPT_S | SSLAT_OPT_C | SSLAT_OPT_P | SSLAT_OPT_D };

static const uint32_t TYPE_OPTIONS[] = {
    [SSLAT_LAYER_CN] = CONV_OPTIONS | SSLAT_OPT_G | SSLAT_OPT_N,
    [SSLAT_LAYER_DS] = CONV_OPTIONS | SSLAT_OPT_SE | SSLAT_OPT_N | SSLAT_OPT_NOSKIP,
    [SSLAT_LAYER_IR] = CONV_OPTIONS | SSLAT_OPT_E | SSLAT_OPT_SE | SSLAT_OPT_G | SSLAT_OPT_N |
                       SSLAT_OPT_NOSKIP,
    [SSLAT_LAYER_ER] = CONV_OPTIONS | SSLAT_OPT_E | SSLAT_OPT_SE | SSLAT_OPT_N | SSLAT_OPT_NOSKIP,
    [SSLAT_LAYER_BASIC] = SSLAT_OPT_K | SSLAT_OPT_S | SSLAT_OPT_C | SSLAT_OPT_N,
    [SSLAT_LAYER_BOTTLENECK] =
        SSLAT_OPT_K | SSLAT_OPT_S | SSLAT_OPT_C | SSLAT_OPT_E | SSLAT_OPT_G | SSLAT_OPT_N,
    [SSLAT_LAYER_CONV] = CONV_OPTIONS | SSLAT_OPT_G | SSLAT_OPT_BIAS,
    /* skip accepts s and c only as checks: they must leave the shape unchanged */
    [SSLAT_LAYER_SKIP] = SSLAT_OPT_S | SSLAT_OPT_C,
    [SSLAT_LAYER_GAP] = SSLAT_OPT_FN | SSLAT_OPT_MEAN,
    [SSLAT_LAYER_MAXPOOL] = SSLAT_OPT_K | SSLAT_OPT_S | SSLAT_OPT_P | SSLAT_OPT_CEIL,
    [SSLAT_LAYER_AVGPOOL] = SSLAT_OPT_K | SSLAT_OPT_S | SSLAT_OPT_P,
    [SSLAT_LAYER_FLATTEN] = 0,
    [SSLAT_LAYER_FC] = SSLAT_OPT_C | SSLAT_OPT_FN | SSLAT_OPT_NOBIAS, /* fn: F.linear inside another module */
    [SSLAT_LAYER_BN] = 0,
    [SSLAT_LAYER_ACT] = SSLAT_OPT_N,
    [SSLAT_LAYER_SHUFFLE] = SSLAT_OPT_G,
    [SSLAT_LAYER_SV2] = SSLAT_OPT_K | SSLAT_OPT_S | SSLAT_OPT_C | SSLAT_OPT_N,
    [SSLAT_LAYER_UPSAMPLE] = SSLAT_OPT_S, /* s: the scale factor */
    [SSLAT_LAYER_FOCUS] = CONV_OPTIONS | SSLAT_OPT_N,
    [SSLAT_LAYER_C3] = SSLAT_OPT_K | SSLAT_OPT_C | SSLAT_OPT_E | SSLAT_OPT_B | SSLAT_OPT_N | SSLAT_OPT_NOSKIP,
    [SSLAT_LAYER_CONVBLOCK] = SSLAT_OPT_K | SSLAT_OPT_C | SSLAT_OPT_E | SSLAT_OPT_B | SSLAT_OPT_N | SSLAT_OPT_NOSKIP,
    [SSLAT_LAYER_SPP] = SSLAT_OPT_C | SSLAT_OPT_N,
    [SSLAT_LAYER_SPPF] = SSLAT_OPT_K | SSLAT_OPT_C | SSLAT_OPT_N,
    [SSLAT_LAYER_CONCAT] = 0,
    [SSLAT_LAYER_DETECT] = SSLAT_OPT_C | SSLAT_OPT_A, /* c: classes (default 80) */
    [SSLAT_LAYER_ADD] = 0,
    [SSLAT_LAYER_MUL] = 0,
    [SSLAT_LAYER_SLICE] = SSLAT_OPT_C | SSLAT_OPT_O,
    [SSLAT_LAYER_S2D] = 0,
    [SSLAT_LAYER_PATCH] = SSLAT_OPT_K | SSLAT_OPT_C, /* k: the patch size (and the stride) */
    [SSLAT_LAYER_TOKENS] = 0,
    [SSLAT_LAYER_CLS] = 0,
    [SSLAT_LAYER_POS] = 0,
    [SSLAT_LAYER_LN] = SSLAT_OPT_EPS,
    [SSLAT_LAYER_ATTN] = SSLAT_OPT_H | SSLAT_OPT_HD | SSLAT_OPT_EXPLICIT | SSLAT_OPT_POSBIAS,
    [SSLAT_LAYER_VIT] = SSLAT_OPT_H | SSLAT_OPT_HD | SSLAT_OPT_E | SSLAT_OPT_N | SSLAT_OPT_EXPLICIT | SSLAT_OPT_EPS |
                        SSLAT_OPT_POSBIAS,
    [SSLAT_LAYER_TOKPOOL] = SSLAT_OPT_MEAN,
    [SSLAT_LAYER_SDPA] = SSLAT_OPT_H | SSLAT_OPT_HD | SSLAT_OPT_EXPLICIT | SSLAT_OPT_POSBIAS,
    [SSLAT_LAYER_ADAPOOL] = SSLAT_OPT_K, /* k: the output size (k × k) */
    [SSLAT_LAYER_LEAKY] = SSLAT_OPT_SLOPE,
    [SSLAT_LAYER_IMAGE] = SSLAT_OPT_W,
    [SSLAT_LAYER_SCALE] = SSLAT_OPT_METHOD,
    [SSLAT_LAYER_CNX] = SSLAT_OPT_K | SSLAT_OPT_E | SSLAT_OPT_N | SSLAT_OPT_CONVMLP | SSLAT_OPT_EPS,
};
static_assert(sizeof(TYPE_OPTIONS) / sizeof(TYPE_OPTIONS[0]) == SSLAT_LAYER_TYPE_COUNT,
              "TYPE_OPTIONS must cover every sslat_layer_type");

/* Activation codes of the nACT option (timm's), indexed by sslat_act_kind. */
static const char *const ACT_CODES[] = {"re", "r6", "hs", "hsg", "sg", "sw", "ge", "th", "gt"};
static_assert(sizeof(ACT_CODES) / sizeof(ACT_CODES[0]) == SSLAT_ACT_COUNT,
              "ACT_CODES must cover every sslat_act_kind");

const char *sslat_layer_type_name(sslat_layer_type type)
{
    SSLAT_ASSERT(type >= 0 && type < SSLAT_LAYER_TYPE_COUNT);
    return TYPE_NAMES[type];
}

uint32_t sslat_layer_type_options(sslat_layer_type type)
{
    SSLAT_ASSERT(type >= 0 && type < SSLAT_LAYER_TYPE_COUNT);
    /* every layer may repeat but those that read several sources */
    return TYPE_OPTIONS[type] | (sslat_layer_type_max_sources(type) > 1 ? 0 : SSLAT_OPT_R);
}

int sslat_layer_type_max_sources(sslat_layer_type type)
{
    if (type == SSLAT_LAYER_ADD || type == SSLAT_LAYER_MUL) return 2;
    if (type == SSLAT_LAYER_DETECT) return 4; /* YOLO's heads read 3 scales; 4 is what is tested */
    return type == SSLAT_LAYER_CONCAT ? SSLAT_MAX_NODE_INPUTS : 1;
}

int sslat_act_from_code(const char *code)
{
    for (int i = 0; i < SSLAT_ACT_COUNT; i++)
        if (strcmp(ACT_CODES[i], code) == 0) return i;
    return -1;
}

sslat_layer_spec sslat_spec_new(sslat_layer_type type)
{
    sslat_layer_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.type = type;
    spec.repeat = 1;
    return spec;
}

static bool all_digits(const char *s)
{
    if (!*s) return false;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return false;
    return true;
}

bool sslat_spec_parse_type(const char *word, sslat_layer_spec *spec)
{
    if (strncmp(word, "fc", 2) == 0 && all_digits(word + 2) && strlen(word + 2) <= 9) {
        *spec = sslat_spec_new(SSLAT_LAYER_FC);
        spec->channels = atoi(word + 2);
        spec->set |= SSLAT_OPT_C;
        return true;
    }
    int act = sslat_act_from_name(word);
    if (act >= 0) {
        *spec = sslat_spec_new(SSLAT_LAYER_ACT);
        spec->act = (sslat_act_kind)act;
        spec->set |= SSLAT_OPT_N;
        return true;
    }
    for (int t = 0; t < SSLAT_LAYER_TYPE_COUNT; t++) {
        if (strcmp(TYPE_NAMES[t], word) == 0) {
            *spec = sslat_spec_new((sslat_layer_type)t);
            return true;
        }
    }
    return false;
}

bool sslat_spec_option_bit(const char *key, uint32_t *bit)
{
    static const struct { const char *key; uint32_t bit; } KEYS[] = {
        {"r", SSLAT_OPT_R}, {"k", SSLAT_OPT_K},   {"s", SSLAT_OPT_S}, {"c", SSLAT_OPT_C},
        {"e", SSLAT_OPT_E}, {"se", SSLAT_OPT_SE}, {"g", SSLAT_OPT_G}, {"p", SSLAT_OPT_P},
        {"d", SSLAT_OPT_D}, {"act", SSLAT_OPT_N}, {"noskip", SSLAT_OPT_NOSKIP},
        {"bias", SSLAT_OPT_BIAS}, {"fn", SSLAT_OPT_FN}, {"mean", SSLAT_OPT_MEAN}, {"b", SSLAT_OPT_B},
        {"a", SSLAT_OPT_A}, {"o", SSLAT_OPT_O}, {"h", SSLAT_OPT_H}, {"hd", SSLAT_OPT_HD},
        {"explicit", SSLAT_OPT_EXPLICIT}, {"ceil", SSLAT_OPT_CEIL}, {"slope", SSLAT_OPT_SLOPE},
        {"w", SSLAT_OPT_W}, {"method", SSLAT_OPT_METHOD}, {"convmlp", SSLAT_OPT_CONVMLP}, {"nobias", SSLAT_OPT_NOBIAS},
        {"eps", SSLAT_OPT_EPS}, {"posbias", SSLAT_OPT_POSBIAS},
    };
    for (size_t i = 0; i < sizeof KEYS / sizeof KEYS[0]; i++) {
        if (strcmp(KEYS[i].key, key) == 0) {
            *bit = KEYS[i].bit;
            return true;
        }
    }
    return false;
}

/* Common checks before setting an option: known, accepted by the type, not twice. */
static bool may_set(sslat_layer_spec *spec, const char *key, uint32_t *bit, char *why,
                    size_t why_size)
{
    if (!sslat_spec_option_bit(key, bit)) {
        snprintf(why, why_size, "unknown option '%s'", key);
        return false;
    }
    if (!(sslat_layer_type_options(spec->type) & *bit)) {
        snprintf(why, why_size, "option '%s' does not apply to '%s'", key,
                 sslat_layer_type_name(spec->type));
        return false;
    }
    if (spec->set & *bit) {
        snprintf(why, why_size, "option '%s' is given twice", key);
        return false;
    }
    return true;
}

bool sslat_spec_set_int(sslat_layer_spec *spec, const char *key, int64_t value, char *why,
                        size_t why_size)
{
    uint32_t bit;
    if (!may_set(spec, key, &bit, why, why_size)) return false;
    struct { uint32_t bit; int32_t *field; int64_t lo, hi; } fields[] = {
        {SSLAT_OPT_R, &spec->repeat, 1, SSLAT_MAX_REPEAT},
        {SSLAT_OPT_K, &spec->kernel, 1, SSLAT_MAX_KERNEL},
        {SSLAT_OPT_S, &spec->stride, 1, SSLAT_MAX_STRIDE},
        {SSLAT_OPT_C, &spec->channels, 1, SSLAT_MAX_CHANNELS},
        {SSLAT_OPT_G, &spec->groups, 1, SSLAT_MAX_CHANNELS},
        {SSLAT_OPT_P, &spec->padding, 0, SSLAT_MAX_KERNEL},
        {SSLAT_OPT_D, &spec->dilation, 1, SSLAT_MAX_KERNEL},
        {SSLAT_OPT_B, &spec->blocks, 1, 64},
        {SSLAT_OPT_A, &spec->anchors, 1, 64},
        {SSLAT_OPT_O, &spec->offset, 0, SSLAT_MAX_CHANNELS},
        {SSLAT_OPT_H, &spec->heads, 1, 4096},
        {SSLAT_OPT_HD, &spec->head_dim, 1, 65536},
        {SSLAT_OPT_W, &spec->width, 1, SSLAT_MAX_SPATIAL},
    };
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
        if (fields[i].bit != bit) continue;
        if (value < fields[i].lo || value > fields[i].hi) {
            snprintf(why, why_size, "option '%s' is %lld, outside %lld..%lld", key,
                     (long long)value, (long long)fields[i].lo, (long long)fields[i].hi);
            return false;
        }
        *fields[i].field = (int32_t)value;
        spec->set |= bit;
        return true;
    }
    if (bit & SSLAT_REAL_OPTIONS) return sslat_spec_set_real(spec, key, (double)value, why, why_size);
    if (bit & SSLAT_FLAG_OPTIONS) {
        if (value != 0 && value != 1) {
            snprintf(why, why_size, "option '%s' must be true or false", key);
            return false;
        }
        if (value && (spec->set & (SSLAT_OPT_FN | SSLAT_OPT_MEAN) & ~bit & (SSLAT_OPT_FN | SSLAT_OPT_MEAN)) &&
            (bit == SSLAT_OPT_FN || bit == SSLAT_OPT_MEAN)) {
            snprintf(why, why_size, "a global pool is written one way: 'fn' or 'mean', not both");
            return false;
        }
        if (value) spec->set |= bit;
        return true;
    }
    snprintf(why, why_size, "option '%s' does not take a number", key);
    return false;
}

bool sslat_spec_set_real(sslat_layer_spec *spec, const char *key, double value, char *why,
                         size_t why_size)
{
    uint32_t bit;
    if (!may_set(spec, key, &bit, why, why_size)) return false;
    if (bit == SSLAT_OPT_E) {
        if (!(value > 0.0 && value <= 64.0)) {
            snprintf(why, why_size, "expansion %g is outside (0, 64]", value);
            return false;
        }
        spec->expansion = value;
    } else if (bit == SSLAT_OPT_SE) {
        if (!(value >= 0.0 && value <= 1.0)) {
            snprintf(why, why_size, "squeeze-excite ratio %g is outside [0, 1]", value);
            return false;
        }
        spec->se_ratio = value;
    } else if (bit == SSLAT_OPT_SLOPE) {
        if (!(value >= -1e6 && value <= 1e6)) {
            snprintf(why, why_size, "slope %g is outside -1e6..1e6 (or not a number)", value);
            return false;
        }
        spec->slope = value;
    } else if (bit == SSLAT_OPT_EPS) {
        if (!(value > 0.0 && value < 1.0)) {
            snprintf(why, why_size, "LayerNorm epsilon %g is outside (0, 1) (or not a number)", value);
            return false;
        }
        spec->eps = value;
    } else {
        snprintf(why, why_size, "option '%s' must be a whole number", key);
        return false;
    }
    spec->set |= bit;
    return true;
}

bool sslat_spec_set_act(sslat_layer_spec *spec, sslat_act_kind act, char *why, size_t why_size)
{
    uint32_t bit;
    if (!may_set(spec, "act", &bit, why, why_size)) return false;
    spec->act = act;
    spec->set |= bit;
    return true;
}

bool sslat_spec_set_same_padding(sslat_layer_spec *spec, char *why, size_t why_size)
{
    uint32_t bit;
    if (!may_set(spec, "p", &bit, why, why_size)) return false;
    if (spec->type == SSLAT_LAYER_MAXPOOL || spec->type == SSLAT_LAYER_AVGPOOL) {
        snprintf(why, why_size, "'same' padding applies to convolutions, not to '%s'",
                 sslat_layer_type_name(spec->type));
        return false;
    }
    spec->padding = SSLAT_PADDING_SAME;
    spec->set |= bit;
    return true;
}

/* An option word of a token: "k5", "se0.25", "nhs", "noskip", "psame". */
static bool parse_option(const char *word, sslat_layer_spec *spec, char *why, size_t why_size)
{
    if (strcmp(word, "psame") == 0) return sslat_spec_set_same_padding(spec, why, why_size);
    uint32_t bit;
    if (sslat_spec_option_bit(word, &bit) && (bit & SSLAT_FLAG_OPTIONS)) /* a flag's bare word */
        return sslat_spec_set_int(spec, word, 1, why, why_size);
    if (word[0] == 'n' && word[1]) {
        int act = sslat_act_from_code(word + 1);
        if (act < 0) {
            snprintf(why, why_size, "unknown activation code '%s' (re, r6, hs, hsg, sg, sw, ge, th, gt)",
                     word + 1);
            return false;
        }
        return sslat_spec_set_act(spec, (sslat_act_kind)act, why, why_size);
    }
    char key[8];
    size_t n = 0;
    while (isalpha((unsigned char)word[n]) && n < sizeof key - 1) {
        key[n] = word[n];
        n++;
    }
    key[n] = '\0';
    const char *value = word + n;
    if (n == 0 || !sslat_spec_option_bit(key, &bit) || bit == SSLAT_OPT_N || (bit & SSLAT_FLAG_OPTIONS)) {
        snprintf(why, why_size, "unknown option '%s'", word);
        return false;
    }
    if (bit & SSLAT_REAL_OPTIONS) {
        char *end = NULL;
        double real = strtod(value, &end);
        if (!*value || !isdigit((unsigned char)*value) || *end) {
            snprintf(why, why_size, "option '%s' needs a number, got '%s'", key, value);
            return false;
        }
        return sslat_spec_set_real(spec, key, real, why, why_size);
    }
    if (!all_digits(value) || strlen(value) > 9) {
        snprintf(why, why_size, "option '%s' needs a whole number, got '%s'", key, value);
        return false;
    }
    return sslat_spec_set_int(spec, key, atoll(value), why, why_size);
}

bool sslat_spec_parse_token(const char *token, sslat_layer_spec *spec, char *why,
                            size_t why_size)
{
    size_t length = strlen(token);
    if (length == 0 || length >= SSLAT_MAX_TOKEN) {
        snprintf(why, why_size, length ? "token longer than %d characters" : "empty token",
                 SSLAT_MAX_TOKEN - 1);
        return false;
    }
    char copy[SSLAT_MAX_TOKEN];
    memcpy(copy, token, length + 1);
    char *save = NULL;
    char *word = strtok_r(copy, "_", &save);
    if (!word || token[0] == '_' || token[length - 1] == '_' || strstr(token, "__")) {
        snprintf(why, why_size, "malformed token '%s'", token);
        return false;
    }
    if (!sslat_spec_parse_type(word, spec)) {
        snprintf(why, why_size, "unknown layer type '%s' in '%s'", word, token);
        return false;
    }
    while ((word = strtok_r(NULL, "_", &save)) != NULL) {
        char reason[160];
        if (!parse_option(word, spec, reason, sizeof reason)) {
            snprintf(why, why_size, "%s in '%s'", reason, token);
            return false;
        }
    }
    return true;
}

void sslat_spec_apply_defaults(sslat_layer_spec *spec, const sslat_layer_spec *defaults)
{
    uint32_t accepted = sslat_layer_type_options(spec->type);
    uint32_t take = defaults->set & accepted & ~spec->set;
    if (take & SSLAT_OPT_C) spec->channels = defaults->channels;
    if (take & SSLAT_OPT_S) spec->stride = defaults->stride;
    if (take & SSLAT_OPT_N) spec->act = defaults->act;
    if (take & SSLAT_OPT_SE) spec->se_ratio = defaults->se_ratio;
    spec->set |= take & (SSLAT_OPT_C | SSLAT_OPT_S | SSLAT_OPT_N | SSLAT_OPT_SE);
}

void sslat_spec_format(const sslat_layer_spec *spec, char *buffer, size_t size)
{
    size_t used = 0;
#define EMIT(...)                                                                   \
    do {                                                                            \
        int wrote = snprintf(buffer + used, used < size ? size - used : 0, __VA_ARGS__); \
        if (wrote > 0) used += (size_t)wrote;                                       \
    } while (0)
    if (spec->type == SSLAT_LAYER_FC) {
        EMIT("fc%d", spec->channels);
        if (spec->set & SSLAT_OPT_FN) EMIT("_fn");
        if (spec->set & SSLAT_OPT_NOBIAS) EMIT("_nobias");
    } else if (spec->type == SSLAT_LAYER_ACT && strchr(sslat_act_name(spec->act), '_')) {
        EMIT("act_n%s", ACT_CODES[spec->act]); /* "gelu_tanh" would read as two words */
    } else if (spec->type == SSLAT_LAYER_ACT) {
        EMIT("%s", sslat_act_name(spec->act));
    } else {
        EMIT("%s", sslat_layer_type_name(spec->type));
        if (spec->set & SSLAT_OPT_R && spec->repeat != 1) EMIT("_r%d", spec->repeat);
        if (spec->set & SSLAT_OPT_K) EMIT("_k%d", spec->kernel);
        if (spec->set & SSLAT_OPT_S) EMIT("_s%d", spec->stride);
        if (spec->set & SSLAT_OPT_E) EMIT("_e%g", spec->expansion);
        if (spec->set & SSLAT_OPT_C) EMIT("_c%d", spec->channels);
        if (spec->set & SSLAT_OPT_G) EMIT("_g%d", spec->groups);
        if (spec->set & SSLAT_OPT_P && spec->padding == SSLAT_PADDING_SAME) EMIT("_psame");
        else if (spec->set & SSLAT_OPT_P) EMIT("_p%d", spec->padding);
        if (spec->set & SSLAT_OPT_D) EMIT("_d%d", spec->dilation);
        if (spec->set & SSLAT_OPT_B) EMIT("_b%d", spec->blocks);
        if (spec->set & SSLAT_OPT_A) EMIT("_a%d", spec->anchors);
        if (spec->set & SSLAT_OPT_O) EMIT("_o%d", spec->offset);
        if (spec->set & SSLAT_OPT_H) EMIT("_h%d", spec->heads);
        if (spec->set & SSLAT_OPT_HD) EMIT("_hd%d", spec->head_dim);
        if (spec->set & SSLAT_OPT_W) EMIT("_w%d", spec->width);
        if (spec->set & SSLAT_OPT_SE) EMIT("_se%g", spec->se_ratio);
        if (spec->set & SSLAT_OPT_N) EMIT("_n%s", ACT_CODES[spec->act]);
        if (spec->set & SSLAT_OPT_NOSKIP) EMIT("_noskip");
        if (spec->set & SSLAT_OPT_BIAS) EMIT("_bias");
        if (spec->set & SSLAT_OPT_FN) EMIT("_fn");
        if (spec->set & SSLAT_OPT_MEAN) EMIT("_mean");
        if (spec->set & SSLAT_OPT_EXPLICIT) EMIT("_explicit");
        if (spec->set & SSLAT_OPT_POSBIAS) EMIT("_posbias");
        if (spec->set & SSLAT_OPT_CEIL) EMIT("_ceil");
        if (spec->set & SSLAT_OPT_SLOPE) EMIT("_slope%.9g", spec->slope);
        if (spec->set & SSLAT_OPT_METHOD) EMIT("_method");
        if (spec->set & SSLAT_OPT_CONVMLP) EMIT("_convmlp");
        if (spec->set & SSLAT_OPT_EPS) EMIT("_eps%.9g", spec->eps);
    }
#undef EMIT
    if (size > 0 && used >= size) buffer[size - 1] = '\0';
}
