#include "stats/validation.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/progress.h"
#include "base/rng.h"
#include "stats/fits.h"
#include "table/container.h"

/* Architectures measured together (a cpu backend interleaves them; each is a
 * whole network alive in memory meanwhile). */
enum { VALIDATION_CHUNK = 8 };

static int sign(double x) { return (x > 0) - (x < 0); }

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
    /* tau-b: (concordant − discordant) / sqrt((pairs − ties in x)(pairs − ties in y)) */
    double concordant = 0, discordant = 0, ties_x = 0, ties_y = 0, pairs = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++) {
            int a = sign(predicted[i] - predicted[j]), b = sign(measured[i] - measured[j]);
            pairs++;
            if (a == 0) ties_x++;
            if (b == 0) ties_y++;
            if (a * b > 0) concordant++;
            else if (a * b < 0) discordant++;
        }
    double denominator = sqrt((pairs - ties_x) * (pairs - ties_y));
    s.kendall_tau = denominator > 0 ? (concordant - discordant) / denominator : 0;
    return s;
}

/* Ranks 1..n with ties given their average rank. */
static bool average_ranks(const double *x, size_t n, double *rank)
{
    size_t *order = malloc((n + 1) * sizeof *order);
    if (!order) return false;
    for (size_t i = 0; i < n; i++) order[i] = i;
    /* insertion sort by value: n is a report's few thousand points */
    for (size_t a = 1; a < n; a++) {
        size_t item = order[a], b = a;
        while (b > 0 && x[order[b - 1]] > x[item]) {
            order[b] = order[b - 1];
            b--;
        }
        order[b] = item;
    }
    for (size_t start = 0; start < n;) {
        size_t end = start + 1;
        while (end < n && x[order[end]] == x[order[start]]) end++;
        double average = (double)(start + end + 1) / 2.0; /* mean of ranks start+1 … end */
        for (size_t k = start; k < end; k++) rank[order[k]] = average;
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

void sslat_validation_release(sslat_validation *v)
{
    for (int i = 0; v->rows && i < v->n; i++) free(v->rows[i].arch);
    free(v->rows);
    memset(v, 0, sizeof *v);
}

sslat_status sslat_validation_plan(const sslat_space *space, const sslat_container *table, int k, uint64_t seed,
                                   sslat_validation *out, sslat_error *err)
{
    memset(out, 0, sizeof *out);
    sslat_status fits = sslat_table_fits_space(table, space, err);
    if (fits == SSLAT_OK) fits = sslat_container_require_complete(table, err);
    if (fits != SSLAT_OK) return fits;
    if (k < 0 || k > 10000) return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "k = %d is outside 0..10000", k);
    int32_t blocks = sslat_space_block_count(space);
    out->rows = calloc((size_t)k + 2, sizeof *out->rows);
    if (!out->rows) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    sslat_rng rng;
    sslat_rng_seed(&rng, seed);
    sslat_status status = SSLAT_OK;
    for (int r = 0; status == SSLAT_OK && r < k + 2; r++) {
        sslat_validation_row *row = &out->rows[r];
        row->arch = calloc((size_t)blocks + 1, sizeof *row->arch);
        if (!row->arch) {
            status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
            break;
        }
        out->n = r + 1;
        if (r == 0) {
            snprintf(row->label, sizeof row->label, "min");
            status = sslat_argmin_arch(table, row->arch, blocks, err);
        } else if (r == 1) {
            snprintf(row->label, sizeof row->label, "max");
            status = sslat_argmax_arch(table, row->arch, blocks, err);
        } else {
            snprintf(row->label, sizeof row->label, "random %d", r - 2);
            for (int32_t b = 0; b < blocks; b++)
                row->arch[b] = (int32_t)sslat_rng_below(&rng, (uint32_t)sslat_container_candidate_count(table, b));
        }
        if (status == SSLAT_OK) status = sslat_current_latency(table, row->arch, blocks, &row->predicted, err);
    }
    if (status != SSLAT_OK) sslat_validation_release(out);
    return status;
}

sslat_status sslat_validation_finish(sslat_validation *v, sslat_error *err)
{
    double *predicted = malloc((size_t)v->n * sizeof *predicted + 1), *measured = malloc((size_t)v->n * sizeof *measured + 1);
    sslat_status status = predicted && measured ? SSLAT_OK : sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    for (int r = 0; status == SSLAT_OK && r < v->n; r++) {
        if (!(v->rows[r].measured > 0))
            status = sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "architecture '%s' measured %g ms: a relative error "
                                "needs a positive time (an architecture that runs nothing, every block a skip, has "
                                "none to compare)", v->rows[r].label, v->rows[r].measured);
        predicted[r] = v->rows[r].predicted;
        measured[r] = v->rows[r].measured;
    }
    if (status == SSLAT_OK) v->summary = sslat_validation_summarize(predicted, measured, (size_t)v->n);
    free(predicted);
    free(measured);
    return status;
}

sslat_status sslat_validate_architectures(const sslat_space *space, const sslat_container *table, int k,
                                          uint64_t seed, bool progress, sslat_measure_architectures_fn measure,
                                          void *context, sslat_validation *out, sslat_error *err)
{
    sslat_status status = sslat_validation_plan(space, table, k, seed, out, err);
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
