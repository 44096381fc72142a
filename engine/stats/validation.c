#include "stats/validation.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/hash.h"
#include "base/order.h"
#include "base/progress.h"
#include "base/rng.h"
#include "stats/fits.h"
#include "table/container.h"

/* Architectures measured together (a cpu backend interleaves them; each is a
 * whole network alive in memory meanwhile). */
enum { VALIDATION_CHUNK = 8 };

static int sign(double x) { return (x > 0) - (x < 0); }

double sslat_kendall_tau(const double *x, const double *y, size_t n)
{
    /* tau-b: (concordant − discordant) / sqrt((pairs − ties in x)(pairs − ties in y)) */
    double concordant = 0, discordant = 0, ties_x = 0, ties_y = 0, pairs = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            int a = sign(x[i] - x[j]), b = sign(y[i] - y[j]);
            pairs++;
            if (a == 0) ties_x++;
            if (b == 0) ties_y++;
            if (a * b > 0) concordant++;
            else if (a * b < 0) discordant++;
        }
    double denominator = sqrt((pairs - ties_x) * (pairs - ties_y));
    return denominator > 0 ? (concordant - discordant) / denominator : NAN;
}

sslat_validation_summary sslat_validation_summarize(const double *predicted, const double *measured,
                                                    size_t n)
{
    sslat_validation_summary s = {0, 0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        double error = (predicted[i] - measured[i]) / measured[i];
        s.mape += fabs(error);
        s.bias += error;
        s.within_5 += fabs(error) <= 0.05;
        s.within_10 += fabs(error) <= 0.10;
    }
    if (n > 0) {
        s.mape /= (double)n;
        s.bias /= (double)n;
        s.within_5 /= (double)n;
        s.within_10 /= (double)n;
    }
    s.kendall_tau = sslat_kendall_tau(predicted, measured, n);
    if (isnan(s.kendall_tau)) s.kendall_tau = 0;
    return s;
}

typedef struct ranked {
    double value;
    size_t index;
} ranked;

static int by_value(const void *a, const void *b)
{
    double x = ((const ranked *)a)->value, y = ((const ranked *)b)->value;
    return (x > y) - (x < y);
}

/* Ranks 1..n with ties given their average rank. */
static bool average_ranks(const double *x, size_t n, double *rank)
{
    ranked *order = malloc((n + 1) * sizeof *order);
    if (!order) return false;
    for (size_t i = 0; i < n; i++) order[i] = (ranked){x[i], i};
    qsort(order, n, sizeof *order, by_value);
    for (size_t start = 0; start < n;) {
        size_t end = start + 1;
        while (end < n && order[end].value == order[start].value) end++;
        double average = (double)(start + end + 1) / 2.0; /* mean of ranks start+1 … end */
        for (size_t k = start; k < end; k++) rank[order[k].index] = average;
        start = end;
    }
    free(order);
    return true;
}

double sslat_spearman_rho(const double *x, const double *y, size_t n)
{
    if (n < 2) return NAN;
    double *rx = malloc(n * sizeof *rx), *ry = malloc(n * sizeof *ry);
    double rho = NAN;
    if (rx && ry && average_ranks(x, n, rx) && average_ranks(y, n, ry)) {
        /* Pearson correlation of the ranks (exact with ties) */
        double mean = (double)(n + 1) / 2.0, sxy = 0, sxx = 0, syy = 0;
        for (size_t i = 0; i < n; i++) {
            sxy += (rx[i] - mean) * (ry[i] - mean);
            sxx += (rx[i] - mean) * (rx[i] - mean);
            syy += (ry[i] - mean) * (ry[i] - mean);
        }
        rho = sxx > 0 && syy > 0 ? sxy / sqrt(sxx * syy) : NAN;
    }
    free(rx);
    free(ry);
    return rho;
}

/* ---- bootstrap intervals ------------------------------------------------------------ */

/* Where a bootstrap's resamples come from, apart from the validation's draws. */
#define BOOTSTRAP_SEED_STREAM 0x626f6f7473747261ULL /* "bootstra" */

