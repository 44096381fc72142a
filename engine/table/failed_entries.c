/* Entries a run could not measure (sslat measure --keep-going): listed in the
 * table's metadata so no statistic, merge or validation mistakes the table
 * for a complete one, and so the exports can show them as not measured.
 *   quality.failed_entries  "3:1,constant,7:0" (block:candidate; constant for
 *                           a fixed layer), or ending in "..." when too many
 *                           to list (then every entry counts as failed)
 *   failed.LAYER:CANDIDATE  why, for the first few */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/limits.h"
#include "table/container.h"

#define FAILED_LIST "quality.failed_entries"
#define FAILED_UNITS "quality.failed_units"
enum { FAILED_MESSAGES = 32 }; /* failed.* keys: the metadata holds at most SSLAT_MAX_META pairs */

/* An entry's item in the list: "block:candidate", or "constant" for a fixed layer. */
static void failed_token(int32_t block, int32_t candidate, char token[48])
{
    if (block < 0) snprintf(token, 48, "constant");
    else snprintf(token, 48, "%d:%d", block, candidate);
}

/* A list cut when it grew too long: every entry counts as failed. */
static bool list_cut(const char *list)
{
    size_t used = strlen(list);
    return used >= 3 && !strcmp(list + used - 3, "...");
}

/* Whether every item is "constant" or "block:candidate" (digits), "..."
 * last: a list that is not (hand-edited metadata) counts every entry as
 * failed, so no failed entry is read as a latency. */
static bool list_well_formed(const char *list)
{
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        bool ok = (n == 8 && !strncmp(p, "constant", 8)) || (!end && n == 3 && !strncmp(p, "...", 3));
        if (!ok) {
            size_t digits = 0, colon = 0, at = 0;
            for (; at < n && p[at] >= '0' && p[at] <= '9'; at++) digits++;
            if (at < n && p[at] == ':') colon = ++at;
            size_t more = 0;
            for (; at < n && p[at] >= '0' && p[at] <= '9'; at++) more++;
            ok = digits && colon && more && at == n;
        }
        if (!ok) return false;
        if (!end) break;
        p = end + 1;
    }
    return true;
}

sslat_status sslat_container_mark_failed(sslat_container *c, int32_t block, int32_t candidate, const char *layer,
                                         const char *label, const char *message, sslat_error *err)
{
    if (sslat_container_entry_failed(c, block, candidate)) return SSLAT_OK; /* listed once (or the list is cut) */
    const char *list = sslat_container_metadata(c, FAILED_LIST);
    size_t used = list ? strlen(list) : 0;
    char token[48];
    failed_token(block, candidate, token);
    size_t size = used + strlen(token) + 8;
    char *grown = malloc(size);
    if (!grown) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    if (size > SSLAT_MAX_STRING) snprintf(grown, size, "%s,...", list);
    else snprintf(grown, size, "%s%s%s", list ? list : "", list ? "," : "", token);
    int32_t listed = 1;
    for (const char *p = grown; *p; p++) listed += *p == ',';
    sslat_status status = sslat_container_set_metadata(c, FAILED_LIST, grown, err);
    free(grown);
    if (status != SSLAT_OK || listed > FAILED_MESSAGES || !message) return status;
    size_t key_size = strlen(layer) + strlen(label) + 16;
    char *key = malloc(key_size);
    if (!key) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    snprintf(key, key_size, "failed.%s:%s", layer, label);
    status = sslat_container_set_metadata(c, key, message, err);
    free(key);
    return status;
}

sslat_status sslat_container_set_failed_units(sslat_container *c, size_t units, sslat_error *err)
{
    char text[32];
    snprintf(text, sizeof text, "%zu", units);
    return sslat_container_set_metadata(c, FAILED_UNITS, text, err);
}

const char *sslat_container_failed_units(const sslat_container *c)
{
    const char *units = c ? sslat_container_metadata(c, FAILED_UNITS) : NULL;
    return units ? units : "some";
}

bool sslat_container_has_failed_entries(const sslat_container *c)
{
    const char *list = c ? sslat_container_metadata(c, FAILED_LIST) : NULL;
    return list && *list;
}

bool sslat_container_entry_failed(const sslat_container *c, int32_t block, int32_t candidate)
{
    const char *list = c ? sslat_container_metadata(c, FAILED_LIST) : NULL;
    if (!list || !*list) return false;
    if (list_cut(list) || !list_well_formed(list)) return true;
    char token[48];
    failed_token(block, candidate, token);
    size_t n = strlen(token);
    for (const char *p = list; *p;) {
        const char *end = strchr(p, ',');
        size_t item = end ? (size_t)(end - p) : strlen(p);
        if (item == n && !strncmp(p, token, n)) return true;
        if (!end) break;
        p = end + 1;
    }
    return false;
}

sslat_status sslat_container_require_complete(const sslat_container *c, sslat_error *err)
{
    /* the CUDA stand-in of the tests times nothing: its values are scripted constants */
    const char *standin = sslat_container_metadata(c, "standin");
    if (standin)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                          "the table was made by the CUDA stand-in device of sslat's tests (%s): its values are "
                          "no latencies",
                          standin);
    sslat_status whole = sslat_container_require_whole(c, err);
    if (whole != SSLAT_OK || !sslat_container_has_failed_entries(c)) return whole;
    const char *units = sslat_container_failed_units(c);
    return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                      "the table is incomplete: %s unit%s failed in the run that made it (sslat measure "
                      "--keep-going; quality.failed_entries, failed.* in its metadata): measure them with the "
                      "same command and --resume",
                      units, !strcmp(units, "1") ? "" : "s");
}

sslat_status sslat_container_check_complete(const sslat_container *c, sslat_error *err)
{
    sslat_error_clear(err);
    if (!c) return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "container must not be NULL");
    return sslat_container_require_complete(c, err);
}

int sslat_container_entry_is_failed(const sslat_container *c, int32_t block, int32_t candidate)
{
    return sslat_container_entry_failed(c, block, candidate);
}
