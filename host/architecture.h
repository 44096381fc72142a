/* End-to-end validation: whole architectures run as one network on the host
 * backend, against what the table predicts for them. */
#ifndef SSLAT_HOST_VALIDATE_H
#define SSLAT_HOST_VALIDATE_H

#include "calculator.h"
#include "validation.h"

#endif