int32_t sslat_bootstrap_resamples(size_t n)
{
    if (n <= 1000) return 1000;
    double budget = 1e9 / ((double)n * (double)n); /* pairs a resample's tau visits */
    return budget < 100 ? 100 : (int32_t)budget;
}

/* The q-quantile of sorted values (linear between neighbours); NaNs sorted
 * out first: a resample with a constant side has no rank figure. */
static double quantile_of(double *values, size_t n, double q)
{
    size_t finite = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(values[i])) values[finite++] = values[i];
    if (finite == 0) return NAN;
    qsort(values, finite, sizeof *values, sslat_compare_doubles);
    double at = q * (double)(finite - 1);
    size_t below = (size_t)at;
    if (below + 1 >= finite) return values[finite - 1];
    return values[below] + (at - (double)below) * (values[below + 1] - values[below]);
}

static void interval_from(double value, double *resampled, size_t n, sslat_interval *out)
{
    out->value = value;
    out->low = quantile_of(resampled, n, 0.025);
    out->high = quantile_of(resampled, n, 0.975);
}

sslat_status sslat_rank_figures_compute(const double *predicted, const double *macs, const double *measured,
                                        size_t n, int32_t resamples, uint64_t seed, sslat_rank_figures *out,
                                        sslat_error *err)
{
    const sslat_interval none = {NAN, NAN, NAN};
    *out = (sslat_rank_figures){none, none, none, none, none, 0};
    if (n < 2) return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "rank figures need two architectures, got %zu", n);
    if (n > UINT32_MAX || resamples < 1)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "%zu rows, %d resamples: out of range", n, (int)resamples);
    size_t r = n < SSLAT_INTERVAL_MIN_ROWS ? 0 : (size_t)resamples; /* no interval from a handful of rows */
    double *x = malloc(n * sizeof *x), *m = malloc(n * sizeof *m), *y = malloc(n * sizeof *y);
    double *tau = malloc(r * sizeof *tau + 1), *rho = malloc(r * sizeof *rho + 1);
    double *mac_tau = malloc(r * sizeof *mac_tau + 1), *mac_rho = malloc(r * sizeof *mac_rho + 1);
    double *difference = malloc(r * sizeof *difference + 1);
    sslat_status status = SSLAT_OK;
    if (!x || !m || !y || !tau || !rho || !mac_tau || !mac_rho || !difference)
        status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    sslat_rng rng;
    sslat_rng_seed(&rng, seed ^ BOOTSTRAP_SEED_STREAM);
    for (size_t b = 0; status == SSLAT_OK && b < r; b++) {
        for (size_t i = 0; i < n; i++) { /* the same rows for the table and the MACs: a paired resample */
            size_t pick = sslat_rng_below(&rng, (uint32_t)n);
            x[i] = predicted[pick];
            y[i] = measured[pick];
            m[i] = macs ? macs[pick] : 0;
        }
        tau[b] = sslat_kendall_tau(x, y, n);
        rho[b] = sslat_spearman_rho(x, y, n);
        mac_tau[b] = macs ? sslat_kendall_tau(m, y, n) : NAN;
        mac_rho[b] = macs ? sslat_spearman_rho(m, y, n) : NAN;
        difference[b] = tau[b] - mac_tau[b];
    }
    if (status == SSLAT_OK) {
        double t = sslat_kendall_tau(predicted, measured, n);
        interval_from(t, tau, r, &out->tau);
        interval_from(sslat_spearman_rho(predicted, measured, n), rho, r, &out->rho);
        if (macs) {
            double mt = sslat_kendall_tau(macs, measured, n);
            interval_from(mt, mac_tau, r, &out->mac_tau);
            interval_from(sslat_spearman_rho(macs, measured, n), mac_rho, r, &out->mac_rho);
            interval_from(t - mt, difference, r, &out->tau_minus_mac);
        }
        out->resamples = (int32_t)r;
    }
    free(x);
    free(m);
    free(y);
    free(tau);
    free(rho);
    free(mac_tau);
    free(mac_rho);
    free(difference);
    return status;
}

