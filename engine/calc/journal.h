/* The append-only journal of a long measurement: one checksummed record per
 * finished work unit, synced after each chunk of units, so a killed run
 * resumes without losing or repeating work. Format (version 2): records of u32
 * magic "SJRN", u32 payload length, payload, u32 CRC-32 of the payload; the
 * first payload is the run's header (format version, fingerprint of space,
 * calculator, options and machine), every other one a unit's (the
 * fingerprint again, the unit's hash, its entry, and what the run's machine
 * watch had seen when it was written): 24 bytes, then 168 a unit. A resumed
 * table is judged on its own run and on its resumed records' watch, so a
 * disturbed record stays disturbed on a quiet machine.
 *
 * One run writes a journal at a time: it is locked (flock) for the run, opened
 * without following a symbolic link, and must be a regular file. On resume a
 * damaged unit record is skipped alone (the records are of one size), a record
 * of another run is skipped, a torn tail is dropped; a damaged header refuses
 * the resume (nothing in it can be trusted). */
#ifndef SSLAT_JOURNAL_H
#define SSLAT_JOURNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "measure/quality.h"
#include "sslat.h"

typedef struct sslat_journal sslat_journal;

typedef enum sslat_journal_mode {
    SSLAT_JOURNAL_NEW,     /* a fresh run: refused when the file holds an earlier run's work */
    SSLAT_JOURNAL_RESUME,  /* re-use the records of the same run */
    SSLAT_JOURNAL_RESTART, /* discard whatever the file holds */
} sslat_journal_mode;

typedef struct sslat_journal_info {
    size_t recovered; /* unit records reused from an earlier run */
    size_t damaged;   /* unit records skipped because their checksum failed */
    size_t foreign;   /* unit records of another run, skipped */
    long first_damaged; /* index (0 = the first unit record) of the first damaged one, or -1 */
    bool torn;        /* a torn last record was dropped */
} sslat_journal_info;

/* Open (and lock) path in the given mode. */
sslat_status sslat_journal_open(const char *path, sslat_journal_mode mode, uint64_t fingerprint,
                                sslat_journal **out, sslat_journal_info *info, sslat_error *err);
/* The recorded entry of a unit, or NULL. */
const sslat_entry *sslat_journal_find(const sslat_journal *journal, uint64_t unit);
/* Append a unit's record (written now, synced by sslat_journal_sync), with
 * the run's machine watch so far (NULL: the calculator keeps none). */
sslat_status sslat_journal_append(sslat_journal *journal, uint64_t unit, const sslat_entry *entry,
                                  const sslat_quality_input *watch, sslat_error *err);
/* The resumed records' watch judged worst (its entries' spread NAN) and how
 * many records were judged as bad; false when no resumed record carries a
 * watch. */
bool sslat_journal_resumed_watch(const sslat_journal *journal, sslat_quality_input *worst, size_t *at_worst);
/* Sync the records appended so far to disk. */
sslat_status sslat_journal_sync(sslat_journal *journal, sslat_error *err);
/* Close and unlock; remove the file when the run is complete (keep: leave it). */
void sslat_journal_close(sslat_journal *journal, bool remove_file);
/* Units the journal holds (recovered and appended). */
size_t sslat_journal_count(const sslat_journal *journal);

#endif
