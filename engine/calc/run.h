/* Running a calculator over a whole space into a table. */
#ifndef SSLAT_CALC_RUN_H
#define SSLAT_CALC_RUN_H

#include "calc/calculator.h"


/* Run a calculator over a space into a container of the space's shape: the
 * constant part (fixed layers combined) and every candidate's entry, plus the
 * calculator's metadata. Identical subgraphs (same canonical hash, which
 * covers the input shape) are measured once. plan may be NULL (one shard, no
 * journal, quiet). Fails with SSLAT_ERR_UNSUPPORTED naming the calculator when
 * it cannot run here. */
sslat_status sslat_calculate_space(const sslat_calculator *calculator, const sslat_space *space,
                                   const sslat_calc_options *options, const sslat_run_plan *plan,
                                   sslat_container *container, sslat_error *err);

/* Fingerprint of a run: space, calculator, the options that change a value,
 * the machine and the shard (a journal from another run is refused). */
uint64_t sslat_run_fingerprint(const sslat_calculator *calculator, const sslat_space *space,
                               const sslat_calc_options *options, const sslat_run_plan *plan);

/* Balance work units over shards: longest cost first onto the least loaded
 * shard (ties: the lower index); deterministic. shard_of[k] receives unit k's shard. */
void sslat_shard_assign(const double *costs, size_t n, int32_t count, int32_t *shard_of);

#endif