sslat_versus_macs sslat_rank_versus_macs(const sslat_rank_figures *r)
{
    const sslat_interval *d = &r->tau_minus_mac;
    if (isnan(d->value) || isnan(d->low) || isnan(d->high)) return SSLAT_VS_MACS_UNKNOWN;
    return d->high < 0 ? SSLAT_VS_MACS_WORSE : d->low > 0 ? SSLAT_VS_MACS_BETTER : SSLAT_VS_MACS_ALIKE;
}

const char *sslat_versus_macs_name(sslat_versus_macs verdict)
{
    static const char *const NAMES[] = {"unknown", "worse", "better", "indistinguishable"};
    return NAMES[verdict];
}

/* ---- the architectures ------------------------------------------------------------ */

void sslat_validation_release(sslat_validation *v)
{
    for (int i = 0; v->rows && i < v->n; i++) free(v->rows[i].arch);
    free(v->rows);
    memset(v, 0, sizeof *v);
}

static double arch_sum(const sslat_container *table, const int32_t *arch, int32_t blocks)
{
    double sum = sslat_container_constant_latency(table);
    for (int32_t b = 0; b < blocks; b++) sum += sslat_container_latency(table, b, arch[b]);
    return sum;
}

/* An architecture whose predicted latency lies in [low, high]: a random
 * start, then blocks in a random order, each moved to the candidate that
 * brings the sum closest to a target drawn in the band, until the sum is in
 * it (a few passes at most: the closest found when the band holds none). The
 * random start and order keep the draws of one band apart. */
