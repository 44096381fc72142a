/* End-to-end validation: whole architectures run as one network on the host
 * backend, against what the table predicts for them. */
#ifndef SSLAT_HOST_VALIDATE_H
#define SSLAT_HOST_VALIDATE_H

#include "calculator.h"
#include "validation.h"

/* The argmin, the argmax and k uniformly random architectures (seeded). The
 * table must belong to the space. */
sslat_status host_validate(const sslat_space *space, const sslat_container *table,
                           const sslat_calc_options *options, int k, uint64_t seed,
                           sslat_validation *out, sslat_error *err);

#endif
