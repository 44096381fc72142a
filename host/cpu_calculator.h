/* What the cpu calculator is, shared by its table entry (host/cpu_calculator.c)
 * and the stub of builds without oneDNN (host/cpu_stub.c), so the two never
 * describe it differently. */
#ifndef SSLAT_CPU_CALCULATOR_H
#define SSLAT_CPU_CALCULATOR_H

#include "calc/calculator.h"

#define SSLAT_CPU_CALCULATOR_IDENTITY                                                        \
    .api_version = SSLAT_CALCULATOR_API_VERSION, .name = "cpu", .kind = SSLAT_CALC_TIMED,    \
    .summary = "oneDNN primitives timed on this CPU (fused conv+BN+act by default)",         \
    .dtypes = SSLAT_DTYPE_BIT(SSLAT_DTYPE_FP32), .options_read = SSLAT_READS_COLD | SSLAT_READS_REPLICAS

#endif
