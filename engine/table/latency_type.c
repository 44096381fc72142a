#include "table/latency_type.h"

#include <string.h>

#include "base/assert.h"

static const sslat_latency_type TYPES[] = {
    {.name = "mac", .enot_name = "mmac", .unit = "MMAC"},
    {.name = "mac_thop", .enot_name = "mmac.thop", .unit = "MMAC"},
    {.name = "mac_fvcore", .enot_name = "mmac.fvcore", .unit = "MMAC"},
    {.name = "mac_pthflops", .enot_name = "mmac.pthflops", .unit = "MMAC"},
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
    for (int i = 0; name && i < sslat_latency_type_count(); i++)
        if (!strcmp(TYPES[i].name, name) || (TYPES[i].enot_name && !strcmp(TYPES[i].enot_name, name)))
            return &TYPES[i];
    return NULL;
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
