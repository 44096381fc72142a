/* Whether a table belongs to a space. The statistics index the space's
 * candidates with the table's counts (and the reverse), so a matching hash
 * alone is never taken to mean a matching layout: every count is checked too
 * (a table edited to one candidate more, with a valid checksum, read past the
 * end). When the hashes differ, the message says what does: the input
 * (another --batch / --resolution) or the layers. */
#ifndef SSLAT_STATS_FITS_H
#define SSLAT_STATS_FITS_H

#include "sslat.h"

sslat_status sslat_table_fits_space(const sslat_container *table, const sslat_space *space, sslat_error *err);

#endif
