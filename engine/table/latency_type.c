#include "table/latency_type.h"

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
