/* The registry of calculators. */
#include "calc/calculator.h"

#include <string.h>

#include "base/assert.h"
#include "table/latency_type.h"

/* best last: `sslat measure` without -c takes the last available one */
static const sslat_calculator *const CALCULATORS[] = {
    &sslat_mac_calculator, &sslat_mac_thop_calculator, &sslat_mac_fvcore_calculator,
    &sslat_mac_pthflops_calculator, &sslat_cpu_calculator, &sslat_cuda_calculator,
};

int sslat_calculator_count(void) { return (int)(sizeof CALCULATORS / sizeof CALCULATORS[0]); }

const sslat_calculator *sslat_calculator_at(int index)
{
    SSLAT_ASSERT(index >= 0 && index < sslat_calculator_count());
    return CALCULATORS[index];
}

const sslat_calculator *sslat_calculator_find(const char *name)
{
    name = sslat_latency_type_calculator(name);
    for (int i = 0; name && i < sslat_calculator_count(); i++)
        if (strcmp(CALCULATORS[i]->name, name) == 0) return CALCULATORS[i];
    return NULL;
}

const char *sslat_calc_kind_name(sslat_calc_kind kind)
{
    return kind == SSLAT_CALC_ANALYTIC ? "analytic" : "timed";
}

const char *sslat_calculator_unit(const sslat_calculator *calculator)
{
    const char *unit = sslat_latency_type_unit(calculator->name);
    SSLAT_ASSERT(unit); /* every calculator is a latency type (a test checks the table) */
    return unit;
}

const char *sslat_calculator_unavailable(const sslat_calculator *calculator)
{
    if (calculator->api_version != SSLAT_CALCULATOR_API_VERSION)
        return "built against another version of the calculator table";
    return calculator->unavailable_reason ? calculator->unavailable_reason() : NULL;
}

int32_t sslat_available_calculators(const char *const **names)
{
    static const char *available[sizeof CALCULATORS / sizeof CALCULATORS[0]];
    int32_t count = 0;
    for (int i = 0; i < sslat_calculator_count(); i++)
        if (!sslat_calculator_unavailable(CALCULATORS[i])) available[count++] = CALCULATORS[i]->name;
    if (names) *names = available;
    return count;
}