static void draw_in_band(const sslat_container *table, int32_t blocks, double low, double high, sslat_rng *rng,
                         int32_t *arch, int32_t *order)
{
    for (int32_t b = 0; b < blocks; b++)
        arch[b] = (int32_t)sslat_rng_below(rng, (uint32_t)sslat_container_candidate_count(table, b));
    double target = low + (high - low) * ((double)(sslat_rng_next(rng) >> 11) / 9007199254740992.0);
    double sum = arch_sum(table, arch, blocks);
    for (int pass = 0; pass < 4 && !(sum >= low && sum <= high); pass++) {
        for (int32_t b = 0; b < blocks; b++) order[b] = b;
        for (int32_t b = blocks - 1; b > 0; b--) { /* Fisher–Yates */
            int32_t j = (int32_t)sslat_rng_below(rng, (uint32_t)b + 1), t = order[b];
            order[b] = order[j];
            order[j] = t;
        }
        for (int32_t i = 0; i < blocks && !(sum >= low && sum <= high); i++) {
            int32_t b = order[i], best = arch[b];
            double without = sum - sslat_container_latency(table, b, arch[b]);
            for (int32_t c = 0; c < sslat_container_candidate_count(table, b); c++)
                if (fabs(without + sslat_container_latency(table, b, c) - target) <
                    fabs(without + sslat_container_latency(table, b, best) - target))
                    best = c;
            arch[b] = best;
            sum = without + sslat_container_latency(table, b, best);
        }
    }
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* How many distinct architectures exclude holds (a context fit may draw one
 * twice), by their hashes. */
static int32_t count_distinct(const sslat_validation_exclude *exclude, int32_t blocks)
{
    uint64_t *hashes = malloc((exclude->n + 1) * sizeof *hashes);
    if (!hashes) return (int32_t)exclude->n;
    for (size_t e = 0; e < exclude->n; e++) {
        sslat_hasher h;
        sslat_hash_begin(&h);
        sslat_hash_bytes(&h, exclude->archs + e * (size_t)blocks, (size_t)blocks * sizeof *exclude->archs);
        hashes[e] = h.state;
    }
    qsort(hashes, exclude->n, sizeof *hashes, by_u64);
    int32_t distinct = 0;
    for (size_t e = 0; e < exclude->n; e++) distinct += e == 0 || hashes[e] != hashes[e - 1];
    free(hashes);
    return distinct;
}

/* Whether arch is one of the n rows already planned or of exclude. */
static bool already_there(const sslat_validation *v, int n, const sslat_validation_exclude *exclude,
                          const int32_t *arch, int32_t blocks, bool *excluded)
{
    size_t size = (size_t)blocks * sizeof *arch;
    *excluded = false;
    for (int r = 0; r < n; r++)
        if (!memcmp(v->rows[r].arch, arch, size)) return true;
    for (size_t e = 0; exclude && e < exclude->n; e++)
        if (!memcmp(exclude->archs + e * (size_t)blocks, arch, size)) return *excluded = true;
    return false;
}

/* Draws for a band: the first new one inside it ends the search; after all
 * of them the closest new one stands in (a gap in the range), and a band with
 * no new one at all is left out (a small space, or one the fit covered). */
enum { DRAWS_PER_BAND = 32 };

sslat_status sslat_validation_plan(const sslat_space *space, const sslat_container *table, int k, uint64_t seed,
                                   const sslat_validation_exclude *exclude, sslat_validation *out, sslat_error *err)
{
    memset(out, 0, sizeof *out);
    sslat_status fits = sslat_table_fits_space(table, space, err);
    if (fits == SSLAT_OK) fits = sslat_container_require_complete(table, err);
    if (fits != SSLAT_OK) return fits;
    if (k < 0 || k > 10000) return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "k = %d is outside 0..10000", k);
    int32_t blocks = sslat_space_block_count(space);
    out->rows = calloc((size_t)k + 2, sizeof *out->rows);
    int32_t *arch = calloc((size_t)blocks + 1, sizeof *arch), *order = calloc((size_t)blocks + 1, sizeof *order);
    int32_t *candidate = calloc((size_t)blocks + 1, sizeof *candidate);
    out->asked = k;
    out->seed = seed;
    out->left_out = exclude ? count_distinct(exclude, sslat_space_block_count(space)) : 0;
    sslat_status status = out->rows && arch && order && candidate ? SSLAT_OK : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    double low = 0, high = 0;
    if (status == SSLAT_OK) status = sslat_min_latency(table, &low, err);
    if (status == SSLAT_OK) status = sslat_max_latency(table, &high, err);
    if (status == SSLAT_OK && !(isfinite(low) && isfinite(high)))
        status = sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "the table's sums overflow a double (min %g, max %g): "
                            "no latency to compare", low, high);
    sslat_rng rng;
    sslat_rng_seed(&rng, seed);
    for (int r = 0; status == SSLAT_OK && r < k + 2; r++) {
        bool found = false, excluded = false;
        if (r < 2) { /* the two ends, exactly */
            status = r == 0 ? sslat_argmin_arch(table, arch, blocks, err) : sslat_argmax_arch(table, arch, blocks, err);
            found = status == SSLAT_OK && !already_there(out, out->n, exclude, arch, blocks, &excluded);
            out->held_out += excluded;
        } else {
            /* new architectures only; the first inside the band, else the closest to it of all draws */
            double width = (high - low) / k, band_low = low + (r - 2) * width;
            double band_high = r - 2 == k - 1 ? high : band_low + width, closest = INFINITY;
            for (int draw = 0; closest > 0 && draw < DRAWS_PER_BAND; draw++) {
                draw_in_band(table, blocks, band_low, band_high, &rng, candidate, order);
                if (already_there(out, out->n, exclude, candidate, blocks, &excluded)) {
                    out->held_out += excluded;
                    continue;
                }
                double sum = arch_sum(table, candidate, blocks);
                double distance = sum < band_low ? band_low - sum : sum > band_high ? sum - band_high : 0;
                if (distance < closest) {
                    closest = distance;
                    memcpy(arch, candidate, (size_t)blocks * sizeof *arch);
                    found = true;
                }
            }
        }
        if (!found) continue;
        sslat_validation_row *row = &out->rows[out->n];
        row->arch = malloc(((size_t)blocks + 1) * sizeof *row->arch);
        if (!row->arch) {
            status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
            break;
        }
        memcpy(row->arch, arch, (size_t)blocks * sizeof *arch);
        row->macs = NAN;
        if (r < 2) snprintf(row->label, sizeof row->label, "%s", r == 0 ? "min" : "max");
        else snprintf(row->label, sizeof row->label, "stratum %d", r - 2);
        out->n++;
        status = sslat_current_latency(table, row->arch, blocks, &row->predicted, err);
    }
    free(arch);
    free(order);
    free(candidate);
    if (status != SSLAT_OK) sslat_validation_release(out);
    return status;
}

