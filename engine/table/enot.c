/* ENOT latency files: a Python pickle of {"latency_type": str, "constant_latency":
 * float | numpy.float64, "operations_latencies": [[float, ...], ...]}. The reader
 * is a strict, tiny pickle machine for exactly that structure: protocol 2–5
 * opcodes for dicts, lists, tuples, str, bytes, float, int, None, bool, the memo,
 * and the numpy float64 scalar (numpy ... scalar(dtype('f8'), bytes)) rebuilt
 * by hand. No other global is accepted and nothing is ever executed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/limits.h"
#include "base/text.h"
#include "table/container.h"
#include "table/latency_type.h"


typedef enum { V_NONE, V_BOOL, V_INT, V_FLOAT, V_STR, V_BYTES, V_LIST, V_TUPLE, V_DICT, V_MARK,
               V_GLOBAL, V_DTYPE } value_kind;
typedef enum { G_SCALAR, G_DTYPE, G_ENCODE } global_kind;

typedef struct value value;
struct value {
    value_kind kind;
    int64_t integer;     /* V_INT, V_BOOL; V_GLOBAL: global_kind; V_DTYPE: 1 = big endian */
    double real;         /* V_FLOAT */
    char *text;          /* V_STR, V_BYTES */
    size_t length;
    value **items;       /* V_LIST, V_TUPLE; V_DICT: key, value, key, value … */
    size_t count, capacity;
};

typedef struct machine {
    const unsigned char *data;
    size_t size, at;
    value **stack;
    size_t depth;
    value **memo;
    size_t memo_count;
    value **all; /* every value, for freeing */
    size_t n_all, cap_all;
    sslat_error *err;
    sslat_status status;
} machine;

static sslat_status fail(machine *m, const char *format, const char *detail)
{
    if (m->status == SSLAT_OK)
        m->status = sslat_fail(m->err, SSLAT_ERR_PARSE, "ENOT pickle: byte %zu: %s%s", m->at, format, detail ? detail : "");
    return m->status;
}

static value *new_value(machine *m, value_kind kind)
{
    if (m->n_all == m->cap_all) {
        size_t cap = m->cap_all ? m->cap_all * 2 : 64;
        value **grown = realloc(m->all, cap * sizeof *grown);
        if (!grown) return NULL;
        m->all = grown;
        m->cap_all = cap;
    }
    value *v = calloc(1, sizeof *v);
    if (!v) return NULL;
    v->kind = kind;
    m->all[m->n_all++] = v;
    return v;
}

static bool push(machine *m, value *v)
{
    if (!v) return fail(m, "out of memory", NULL), false;
    if (m->depth >= SSLAT_MAX_PICKLE_STACK) return fail(m, "stack deeper than the format needs", NULL), false;
    m->stack[m->depth++] = v;
    return true;
}

static value *pop(machine *m)
{
    if (m->depth == 0 || m->stack[m->depth - 1]->kind == V_MARK) {
        fail(m, "stack underflow", NULL);
        return NULL;
    }
    return m->stack[--m->depth];
}

static bool append_item(machine *m, value *to, value *item)
{
    if (to->count == to->capacity) {
        size_t cap = to->capacity ? to->capacity * 2 : 8;
        value **grown = realloc(to->items, cap * sizeof *grown);
        if (!grown) return fail(m, "out of memory", NULL), false;
        to->items = grown;
        to->capacity = cap;
    }
    to->items[to->count++] = item;
    return true;
}

static const unsigned char *take(machine *m, size_t n)
{
    if (n > m->size - m->at) {
        fail(m, "truncated", NULL);
        return NULL;
    }
    const unsigned char *p = m->data + m->at;
    m->at += n;
    return p;
}

