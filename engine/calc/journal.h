/* The append-only journal of a long measurement: one checksummed record per
 * finished work unit, synced as it goes, so a killed run resumes without
 * losing or repeating work. Format: records of u32 magic "SJRN", u32 length,
 * payload, u32 CRC-32 of the payload; the first payload is the run's header
 * (format version, fingerprint of space and options), the others a unit's
 * hash and entry. A torn last record is dropped on resume. */
#ifndef SSLAT_JOURNAL_H
#define SSLAT_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sslat.h"

typedef struct sslat_journal sslat_journal;

typedef struct sslat_journal_info {
    size_t recovered; /* unit records reused from an earlier run */
    bool torn;        /* a torn last record was dropped */
} sslat_journal_info;

/* Open path: resume re-reads it (its fingerprint must match), otherwise it is
 * started afresh. */
sslat_status sslat_journal_open(const char *path, bool resume, uint64_t fingerprint,
                                sslat_journal **out, sslat_journal_info *info, sslat_error *err);
/* The recorded entry of a unit, or NULL. */
const sslat_entry *sslat_journal_find(const sslat_journal *journal, uint64_t unit);
/* Append a unit's record and sync it to disk. */
sslat_status sslat_journal_append(sslat_journal *journal, uint64_t unit, const sslat_entry *entry,
                                  sslat_error *err);
/* Close; remove the file when the run is complete (keep: leave it). */
void sslat_journal_close(sslat_journal *journal, bool remove_file);

#endif