sslat_status sslat_validation_finish(sslat_validation *v, sslat_error *err)
{
    size_t n = (size_t)v->n;
    double *predicted = malloc(n * sizeof *predicted + 1), *measured = malloc(n * sizeof *measured + 1);
    double *macs = malloc(n * sizeof *macs + 1);
    sslat_status status = predicted && measured && macs ? SSLAT_OK : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    bool counted = true;
    if (status == SSLAT_OK && v->n < 2)
        status = sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "%d architecture%s to compare: a validation needs two "
                            "distinct ones the table was not fitted to", v->n, v->n == 1 ? "" : "s");
    for (int r = 0; status == SSLAT_OK && r < v->n; r++) {
        if (!(v->rows[r].measured > 0))
            status = sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "architecture '%s' measured %g ms: a relative error "
                                "needs a positive time (an architecture that runs nothing, every block a skip, has "
                                "none to compare)", v->rows[r].label, v->rows[r].measured);
        predicted[r] = v->rows[r].predicted;
        measured[r] = v->rows[r].measured;
        macs[r] = v->rows[r].macs;
        counted = counted && isfinite(macs[r]);
    }
    if (status == SSLAT_OK) v->summary = sslat_validation_summarize(predicted, measured, n);
    if (status == SSLAT_OK)
        status = sslat_rank_figures_compute(predicted, counted ? macs : NULL, measured, n,
                                            sslat_bootstrap_resamples(n), v->seed, &v->ranks, err);
    free(predicted);
    free(measured);
    free(macs);
    return status;
}

sslat_status sslat_validation_count_macs(sslat_validation *v, const sslat_container *macs, sslat_error *err)
{
    sslat_status status = SSLAT_OK;
    for (int r = 0; status == SSLAT_OK && r < v->n; r++)
        status = sslat_current_latency(macs, v->rows[r].arch, sslat_container_block_count(macs), &v->rows[r].macs,
                                       err);
    return status;
}

sslat_status sslat_validate_architectures(const sslat_space *space, const sslat_container *table, int k,
                                          uint64_t seed, const sslat_validation_exclude *exclude,
                                          const sslat_container *macs, bool progress,
                                          sslat_measure_architectures_fn measure, void *context,
                                          sslat_validation *out, sslat_error *err)
{
    sslat_status status = sslat_validation_plan(space, table, k, seed, exclude, out, err);
    if (status == SSLAT_OK && macs) status = sslat_validation_count_macs(out, macs, err);
    sslat_progress p;
    sslat_progress_begin(&p, progress && status == SSLAT_OK, "[validate]", "architectures", (size_t)out->n);
    for (int first = 0; status == SSLAT_OK && first < out->n; first += VALIDATION_CHUNK) {
        const int32_t *archs[VALIDATION_CHUNK];
        double ms[VALIDATION_CHUNK];
        int size = out->n - first < VALIDATION_CHUNK ? out->n - first : VALIDATION_CHUNK;
        for (int r = 0; r < size; r++) archs[r] = out->rows[first + r].arch;
        status = measure(context, space, archs, (size_t)size, ms, err);
        for (int r = 0; status == SSLAT_OK && r < size; r++) out->rows[first + r].measured = ms[r];
        if (status == SSLAT_OK) sslat_progress_step(&p, (size_t)(first + size));
    }
    if (status == SSLAT_OK) status = sslat_validation_finish(out, err);
    if (status != SSLAT_OK) sslat_validation_release(out);
    return status;
}
