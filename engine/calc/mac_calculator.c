/* The analytic calculators: one MAC counting rule each (calc/mac.c), the rule
 * carried as the table's context. */
#include "calc/calculator.h"
#include "table/container.h"

static sslat_status measure_mac(const sslat_calculator *self, void *session, const sslat_unit *unit,
                                const sslat_calc_options *options, sslat_entry *entry, sslat_error *err)
{
    (void)session;
    (void)err;
    const sslat_mac_rule *rule = self->context;
    *entry = sslat_entry_of_value(sslat_mac_graph(unit->graph, *rule, &options->ignore, options->fuse_bn) / 1e6);
    return SSLAT_OK;
}

static const sslat_mac_rule PLAIN = SSLAT_MAC_PLAIN, THOP = SSLAT_MAC_THOP, FVCORE = SSLAT_MAC_FVCORE,
                            PTHFLOPS = SSLAT_MAC_PTHFLOPS;

#define MAC_CALCULATOR(NAME, SUMMARY, RULE)                                                  \
    {                                                                                        \
        .api_version = SSLAT_CALCULATOR_API_VERSION, .name = NAME, .kind = SSLAT_CALC_ANALYTIC, \
        .summary = SUMMARY, .dtypes = SSLAT_DTYPES_ALL, .context = &RULE,                     \
        .options_read = SSLAT_READS_IGNORE | SSLAT_READS_FUSE_BN, .measure_graph = measure_mac,                                                        \
    }

const sslat_calculator sslat_mac_calculator =
    MAC_CALCULATOR("mac", "conv2d + linear multiply-accumulates (torchvision's GFLOPS column)", PLAIN);
const sslat_calculator sslat_mac_thop_calculator =
    MAC_CALCULATOR("mac_thop", "what thop 0.1.1 (pytorch-OpCounter) counts", THOP);
const sslat_calculator sslat_mac_fvcore_calculator =
    MAC_CALCULATOR("mac_fvcore", "what fvcore's FlopCountAnalysis counts (eval mode)", FVCORE);
const sslat_calculator sslat_mac_pthflops_calculator =
    MAC_CALCULATOR("mac_pthflops", "what pthflops 0.4.2 counts in FX mode", PTHFLOPS);