static uint64_t little(const unsigned char *p, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

static bool push_text(machine *m, value_kind kind, size_t n)
{
    if (n > SSLAT_MAX_PICKLE_STRING) return fail(m, "string longer than the format needs", NULL), false;
    const unsigned char *p = take(m, n);
    if (p && kind == V_STR && !sslat_utf8_valid_surrogatepass((const char *)p, n))
        return fail(m, "a str that is not UTF-8", NULL), false;
    value *v = p ? new_value(m, kind) : NULL;
    if (!v || !(v->text = malloc(n + 1))) return p ? (fail(m, "out of memory", NULL), false) : false;
    memcpy(v->text, p, n);
    v->text[n] = '\0';
    v->length = n;
    return push(m, v);
}

/* Items above the topmost mark, which is removed. */
static bool pop_to_mark(machine *m, size_t *first)
{
    size_t i = m->depth;
    while (i > 0 && m->stack[i - 1]->kind != V_MARK) i--;
    if (i == 0) return fail(m, "no mark on the stack", NULL), false;
    *first = i;
    return true;
}

static bool global(machine *m, const char *module, const char *name)
{
    int kind = -1;
    if ((!strcmp(module, "numpy.core.multiarray") || !strcmp(module, "numpy._core.multiarray")) && !strcmp(name, "scalar"))
        kind = G_SCALAR;
    else if (!strcmp(module, "numpy") && !strcmp(name, "dtype"))
        kind = G_DTYPE;
    else if (!strcmp(module, "_codecs") && !strcmp(name, "encode"))
        kind = G_ENCODE;
    if (kind < 0) {
        char what[160];
        snprintf(what, sizeof what, "%.60s.%.60s", module, name);
        return fail(m, "refusing global ", what), false; /* never imported, never called */
    }
    value *v = new_value(m, V_GLOBAL);
    if (v) v->integer = kind;
    return push(m, v);
}

/* latin-1 bytes from a UTF-8 str (protocol 2 stores numpy's bytes this way). */
static value *latin1(machine *m, const value *s)
{
    value *b = new_value(m, V_BYTES);
    if (!b || !(b->text = malloc(s->length + 1))) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < s->length; i++) {
        unsigned char c = (unsigned char)s->text[i];
        if (c < 0x80) b->text[n++] = (char)c;
        else if ((c & 0xE0) == 0xC0 && i + 1 < s->length && c <= 0xC3) {
            b->text[n++] = (char)(((c & 0x1F) << 6) | ((unsigned char)s->text[++i] & 0x3F));
        } else {
            fail(m, "a latin-1 string that is not latin-1", NULL);
            return NULL;
        }
    }
    b->length = n;
    return b;
}

static bool reduce(machine *m)
{
    value *args = pop(m), *callable = pop(m);
    if (!args || !callable) return false;
    if (callable->kind != V_GLOBAL || args->kind != V_TUPLE) return fail(m, "REDUCE of something not allowed", NULL), false;
    value *result = NULL;
    if (callable->integer == G_DTYPE) {
        if (args->count < 1 || args->items[0]->kind != V_STR || strcmp(args->items[0]->text, "f8") != 0)
            return fail(m, "only numpy float64 ('f8') scalars are read", NULL), false;
        result = new_value(m, V_DTYPE);
    } else if (callable->integer == G_ENCODE) {
        if (args->count != 2 || args->items[0]->kind != V_STR || args->items[1]->kind != V_STR ||
            strcmp(args->items[1]->text, "latin1") != 0)
            return fail(m, "_codecs.encode is only read as (str, 'latin1')", NULL), false;
        result = latin1(m, args->items[0]);
    } else {
        if (args->count != 2 || args->items[0]->kind != V_DTYPE || args->items[1]->kind != V_BYTES ||
            args->items[1]->length != 8)
            return fail(m, "numpy scalar is only read as (dtype('f8'), 8 bytes)", NULL), false;
        unsigned char b[8];
        memcpy(b, args->items[1]->text, 8);
        if (args->items[0]->integer) /* big-endian dtype */
            for (int i = 0; i < 4; i++) {
                unsigned char t = b[i];
                b[i] = b[7 - i];
                b[7 - i] = t;
            }
        uint64_t bits = little(b, 8);
        result = new_value(m, V_FLOAT);
        if (result) memcpy(&result->real, &bits, sizeof bits);
    }
    return m->status == SSLAT_OK && push(m, result);
}

static bool is_c_int(const value *v)
{
    return (v->kind == V_INT || v->kind == V_BOOL) && v->integer >= INT32_MIN && v->integer <= INT32_MAX;
}

