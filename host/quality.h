/* The cpu table's quality verdict (measure/quality.h) from what the session
 * saw (host/interference.h) and the entries' spread: written to the metadata
 * (quality.*) and said on stderr in one line, which differs between a good and
 * a bad run. */
#ifndef SSLAT_HOST_QUALITY_H
#define SSLAT_HOST_QUALITY_H

#include "calc/options.h"
#include "host/interference.h"
#include "measure/quality.h"
#include "table/container.h"

/* What the watch has seen so far (ended: the end's look and calibration
 * too), the entries' spread left NAN. */
void host_quality_watch(const host_interference *interference, bool ended, sslat_quality_input *watch);

/* resumed: the worst watch of the records resumed from a journal, and how
 * many were judged that bad (NULL: none resumed, or none watched). */
sslat_status host_describe_quality(const host_interference *interference, const sslat_quality_input *resumed,
                                   size_t resumed_at_worst, bool progress, sslat_container *table, sslat_error *err);

#endif
