/* Merging the parts of a sharded run (Slurm job arrays) into one table. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/limits.h"
#include "table/container.h"

int32_t sslat_container_shard(const sslat_container *c, int32_t *index, int32_t *count)
{
    if (!c || !c->shard) return 0;
    if (index) *index = c->shard->index;
    if (count) *count = c->shard->count;
    return 1;
}

/* Every calculator.* option, the dtype, the layout, the cuDNN API and the latency type must agree. */
static sslat_status same_run(const sslat_container *a, const sslat_container *b, size_t k,
                             sslat_error *err)
{
    if (a->space_hash != b->space_hash)
        return sslat_fail(err, SSLAT_ERR_SPACE, "part %zu is from space '%s' (hash %016llx), part 0 from '%s' (hash %016llx)",
                          k, b->space_name, (unsigned long long)b->space_hash, a->space_name,
                          (unsigned long long)a->space_hash);
    if (strcmp(sslat_container_latency_type(a), sslat_container_latency_type(b)) != 0)
        return sslat_fail(err, SSLAT_ERR_SPACE, "part %zu is a '%s' table, part 0 a '%s' table", k,
                          sslat_container_latency_type(b), sslat_container_latency_type(a));
    if (a->shard->count != b->shard->count || a->shard->n_fixed != b->shard->n_fixed || a->n_blocks != b->n_blocks)
        return sslat_fail(err, SSLAT_ERR_SPACE, "part %zu is shard %d/%d, part 0 shard %d/%d of another layout",
                          k, b->shard->index, b->shard->count, a->shard->index, a->shard->count);
    /* a matching hash is no proof of a matching layout: every count is compared */
    for (int32_t block = 0; block < a->n_blocks; block++)
        if (a->n_candidates[block] != b->n_candidates[block])
            return sslat_fail(err, SSLAT_ERR_SPACE, "part %zu has %d candidates in block %d, part 0 has %d", k,
                              b->n_candidates[block], block, a->n_candidates[block]);
    const struct { const sslat_container *x, *y; } both[2] = {{a, b}, {b, a}};
    for (int side = 0; side < 2; side++)
        for (int32_t i = 0; i < both[side].x->n_meta; i++) {
            const char *key = both[side].x->meta[i].key;
            if (strncmp(key, "calculator.", 11) != 0 && strcmp(key, "dtype") != 0 && strcmp(key, "layout") != 0 &&
                strcmp(key, "cuda.api") != 0)
                continue;
            const char *other = sslat_container_metadata(both[side].y, key);
            if (!other || strcmp(other, both[side].x->meta[i].value) != 0)
                return sslat_fail(err, SSLAT_ERR_SPACE, "part %zu was measured with other options: %s is '%s' in one part and '%s' in the other",
                                  k, key, both[side].x->meta[i].value, other ? other : "(absent)");
        }
    return SSLAT_OK;
}

static sslat_status check_shards(const sslat_container *const *parts, size_t n, sslat_error *err)
{
    int32_t count = parts[0]->shard->count;
    int32_t *seen = calloc((size_t)count, sizeof *seen);
    if (!seen) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    for (size_t k = 0; k < n; k++) seen[parts[k]->shard->index]++;
    char missing[256] = "", twice[256] = "";
    for (int32_t s = 0; s < count; s++) {
        char item[24];
        snprintf(item, sizeof item, "%s%d/%d", "", s, count);
        char *list = seen[s] == 0 ? missing : seen[s] > 1 ? twice : NULL;
        if (list && strlen(list) + strlen(item) + 3 < sizeof missing) {
            if (*list) strcat(list, ", ");
            strcat(list, item);
        }
    }
    free(seen);
    if (*missing || *twice)
        return sslat_fail(err, SSLAT_ERR_SPACE, "shards do not cover the run exactly once:%s%s%s%s",
                          *missing ? " missing " : "", missing, *twice ? "; given twice " : "", twice);
    return SSLAT_OK;
}

/* Part k's metadata into the merged table (part 0's copy): keys it lacks are
 * added; a value that differs becomes "part 0: A; part k: B". */
static sslat_status merge_metadata(sslat_container *whole, const sslat_container *const *parts, size_t k,
                                   sslat_error *err)
{
    const sslat_container *part = parts[k];
    sslat_status status = SSLAT_OK;
    for (int32_t i = 0; status == SSLAT_OK && i < part->n_meta; i++) {
        const char *key = part->meta[i].key, *value = part->meta[i].value;
        const char *have = sslat_container_metadata(whole, key);
        if (!have) {
            /* per-unit detail (cpu.impl.L…) of many parts may outgrow the metadata limit: it gives way */
            if (sslat_container_metadata_count(whole) >= SSLAT_MAX_META - 32 && !strncmp(key, "cpu.impl.L", 10)) continue;
            status = sslat_container_set_metadata(whole, key, value, err);
            continue;
        }
        if (!strcmp(have, value)) continue;
        /* "part 0: A" the first time two parts differ, then "; part k: B" */
        size_t size = strlen(have) + strlen(value) + 64;
        char *joined = malloc(size);
        if (!joined) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
        if (!strncmp(have, "part 0: ", 8)) snprintf(joined, size, "%s; part %zu: %s", have, k, value);
        else snprintf(joined, size, "part 0: %s; part %zu: %s", have, k, value);
        if (strlen(joined) >= SSLAT_MAX_STRING) joined[SSLAT_MAX_STRING - 1] = '\0';
        status = sslat_container_set_metadata(whole, key, joined, err);
        free(joined);
    }
    return status;
}