/* BUILD on a dtype: numpy's dtype.__setstate__ for a plain float64, whose
 * state is (version, byte order, subarray, [names,] fields, elsize, alignment
 * [, flags [, metadata]]). What numpy refuses is refused here (a version
 * outside 0..4, a byte order that is not one character, a non-int field);
 * what would make it another dtype than float64 (a subarray, fields,
 * metadata, flags: numpy reads a scalar with NPY_LIST_PICKLE or
 * NPY_ITEM_IS_POINTER set differently) is refused too. The byte order '>' is
 * big-endian. */
static bool build(machine *m)
{
    value *state = pop(m);
    if (!state || m->depth == 0) return false;
    value *target = m->stack[m->depth - 1];
    if (target->kind != V_DTYPE || state->kind != V_TUPLE || state->count < 6 || state->count > 9)
        return fail(m, "BUILD is only read on a numpy dtype, with the state numpy writes", NULL), false;
    value *const *item = state->items;
    size_t n = state->count, ints_from = n == 6 ? 4 : 5, ints_to = n < 8 ? n : 8;
    bool ok = is_c_int(item[0]) && item[0]->integer >= 0 && item[0]->integer <= 4 &&
              (item[1]->kind == V_STR || item[1]->kind == V_BYTES) && item[1]->length == 1 &&
              (unsigned char)item[1]->text[0] < 0x80 && item[2]->kind == V_NONE && item[3]->kind == V_NONE &&
              (n == 6 || item[4]->kind == V_NONE) && (n < 8 || item[7]->integer == 0) &&
              (n < 9 || item[8]->kind == V_NONE);
    for (size_t i = ints_from; ok && i < ints_to; i++) ok = is_c_int(item[i]);
    if (!ok) return fail(m, "a numpy dtype state that is not a plain float64's", NULL), false;
    target->integer = item[1]->text[0] == '>';
    return true;
}

