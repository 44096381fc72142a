/* A whole architecture (the constant part and the chosen candidates, in
 * order) run as one network on the cpu backend: the measure_architecture slot
 * behind `sslat validate -c cpu`. */
#ifndef SSLAT_HOST_ARCHITECTURE_H
#define SSLAT_HOST_ARCHITECTURE_H

#include "host/program.h"

/* Time of the network per sample, in ms. */
sslat_status host_measure_architecture(const host_session *session, const sslat_space *space,
                                       const int32_t *arch, const sslat_calc_options *options, double *ms,
                                       sslat_error *err);

#endif
