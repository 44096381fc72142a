/* Analytic MAC counters: one counting rule per reference library. */
#ifndef SSLAT_MAC_H
#define SSLAT_MAC_H

#include "ir/graph.h"
#include "sslat.h"

typedef enum sslat_mac_rule {
    SSLAT_MAC_PLAIN,    /* "mac": conv2d and linear multiply-accumulates (torchvision's figure) */
    SSLAT_MAC_THOP,     /* "mac_thop": thop 0.1.1 */
    SSLAT_MAC_FVCORE,   /* "mac_fvcore": fvcore, model in eval mode */
    SSLAT_MAC_PTHFLOPS, /* "mac_pthflops": pthflops 0.4.2, FX mode */
    SSLAT_MAC_RULE_COUNT
} sslat_mac_rule;

/* Latency-type name of a rule ("mac_thop"), and back (-1 when not a MAC type). */
const char *sslat_mac_rule_name(sslat_mac_rule rule);
int sslat_mac_rule_from_name(const char *name);

/* Op kinds and activations left out of a count (the seed's ignore_modules). */
typedef struct sslat_ignore_set {
    uint32_t ops;  /* bit per sslat_op_kind */
    uint32_t acts; /* bit per sslat_act_kind, for SSLAT_OP_ACT nodes */
} sslat_ignore_set;

/* Parse "batchnorm,act,relu6" (op kind or activation names, comma-separated). */
sslat_status sslat_ignore_parse(const char *list, sslat_ignore_set *out, sslat_error *err);

/* Whether a node is left out by ignore (NULL ignores nothing). */
bool sslat_ignore_contains(const sslat_ignore_set *ignore, const sslat_node *node);

/* What the rule counts for one node (raw count, not millions). fuse_bn: the
 * network as it runs for inference, every BN folded into the conv before it:
 * the BN counts nothing and the conv has a bias (which only pthflops counts). */
double sslat_mac_node(const sslat_graph *graph, const sslat_node *node, sslat_mac_rule rule, bool fuse_bn);

/* Sum over a graph, skipping ignored nodes. ignore may be NULL. */
double sslat_mac_graph(const sslat_graph *graph, sslat_mac_rule rule,
                       const sslat_ignore_set *ignore, bool fuse_bn);

#endif