static bool step(machine *m)
{
    const unsigned char *op = take(m, 1), *p;
    if (!op) return false;
    value *v, *x;
    size_t first;
    switch (*op) {
    case 0x80: /* PROTO */
        if (!(p = take(m, 1))) return false;
        if (*p < 2 || *p > 5) return fail(m, "pickle protocol outside 2..5", NULL), false;
        return true;
    case 0x95: /* FRAME: its bytes must all be there, as pickle.load requires (it reads the frame whole) */
        if (!(p = take(m, 8))) return false;
        if (little(p, 8) > m->size - m->at)
            return fail(m, "truncated (a FRAME longer than the rest of the file)", NULL), false;
        return true;
    case '}': return push(m, new_value(m, V_DICT));
    case ']': return push(m, new_value(m, V_LIST));
    case ')': return push(m, new_value(m, V_TUPLE));
    case '(': return push(m, new_value(m, V_MARK));
    case 'N': return push(m, new_value(m, V_NONE));
    case 0x88:
    case 0x89:
        if ((v = new_value(m, V_BOOL))) v->integer = *op == 0x88;
        return push(m, v);
    case 'X': return (p = take(m, 4)) && push_text(m, V_STR, (size_t)little(p, 4));
    case 0x8c: return (p = take(m, 1)) && push_text(m, V_STR, *p);
    case 0x8d: return (p = take(m, 8)) && push_text(m, V_STR, (size_t)little(p, 8));
    case 'C': return (p = take(m, 1)) && push_text(m, V_BYTES, *p);
    case 'B': return (p = take(m, 4)) && push_text(m, V_BYTES, (size_t)little(p, 4));
    case 0x8e: return (p = take(m, 8)) && push_text(m, V_BYTES, (size_t)little(p, 8));
    case 'G': { /* BINFLOAT: big-endian double */
        if (!(p = take(m, 8))) return false;
        uint64_t bits = 0;
        for (int i = 0; i < 8; i++) bits = bits << 8 | p[i];
        if ((v = new_value(m, V_FLOAT))) memcpy(&v->real, &bits, sizeof bits);
        return push(m, v);
    }
    case 'J': case 'K': case 'M': {
        int n = *op == 'J' ? 4 : *op == 'K' ? 1 : 2;
        if (!(p = take(m, (size_t)n))) return false;
        if ((v = new_value(m, V_INT))) v->integer = n == 4 ? (int64_t)(int32_t)little(p, 4) : (int64_t)little(p, n);
        return push(m, v);
    }
    case 0x8a: { /* LONG1 */
        if (!(p = take(m, 1))) return false;
        size_t n = *p;
        if (n > 8) return fail(m, "integer wider than 64 bits", NULL), false;
        if (!(p = take(m, n))) return false;
        uint64_t bits = n ? little(p, (int)n) : 0;
        if (n && n < 8 && (p[n - 1] & 0x80)) bits |= ~0ULL << (8 * n); /* sign */
        if ((v = new_value(m, V_INT))) v->integer = (int64_t)bits;
        return push(m, v);
    }
    case 't': case 0x85: case 0x86: case 0x87: {
        value *t = new_value(m, V_TUPLE);
        if (!t) return fail(m, "out of memory", NULL), false;
        if (*op == 't') {
            if (!pop_to_mark(m, &first)) return false;
            for (size_t i = first; i < m->depth; i++) if (!append_item(m, t, m->stack[i])) return false;
            m->depth = first - 1;
        } else {
            size_t n = (size_t)(*op - 0x84);
            if (m->depth < n) return fail(m, "stack underflow", NULL), false;
            for (size_t i = m->depth - n; i < m->depth; i++) {
                if (m->stack[i]->kind == V_MARK) return fail(m, "stack underflow", NULL), false;
                if (!append_item(m, t, m->stack[i])) return false;
            }
            m->depth -= n;
        }
        return push(m, t);
    }
    case 'q': case 'r': case 0x94: {
        size_t index = m->memo_count;
        if (*op != 0x94) {
            if (!(p = take(m, *op == 'q' ? 1 : 4))) return false;
            index = (size_t)little(p, *op == 'q' ? 1 : 4);
        }
        if (m->depth == 0 || index >= SSLAT_MAX_PICKLE_MEMO) return fail(m, "bad memo store", NULL), false;
        if (index >= m->memo_count) {
            value **grown = realloc(m->memo, (index + 1) * sizeof *grown);
            if (!grown) return fail(m, "out of memory", NULL), false;
            memset(grown + m->memo_count, 0, (index + 1 - m->memo_count) * sizeof *grown);
            m->memo = grown;
            m->memo_count = index + 1;
        }
        m->memo[index] = m->stack[m->depth - 1];
        return true;
    }
    case 'h': case 'j': {
        if (!(p = take(m, *op == 'h' ? 1 : 4))) return false;
        size_t index = (size_t)little(p, *op == 'h' ? 1 : 4);
        if (index >= m->memo_count || !m->memo[index]) return fail(m, "memo read before write", NULL), false;
        return push(m, m->memo[index]);
    }
    case 'a':
        if (!(v = pop(m)) || m->depth == 0 || (x = m->stack[m->depth - 1])->kind != V_LIST)
            return fail(m, "APPEND outside a list", NULL), false;
        return append_item(m, x, v);
    case 'e':
        if (!pop_to_mark(m, &first)) return false;
        if (first < 2 || (x = m->stack[first - 2])->kind != V_LIST) return fail(m, "APPENDS outside a list", NULL), false;
        for (size_t i = first; i < m->depth; i++) if (!append_item(m, x, m->stack[i])) return false;
        m->depth = first - 1;
        return true;
    case 's': {
        value *item = pop(m), *key = pop(m);
        if (!item || !key || m->depth == 0 || (x = m->stack[m->depth - 1])->kind != V_DICT)
            return fail(m, "SETITEM outside a dict", NULL), false;
        return append_item(m, x, key) && append_item(m, x, item);
    }
    case 'u':
        if (!pop_to_mark(m, &first)) return false;
        if (first < 2 || (x = m->stack[first - 2])->kind != V_DICT || (m->depth - first) % 2)
            return fail(m, "SETITEMS outside a dict", NULL), false;
        for (size_t i = first; i < m->depth; i++) if (!append_item(m, x, m->stack[i])) return false;
        m->depth = first - 1;
        return true;
    case 'c': { /* GLOBAL "module\nname\n" */
        char text[2][128];
        for (int k = 0; k < 2; k++) {
            size_t n = 0;
            while ((p = take(m, 1)) && *p != '\n' && n < sizeof text[k] - 1) text[k][n++] = (char)*p;
            if (!p || *p != '\n') return fail(m, "malformed GLOBAL", NULL), false;
            text[k][n] = '\0';
        }
        return global(m, text[0], text[1]);
    }
    case 0x93: { /* STACK_GLOBAL */
        value *name = pop(m), *module = pop(m);
        if (!name || !module || name->kind != V_STR || module->kind != V_STR)
            return fail(m, "malformed STACK_GLOBAL", NULL), false;
        return global(m, module->text, name->text);
    }
    case 'R': return reduce(m);
    case 'b': return build(m);
    default: {
        char what[48];
        snprintf(what, sizeof what, "0x%02x", *op);
        return fail(m, "unsupported pickle opcode ", what), false;
    }
    }
}

