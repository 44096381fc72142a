/* End-to-end validation: whole architectures run as one network on the host
 * backend, against what the table predicts for them. */
#ifndef SSLAT_HOST_VALIDATE_H
#define SSLAT_HOST_VALIDATE_H

#include "calculator.h"
#include "validation.h"

typedef struct host_validation_row {
    char label[16];      /* "min", "max", "random 3" */
    int32_t *arch;       /* block_count indices (owned) */
    double predicted;    /* ms, from the table */
    double measured;     /* ms, whole network, per sample */
} host_validation_row;

typedef struct host_validation {
    int n;
    host_validation_row *rows;
    sslat_validation_summary summary;
} host_validation;

/* The argmin, the argmax and k uniformly random architectures (seeded). The
 * table must belong to the space. */
sslat_status host_validate(const sslat_space *space, const sslat_container *table,
                           const sslat_calc_options *options, int k, uint64_t seed,
                           host_validation *out, sslat_error *err);
void host_validation_release(host_validation *v);

#endif
