/* The calculator (backend) interface: every latency type fills the same table.
 * Analytic MAC counters now; the cpu (oneDNN) and cuda backends plug in here. */
#ifndef SSLAT_CALCULATOR_H
#define SSLAT_CALCULATOR_H

#include "graph.h"
#include "mac.h"
#include "space.h"

typedef struct sslat_calc_options {
    sslat_ignore_set ignore; /* op kinds left out (analytic counters) */
} sslat_calc_options;

typedef struct sslat_calculator sslat_calculator;
struct sslat_calculator {
    const char *name;    /* the latency_type, e.g. "mac_fvcore" */
    const char *kind;    /* "analytic" or "timed" */
    const char *unit;    /* unit of every value: "MMAC", "ms" */
    const char *summary; /* one line for `sslat calculators` */
    /* NULL when it can run here, else a one-line reason it cannot. */
    const char *(*unavailable_reason)(void);
    /* Whether the backend handles this primitive. (optional: NULL = all) */
    bool (*supports_op)(const sslat_node *node);
    /* Value of one subgraph (in unit). */
    sslat_status (*measure_graph)(const sslat_calculator *self, const sslat_graph *graph,
                                  const sslat_calc_options *options, double *value,
                                  sslat_error *err);
    int rule; /* MAC rule of the analytic counters */
};

int sslat_calculator_count(void);
const sslat_calculator *sslat_calculator_at(int index);
/* NULL when no calculator has that name. */
const sslat_calculator *sslat_calculator_find(const char *name);

/* Run a calculator over a space: the constant part (sum over fixed layers) and
 * one value per candidate, block after block, into per_op (total candidates).
 * Fails with SSLAT_ERR_UNSUPPORTED naming the calculator when it cannot run. */
sslat_status sslat_calculate_space(const sslat_calculator *calculator, const sslat_space *space,
                                   const sslat_calc_options *options, double *constant,
                                   double *per_op, size_t per_op_capacity, sslat_error *err);

/* Total candidates over all NAS blocks. */
size_t sslat_space_total_candidates(const sslat_space *space);

#endif