static bool is_number(const value *v) { return v->kind == V_FLOAT || v->kind == V_INT; }
static double number(const value *v) { return v->kind == V_FLOAT ? v->real : (double)v->integer; }

/* Whether v is the str key, byte for byte ("latency_type\0x" is not "latency_type"). */
static bool text_is(const value *v, const char *key)
{
    return v->kind == V_STR && v->length == strlen(key) && memcmp(v->text, key, v->length) == 0;
}

/* The value of key as pickle.load sees it: a key given twice keeps the last. */
static const value *dict_get(const value *d, const char *key)
{
    const value *found = NULL;
    for (size_t i = 0; i + 1 < d->count; i += 2)
        if (text_is(d->items[i], key)) found = d->items[i + 1];
    return found;
}

/* A dict key for a message: the whole str, a NUL byte shown as \x00 (not cut there). */
static const char *show_key(const value *key, char *shown, size_t size)
{
    if (key->kind != V_STR) return "(not a str)";
    size_t at = 0;
    shown[0] = '\0';
    for (size_t i = 0; i < key->length && at + 5 < size; i++)
        at += (size_t)(key->text[i] ? snprintf(shown + at, size - at, "%c", key->text[i])
                                    : snprintf(shown + at, size - at, "\\x00"));
    return shown;
}

static sslat_status to_container(machine *m, const value *root, sslat_container **out)
{
    if (root->kind != V_DICT) return fail(m, "the pickle is not a dict", NULL);
    for (size_t i = 0; i + 1 < root->count; i += 2) {
        const value *key = root->items[i];
        char shown[128];
        if (!text_is(key, "latency_type") && !text_is(key, "constant_latency") && !text_is(key, "operations_latencies"))
            return fail(m, "unexpected key in the dict: ", show_key(key, shown, sizeof shown));
    }
    const value *type = dict_get(root, "latency_type"), *constant = dict_get(root, "constant_latency");
    const value *ops = dict_get(root, "operations_latencies");
    if (!type || type->kind != V_STR) return fail(m, "latency_type must be a str", NULL);
    if (strlen(type->text) != type->length) return fail(m, "latency_type holds a NUL byte", NULL);
    if (!constant || !is_number(constant)) return fail(m, "constant_latency must be a float", NULL);
    if (!ops || ops->kind != V_LIST) return fail(m, "operations_latencies must be a list of lists", NULL);
    size_t total = 0;
    for (size_t b = 0; b < ops->count; b++) {
        if (ops->items[b]->kind != V_LIST) return fail(m, "operations_latencies must be a list of lists", NULL);
        total += ops->items[b]->count;
    }
    int32_t *counts = calloc(ops->count + 1, sizeof *counts);
    double *values = calloc(total + 1, sizeof *values);
    if (!counts || !values) {
        free(counts);
        free(values);
        return fail(m, "out of memory", NULL);
    }
    size_t at = 0;
    sslat_status status = SSLAT_OK;
    for (size_t b = 0; status == SSLAT_OK && b < ops->count; b++) {
        const value *row = ops->items[b];
        counts[b] = (int32_t)(row->count > 1000000 ? 1000000 : row->count);
        for (size_t i = 0; status == SSLAT_OK && i < row->count; i++) {
            if (!is_number(row->items[i])) status = fail(m, "operations_latencies holds a value that is not a float", NULL);
            else values[at++] = number(row->items[i]);
        }
    }
    if (status == SSLAT_OK) {
        if (ops->count > 1000000) status = fail(m, "too many blocks", NULL);
        else status = sslat_container_create(type->text, number(constant), values, counts, (int32_t)ops->count, out, m->err);
        /* keep ENOT's own name ("mmac.thop") so an export gives the file back as it was */
        if (status == SSLAT_OK && strcmp(type->text, sslat_container_latency_type(*out)))
            status = sslat_container_set_metadata(*out, "enot.latency_type", type->text, m->err);
        if (status != SSLAT_OK) {
            sslat_container_free(*out);
            *out = NULL;
        }
    }
    free(counts);
    free(values);
    return status;
}

