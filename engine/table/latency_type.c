#include "table/latency_type.h"

#include <stdio.h>
#include <string.h>

#include "base/assert.h"

static const sslat_latency_type TYPES[] = {
    {.name = "mac", .enot_name = "mmac", .unit = "MMAC"},
    {.name = "mac_thop", .enot_name = "mmac.thop", .unit = "MMAC"},
    {.name = "mac_fvcore", .enot_name = "mmac.fvcore", .unit = "MMAC"},
    {.name = "mac_pthflops", .enot_name = "mmac.pthflops", .unit = "MMAC"},
    /* ENOT files say "mmac" whatever counter made them (its published tables
     * are fvcore counts): kept as it is, computed (when asked for) by sslat's mac rule */
    {.name = "mmac", .enot_name = NULL, .unit = "MMAC", .calculator = "mac"},
    {.name = "cpu", .enot_name = NULL, .unit = "ms"},
    {.name = "cuda", .enot_name = NULL, .unit = "ms"},
    /* a user's own values: the name and unit are each table's (value.name, unit) */
    {.name = SSLAT_VALUE_TYPE, .enot_name = NULL, .unit = "", .calculator = NULL},
};

int sslat_latency_type_count(void) { return (int)(sizeof TYPES / sizeof TYPES[0]); }

const sslat_latency_type *sslat_latency_type_at(int index)
{
    SSLAT_ASSERT(index >= 0 && index < sslat_latency_type_count());
    return &TYPES[index];
}

const sslat_latency_type *sslat_latency_type_find(const char *name)
{
    for (int i = 0; name && i < sslat_latency_type_count(); i++) /* sslat's names first: "mmac" is one */
        if (!strcmp(TYPES[i].name, name)) return &TYPES[i];
    for (int i = 0; name && i < sslat_latency_type_count(); i++)
        if (TYPES[i].enot_name && !strcmp(TYPES[i].enot_name, name)) return &TYPES[i];
    return NULL;
}

const char *sslat_latency_type_calculator(const char *name)
{
    const sslat_latency_type *type = sslat_latency_type_find(name);
    if (!type) return name;
    return type->calculator ? type->calculator : type->name;
}

const char *sslat_latency_type_enot_name(const char *name)
{
    const sslat_latency_type *type = sslat_latency_type_find(name);
    return type && type->enot_name ? type->enot_name : name;
}

const char *sslat_latency_type_canonical(const char *name)
{
    const sslat_latency_type *type = sslat_latency_type_find(name);
    return type ? type->name : name;
}

const char *sslat_latency_type_unit(const char *name)
{
    const sslat_latency_type *type = sslat_latency_type_find(name);
    return type ? type->unit : NULL;
}

bool sslat_latency_type_unit_fits(const char *name, const char *unit)
{
    const sslat_latency_type *type = sslat_latency_type_find(name);
    if (!type || !unit) return false;
    if (!strcmp(type->name, SSLAT_VALUE_TYPE)) return sslat_value_unit_valid(unit, NULL, 0);
    return !strcmp(type->unit, unit);
}

/* Printable ASCII, no quote or backslash (names go into CSV, JSON, SVG and
 * terminals as they are), within limits. */
static bool plain_text(const char *text, size_t most, bool empty_ok, const char *what, char *why, size_t size)
{
    size_t n = text ? strlen(text) : 0;
    if (!text || (!n && !empty_ok) || n > most) {
        if (why) snprintf(why, size, "a %s is %s%zu characters", what, empty_ok ? "0 to " : "1 to ", most);
        return false;
    }
    for (const char *p = text; *p; p++)
        if (*p < 0x20 || *p > 0x7e || *p == '"' || *p == '\\' || *p == ',') {
            if (why) snprintf(why, size, "a %s is printable ASCII without quotes, backslashes or commas", what);
            return false;
        }
    return true;
}

bool sslat_value_name_valid(const char *name, char *why, size_t size)
{
    if (!plain_text(name, SSLAT_VALUE_NAME_MAX, false, "value name", why, size)) return false;
    if (sslat_latency_type_find(name)) { /* "mac" or "cpu" would say the table is what it is not */
        if (why) snprintf(why, size, "'%s' is a latency type's name: a value table is named for what it holds", name);
        return false;
    }
    return true;
}

bool sslat_value_unit_valid(const char *unit, char *why, size_t size)
{
    return plain_text(unit, SSLAT_VALUE_UNIT_MAX, true, "value unit", why, size);
}
