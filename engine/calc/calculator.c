/* The registry of calculators. */
#include "calc/calculator.h"

#include <stdio.h>
#include <string.h>

#include "base/assert.h"
#include "base/error.h"
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

/* Who reads an option, from the registry: "the cuda calculator only",
 * "timed calculators (cpu, cuda)" (every one of a kind), or a list. */
static void readers_of(unsigned bit, char *out, size_t size)
{
    char names[128] = "";
    int count = 0, of_kind[2] = {0, 0}, kind_total[2] = {0, 0};
    for (int i = 0; i < sslat_calculator_count(); i++) {
        kind_total[CALCULATORS[i]->kind]++;
        if (!(CALCULATORS[i]->options_read & bit)) continue;
        size_t used = strlen(names);
        snprintf(names + used, sizeof names - used, "%s%s", count ? ", " : "", CALCULATORS[i]->name);
        count++;
        of_kind[CALCULATORS[i]->kind]++;
    }
    for (int kind = 0; count > 1 && kind < 2; kind++)
        if (of_kind[kind] == count && count == kind_total[kind]) {
            snprintf(out, size, "%s calculators (%s)", sslat_calc_kind_name((sslat_calc_kind)kind), names);
            return;
        }
    if (count == 1) snprintf(out, size, "the %s calculator only", names);
    else snprintf(out, size, "the calculators %s", names);
}

sslat_status sslat_calculator_check_options(const sslat_calculator *calculator, const sslat_calc_options *o,
                                            sslat_error *err)
{
    /* each option a backend may not read, as it is named to a user, whether
     * it is set, and (for a timed calculator) why it cannot apply */
    const struct {
        unsigned bit;
        bool set;
        const char *what, *why_not_timed;
    } OPTIONS[] = {
        {SSLAT_READS_IGNORE, o->ignore.ops || o->ignore.acts, "ignore leaves op kinds out of an analytic count",
         "times whole subgraphs and cannot leave a part out"},
        {SSLAT_READS_FUSE_BN, o->fuse_bn, "fuse_bn counts MACs as the network runs folded",
         "times it (its fused mode already folds BN into the conv)"},
        {SSLAT_READS_COLD, o->cold, "cold (the cache mode)", NULL},
        {SSLAT_READS_DEVICE, o->cuda.device >= 0, "a device", NULL},
        {SSLAT_READS_LAYOUT, o->layout != SSLAT_LAYOUT_DEFAULT, "a layout", NULL},
        {SSLAT_READS_PROFILE, o->cuda.profile, "profile (a cudaProfilerStart/Stop range per unit)", NULL},
        {SSLAT_READS_REPLICAS, o->cpu.replicas > 0, "replicas (copies per cpu timing program)", NULL},
        {SSLAT_READS_CUDNN_API, o->cuda.api != SSLAT_CUDNN_API_DEFAULT, "a cuDNN API (--cuda-api)", NULL},
        {SSLAT_READS_SELECTION_CACHE, o->cuda.selection_cache != NULL, "a selection cache (--selection-cache)", NULL},
    };
    for (size_t i = 0; i < sizeof OPTIONS / sizeof OPTIONS[0]; i++) {
        if (!OPTIONS[i].set || (calculator->options_read & OPTIONS[i].bit)) continue;
        char readers[192];
        readers_of(OPTIONS[i].bit, readers, sizeof readers);
        const char *why = calculator->kind == SSLAT_CALC_TIMED ? OPTIONS[i].why_not_timed : NULL;
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "%s: it applies to %s, not %s%s%s", OPTIONS[i].what,
                          readers, calculator->name, why ? ", which " : "", why ? why : "");
    }
    return SSLAT_OK;
}