sslat_status sslat_container_import_enot(const uint8_t *bytes, size_t size, sslat_container **out,
                                         sslat_error *error)
{
    sslat_error_clear(error);
    if (!out || (!bytes && size)) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    *out = NULL;
    if (size > SSLAT_MAX_PICKLE_BYTES) return sslat_fail(error, SSLAT_ERR_LIMIT, "ENOT pickle: %zu bytes (limit %d)", size, SSLAT_MAX_PICKLE_BYTES);
    machine m = {bytes, size, 0, calloc(SSLAT_MAX_PICKLE_STACK, sizeof(value *)), 0, NULL, 0, NULL, 0, 0, error, SSLAT_OK};
    if (!m.stack) return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    bool stopped = false;
    while (m.status == SSLAT_OK && !stopped) {
        if (m.at < m.size && m.data[m.at] == '.') {
            m.at++;
            stopped = true;
        } else if (m.at >= m.size) {
            fail(&m, "truncated: no STOP", NULL);
        } else {
            step(&m);
        }
    }
    if (m.status == SSLAT_OK && m.depth != 1) fail(&m, "the pickle leaves more than one value", NULL);
    if (m.status == SSLAT_OK) m.status = to_container(&m, m.stack[0], out);
    for (size_t i = 0; i < m.n_all; i++) {
        free(m.all[i]->text);
        free(m.all[i]->items);
        free(m.all[i]);
    }
    free(m.all);
    free(m.memo);
    free(m.stack);
    if (m.status != SSLAT_OK) {
        sslat_container_free(*out);
        *out = NULL;
    }
    return m.status;
}

/* ---- writer: protocol 2, plain floats, no memo ------------------------------------- */

static void put_unicode(FILE *f, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    fputc('X', f);
    for (int i = 0; i < 4; i++) fputc((int)((n >> (8 * i)) & 0xFF), f);
    fwrite(s, 1, n, f);
}

static void put_float(FILE *f, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    fputc('G', f);
    for (int i = 7; i >= 0; i--) fputc((int)((bits >> (8 * i)) & 0xFF), f);
}

sslat_status sslat_container_export_enot(const sslat_container *c, uint8_t **bytes, size_t *size,
                                         sslat_error *error)
{
    sslat_error_clear(error);
    if (!c || !bytes || !size) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "NULL argument");
    *bytes = NULL;
    sslat_status status = sslat_container_require_complete(c, error);
    if (status != SSLAT_OK) return status;
    char *text = NULL;
    size_t length = 0;
    FILE *f = open_memstream(&text, &length);
    if (!f) return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory");
    fputc(0x80, f);
    fputc(2, f);
    fputc('}', f);
    fputc('(', f);
    put_unicode(f, "latency_type");
    const char *enot_name = sslat_container_metadata(c, "enot.latency_type");
    put_unicode(f, enot_name ? enot_name : sslat_latency_type_enot_name(sslat_container_latency_type(c)));
    put_unicode(f, "constant_latency");
    put_float(f, c->constant.value);
    put_unicode(f, "operations_latencies");
    fputc(']', f);
    if (c->n_blocks > 0) fputc('(', f);
    for (int32_t b = 0; b < c->n_blocks; b++) {
        fputc(']', f);
        fputc('(', f);
        for (int32_t i = 0; i < c->n_candidates[b]; i++) put_float(f, c->entries[c->offset[b] + i].value);
        fputc('e', f);
    }
    if (c->n_blocks > 0) fputc('e', f);
    fputc('u', f);
    fputc('.', f);
    if (fclose(f) != 0 || !text) {
        free(text);
        return sslat_fail(error, SSLAT_ERR_NOMEM, "out of memory writing the pickle");
    }
    *bytes = (uint8_t *)text;
    *size = length;
    return SSLAT_OK;
}
