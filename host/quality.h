/* The cpu table's quality verdict (measure/quality.h) from what the session
 * saw (host/interference.h) and the entries' spread: written to the metadata
 * (quality.*) and said on stderr in one line, which differs between a good and
 * a bad run. */
#ifndef SSLAT_HOST_QUALITY_H
#define SSLAT_HOST_QUALITY_H

#include "calc/options.h"
#include "host/interference.h"
#include "table/container.h"

sslat_status host_describe_quality(const host_interference *interference, bool progress,
                                   sslat_container *table, sslat_error *err);

#endif
