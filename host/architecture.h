/* A whole architecture (the constant part and the chosen candidates, in
 * order) run as one network on the cpu backend: the measure_architectures slot
 * behind `sslat validate -c cpu`. */
#ifndef SSLAT_HOST_ARCHITECTURE_H
#define SSLAT_HOST_ARCHITECTURE_H

#include "host/choose.h"
#include "host/interference.h"

/* Time of each architecture's network per sample, in ms: n programs alive
 * together, timed in the options' cache mode (host_measure_programs: hot =
 * each back to back, cold = interleaved), batches checked against
 * `interference` (may be NULL). Each
 * subgraph runs in the lowering choices holds for it (the one its table entry
 * was timed in), deciding it now when there is none. */
sslat_status host_measure_architectures(host_session *session, host_choices *choices, const sslat_space *space,
                                        const int32_t *const *archs, size_t n, const sslat_calc_options *options,
                                        volatile int *stop, host_interference *interference, double *ms,
                                        sslat_error *err);

#endif