sslat_status sslat_container_merge(const sslat_container *const *parts, size_t n,
                                   sslat_container **out, sslat_error *error)
{
    sslat_error_clear(error);
    if (!parts || n == 0 || !out) return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "no parts to merge");
    *out = NULL;
    for (size_t k = 0; k < n; k++)
        if (!parts[k] || !parts[k]->shard)
            return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT, "part %zu is a whole table, not a shard's part", k);
    for (size_t k = 0; k < n; k++) /* a merged table would look complete */
        if (sslat_container_has_failed_entries(parts[k]))
            return sslat_fail(error, SSLAT_ERR_INVALID_ARGUMENT,
                              "part %zu is incomplete: %s unit(s) failed in its run (--keep-going): measure them "
                              "with that shard's command and --resume, then merge", k,
                              sslat_container_failed_units(parts[k]));
    sslat_status status = SSLAT_OK;
    for (size_t k = 1; status == SSLAT_OK && k < n; k++) status = same_run(parts[0], parts[k], k, error);
    if (status == SSLAT_OK) status = check_shards(parts, n, error);
    sslat_container *whole = NULL;
    if (status == SSLAT_OK) status = sslat_container_clone(parts[0], &whole, error);
    if (status != SSLAT_OK) return status;
    sslat_shard_part_free(whole->shard);
    whole->shard = NULL;

    /* every entry from the one part that measured it */
    int32_t entries = whole->offset[whole->n_blocks];
    for (int32_t i = 0; status == SSLAT_OK && i < entries; i++) {
        int owners = 0;
        for (size_t k = 0; k < n; k++)
            if (parts[k]->shard->present[i]) {
                whole->entries[i] = parts[k]->entries[i];
                owners++;
            }
        if (owners != 1) {
            int32_t b = 0;
            while (b + 1 < whole->n_blocks && whole->offset[b + 1] <= i) b++;
            status = sslat_fail(error, SSLAT_ERR_SPACE, "block %d candidate %d ('%s') is measured by %d parts (must be 1)",
                                b, i - whole->offset[b], sslat_container_candidate_label(whole, b, i - whole->offset[b]), owners);
        }
    }
    /* the constant part re-added in layer order, as a single run adds it */
    sslat_entry constant = sslat_entry_of_value(0.0);
    for (int32_t f = 0; status == SSLAT_OK && f < parts[0]->shard->n_fixed; f++) {
        int owners = 0;
        for (size_t k = 0; k < n; k++)
            if (parts[k]->shard->fixed_present[f]) {
                sslat_entry_accumulate(&constant, &parts[k]->shard->fixed[f], f == 0);
                owners++;
            }
        if (owners != 1)
            status = sslat_fail(error, SSLAT_ERR_SPACE, "fixed layer %d is measured by %d parts (must be 1)", f, owners);
    }
    char why[96];
    if (status == SSLAT_OK && !sslat_entry_valid(&constant, why, sizeof why)) /* found by fuzz_table_pair */
        status = sslat_fail(error, SSLAT_ERR_LIMIT, "the parts' fixed layers add up to a constant part that is no "
                            "valid entry (%s): their values are too large to add", why);
    if (status == SSLAT_OK) whole->constant = constant;
    /* what only later parts recorded (their units' implementations) joins the
     * table; what the parts recorded differently is kept per part, so a
     * reference kernel one shard found is never hidden by another's "none" */
    for (size_t k = 1; status == SSLAT_OK && k < n; k++) status = merge_metadata(whole, parts, k, error);
    char noise[160];
    sslat_container_noise_summary(whole, noise, sizeof noise);
    if (status == SSLAT_OK && sslat_container_metadata(whole, "quality.noisy_entries"))
        status = sslat_container_set_metadata(whole, "quality.noisy_entries", noise, error);
    char count[32];
    snprintf(count, sizeof count, "%zu shards", n);
    if (status == SSLAT_OK) status = sslat_container_set_metadata(whole, "merged", count, error);
    /* record every machine that measured a part when they differ */
    static const struct { const char *key, *warning; } MACHINES[] = {
        {"host.cpu", "parts were measured on different CPUs"}, {"device.name", "parts were measured on different GPUs"}};
    bool warned = false;
    for (size_t k = 1; status == SSLAT_OK && !warned && k < n; k++)
        for (size_t m = 0; status == SSLAT_OK && !warned && m < sizeof MACHINES / sizeof MACHINES[0]; m++) {
            const char *a = sslat_container_metadata(parts[0], MACHINES[m].key);
            const char *b = sslat_container_metadata(parts[k], MACHINES[m].key);
            if (a && b && strcmp(a, b) != 0) {
                status = sslat_container_set_metadata(whole, "merged.warning", MACHINES[m].warning, error);
                warned = true;
            }
        }
    if (status != SSLAT_OK) {
        sslat_container_free(whole);
        return status;
    }
    *out = whole;
    return SSLAT_OK;
}
