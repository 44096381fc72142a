#include "api/context.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/progress.h"
#include "base/rng.h"
#include "ir/space.h"
#include "stats/fits.h"
#include "table/container.h"

/* Architectures timed together: a group's programs are alive at once. */
enum { CONTEXT_GROUP = 16 };
/* The prior's weight with too few runs to choose it (stats/context_fit.h):
 * one run's worth, so a candidate seen in a few runs follows them. */
#define CONTEXT_LAMBDA 1.0
/* Validation draws its random architectures from the seed itself: these come from another stream. */
#define CONTEXT_SEED_STREAM 0x636f6e7465787421ULL /* "context!" */

/* runs × blocks indices: first every candidate of every block at least once
 * (block b's candidates in a seeded rotation), then uniform draws. */
static void sample_architectures(const sslat_container *table, int32_t runs, uint64_t seed, int32_t *archs)
{
    int32_t blocks = sslat_container_block_count(table);
    sslat_rng rng;
    sslat_rng_seed(&rng, seed ^ CONTEXT_SEED_STREAM);
    for (int32_t b = 0; b < blocks; b++) {
        uint32_t n = (uint32_t)sslat_container_candidate_count(table, b), shift = sslat_rng_below(&rng, n);
        for (int32_t k = 0; k < runs; k++)
            archs[(size_t)k * blocks + b] = (int32_t)(((uint32_t)k + shift) % n);
    }
    int32_t most = 0;
    for (int32_t b = 0; b < blocks; b++)
        if (sslat_container_candidate_count(table, b) > most) most = sslat_container_candidate_count(table, b);
    for (int32_t k = most; k < runs; k++)
        for (int32_t b = 0; b < blocks; b++)
            archs[(size_t)k * blocks + b] =
                (int32_t)sslat_rng_below(&rng, (uint32_t)sslat_container_candidate_count(table, b));
}

/* The calculator as an end-to-end timer: one session, groups of CONTEXT_GROUP. */
typedef struct calculator_timer {
    const sslat_calculator *calculator;
    const sslat_calc_options *options;
    const sslat_run_plan *plan;
} calculator_timer;

static sslat_status time_with_calculator(void *context, const sslat_space *space, const int32_t *const *archs,
                                         size_t runs, double *ms, sslat_error *err)
{
    const calculator_timer *t = context;
    const sslat_calculator *calculator = t->calculator;
    const sslat_calc_options *options = t->options;
    const sslat_run_plan *plan = t->plan;
    void *session = NULL;
    sslat_status status = calculator->begin ? calculator->begin(calculator, options, plan, &session, err) : SSLAT_OK;
    if (status != SSLAT_OK) return status;
    sslat_progress progress;
    sslat_progress_begin(&progress, plan->progress, "[context]", "architectures", runs);
    for (size_t first = 0; status == SSLAT_OK && first < runs; first += CONTEXT_GROUP) {
        if (plan->stop && *plan->stop) {
            status = sslat_fail(err, SSLAT_ERR_INTERRUPTED, "interrupted while timing the context architectures");
            break;
        }
        size_t size = runs - first < CONTEXT_GROUP ? runs - first : CONTEXT_GROUP;
        status = calculator->measure_architectures(calculator, session, space, archs + first, size, options,
                                                   ms + first, err);
        if (status == SSLAT_OK) sslat_progress_step(&progress, first + size);
    }
    if (calculator->end) calculator->end(session);
    return status;
}

/* The fitted values into the table: every figure of an entry is the fitted
 * value (the spread is the fit's residual, in the metadata); never below 0. */
static sslat_status write_back(sslat_container *table, const double *x, const int32_t *seen, sslat_error *err)
{
    sslat_entry constant = sslat_entry_of_value(x[0] > 0 ? x[0] : 0);
    sslat_status status = sslat_container_set_constant_entry(table, &constant, err);
    size_t at = 1;
    for (int32_t b = 0; status == SSLAT_OK && b < sslat_container_block_count(table); b++)
        for (int32_t c = 0; status == SSLAT_OK && c < sslat_container_candidate_count(table, b); c++, at++) {
            sslat_entry e = sslat_entry_of_value(x[at] > 0 ? x[at] : 0);
            e.samples = (uint32_t)seen[at];
            status = sslat_container_set_entry(table, b, c, &e, err);
        }
    return status;
}

static sslat_status note(sslat_container *table, const char *key, double value, sslat_error *err)
{
    char text[48];
    snprintf(text, sizeof text, "%.6g", value);
    return sslat_container_set_metadata(table, key, text, err);
}

/* context.enough: whether the fit had runs enough by its own cross-
 * validation (the error with half the runs against all of them): "yes: …",
 * "more would help: …", or "unknown: …" under 2 × folds runs. */
static sslat_status note_enough(sslat_container *table, int32_t runs, double all, double half, sslat_error *err)
{
    char text[320];
    if (isnan(all) || isnan(half))
        snprintf(text, sizeof text, "unknown: %d runs are too few to cross-validate (%d or more can be)", (int)runs,
                 2 * SSLAT_CONTEXT_FOLDS);
    else if (half > all * SSLAT_CONTEXT_MORE_RUNS_HELP && half - all > SSLAT_CONTEXT_MORE_RUNS_MIN_GAIN)
        snprintf(text, sizeof text, "more would help: the cross-validated error fell from %.1f%% with half the %d "
                                    "runs to %.1f%% with all of them, and is still falling (try --context %d)",
                 100 * half, (int)runs, 100 * all, 2 * (int)runs);
    else
        snprintf(text, sizeof text, "yes: the cross-validated error is %.1f%% with half the %d runs and %.1f%% "
                                    "with all of them", 100 * half, (int)runs, 100 * all);
    return sslat_container_set_metadata(table, "context.enough", text, err);
}

/* Near-ties the fit reordered: within a block, two candidates whose order
 * the fitted values reverse (before: the prior, the isolated table times
 * before_scale).
 * context.swaps counts them and names the first few, with both figures, so
 * an argmin or a front that changes from fit to fit is never silent. A pair
 * counts as near-tied when its isolated values are within
 * CONTEXT_NEAR_TIE of each other. */
#define CONTEXT_NEAR_TIE 0.10
enum { CONTEXT_SWAPS_NAMED = 4 };

static sslat_status note_swaps(sslat_container *table, const double *before, double before_scale, const double *after,
                               const int32_t *counts, sslat_error *err)
{
    char text[1600] = "", named[1200] = "";
    long swaps = 0, near = 0, blocks_touched = 0;
    size_t at = 1, used = 0;
    for (int32_t b = 0; b < sslat_container_block_count(table); b++) {
        bool touched = false;
        for (int32_t i = 0; i < counts[b]; i++)
            for (int32_t j = i + 1; j < counts[b]; j++) {
                double bi = before[at + (size_t)i] / before_scale, bj = before[at + (size_t)j] / before_scale;
                double ai = after[at + (size_t)i], aj = after[at + (size_t)j];
                if (!((bi < bj && ai > aj) || (bi > bj && ai < aj))) continue;
                swaps++;
                touched = true;
                bool tie = fabs(bi - bj) <= CONTEXT_NEAR_TIE * fmax(bi, bj);
                near += tie;
                if (swaps > CONTEXT_SWAPS_NAMED || used + 200 >= sizeof named) continue;
                char block[96], first[96], second[96];
                used += (size_t)snprintf(named + used, sizeof named - used,
                                         "%s%s: %s %s %s (isolated %.4g / %.4g, fitted %.4g / %.4g)", used ? "; " : "",
                                         sslat_container_block_title(table, b, block, sizeof block),
                                         sslat_container_candidate_title(table, b, i, first, sizeof first),
                                         bi < bj ? "<" : ">", sslat_container_candidate_title(table, b, j, second,
                                                                                              sizeof second),
                                         bi, bj, ai, aj);
            }
        blocks_touched += touched;
        at += (size_t)counts[b];
    }
    if (!swaps)
        snprintf(text, sizeof text, "none: the fit kept the isolated order of every block's candidates");
    else
        snprintf(text, sizeof text, "%ld pair(s) of candidates in %ld block(s) changed order (%ld of them near-ties, "
                                    "within %.0f%% of each other in the isolated table; %ld further apart, where the "
                                    "runs say a candidate costs otherwise inside networks); %s%s", swaps,
                 blocks_touched, near, 100 * CONTEXT_NEAR_TIE, swaps - near, named,
                 swaps > CONTEXT_SWAPS_NAMED ? "; …" : "");
    return sslat_container_set_metadata(table, "context.swaps", text, err);
}

/* A decimal count as the fit wrote it: digits only (no sign, no space), at
 * most max. */
static bool digits_only(const char *text, uint64_t max, uint64_t *out)
{
    uint64_t value = 0;
    if (!*text) return false;
    for (const char *p = text; *p; p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (digit > 9 || value > (max - digit) / 10) return false;
        value = value * 10 + digit;
    }
    *out = value;
    return true;
}

sslat_status sslat_context_fitted_architectures(const sslat_container *table, int32_t **archs, size_t *n,
                                                sslat_error *err)
{
    *archs = NULL;
    *n = 0;
    const char *runs_text = sslat_container_metadata(table, "context.architectures");
    const char *seed_text = sslat_container_metadata(table, "context.seed");
    if (!runs_text || !seed_text) return SSLAT_OK;
    int32_t most = 0;
    for (int32_t b = 0; b < sslat_container_block_count(table); b++)
        if (sslat_container_candidate_count(table, b) > most) most = sslat_container_candidate_count(table, b);
    uint64_t runs = 0, seed = 0;
    if (!digits_only(seed_text, UINT64_MAX, &seed))
        return sslat_fail(err, SSLAT_ERR_PARSE, "the table's context.seed '%s' is not a number", seed_text);
    if (!digits_only(runs_text, 100000, &runs) || runs < (uint64_t)(most > 1 ? most : 1))
        return sslat_fail(err, SSLAT_ERR_PARSE, "the table's context.architectures '%s' is not a count of %d to "
                          "100000 (context mode times every candidate of the largest block once)", runs_text,
                          most > 1 ? most : 1);
    int32_t blocks = sslat_container_block_count(table);
    *archs = calloc((size_t)runs * (size_t)(blocks ? blocks : 1), sizeof **archs);
    if (!*archs) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    sample_architectures(table, (int32_t)runs, seed, *archs);
    *n = (size_t)runs;
    return SSLAT_OK;
}

sslat_status sslat_context_refine(const sslat_calculator *calculator, const sslat_space *space,
                                  const sslat_calc_options *options, const sslat_run_plan *plan, int32_t runs,
                                  sslat_container *table, sslat_context_result *result, sslat_error *err)
{
    const sslat_run_plan quiet = {0};
    memset(result, 0, sizeof *result);
    if (!calculator->measure_architectures)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                          "context mode times whole architectures: calculator '%s' cannot", calculator->name);
    calculator_timer timer = {calculator, options, plan ? plan : &quiet};
    sslat_context_target target = {time_with_calculator, &timer, NULL, NULL, false};
    return sslat_context_refine_to(space, options->seed, runs, &target, table, result, err);
}

sslat_status sslat_context_refine_to(const sslat_space *space, uint64_t seed, int32_t runs,
                                     const sslat_context_target *target, sslat_container *table,
                                     sslat_context_result *result, sslat_error *err)
{
    memset(result, 0, sizeof *result);
    /* a table of the tests' CUDA stand-in is fitted too (its values are only
     * the prior, and it keeps its "standin" mark, so every consumer still
     * refuses it): the tests follow context mode on cuda end to end */
    sslat_status status = sslat_container_metadata(table, "standin") && !sslat_container_has_failed_entries(table)
                              ? sslat_container_require_whole(table, err)
                              : sslat_container_require_complete(table, err);
    if (status == SSLAT_OK) status = sslat_table_fits_space(table, space, err);
    if (status != SSLAT_OK) return status;
    int32_t blocks = sslat_container_block_count(table), most = 0;
    size_t size = 1;
    for (int32_t b = 0; b < blocks; b++) {
        int32_t n = sslat_container_candidate_count(table, b);
        most = n > most ? n : most;
        size += (size_t)n;
    }
    if (runs < most || runs > 100000)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT,
                          "context mode needs %d to 100000 architectures (every candidate of the largest block once), "
                          "got %d", most, runs);
    int32_t *archs = calloc((size_t)runs * (size_t)(blocks ? blocks : 1), sizeof *archs);
    const int32_t **rows = calloc((size_t)runs, sizeof *rows);
    int32_t *counts = calloc((size_t)blocks + 1, sizeof *counts), *seen = calloc(size, sizeof *seen);
    double *ms = calloc((size_t)runs, sizeof *ms), *prior = calloc(size, sizeof *prior), *x = calloc(size, sizeof *x);
    if (!archs || !rows || !counts || !seen || !ms || !prior || !x)
        status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    double scale = 1.0;
    if (status == SSLAT_OK) {
        sample_architectures(table, runs, seed, archs);
        prior[0] = sslat_container_constant_latency(table);
        size_t at = 1;
        for (int32_t b = 0; b < blocks; b++) {
            counts[b] = sslat_container_candidate_count(table, b);
            for (int32_t c = 0; c < counts[b]; c++) prior[at++] = sslat_container_latency(table, b, c);
        }
        for (int32_t k = 0; k < runs; k++) {
            rows[k] = archs + (size_t)k * blocks;
            size_t offset = 1;
            for (int32_t b = 0; b < blocks; b++) {
                seen[offset + (size_t)archs[(size_t)k * blocks + b]]++;
                offset += (size_t)counts[b];
            }
        }
        seen[0] = runs;
        status = target->measure(target->context, space, rows, (size_t)runs, ms, err);
        for (int32_t k = 0; status == SSLAT_OK && k < runs; k++)
            if (!(ms[k] > 0) || !isfinite(ms[k]))
                status = sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "context architecture %d got no positive time "
                                    "from %s", (int)k, target->name ? target->name : "the calculator");
    }
    /* the figures "before" are of the isolated table as it was */
    sslat_context_problem problem = {blocks, counts, (size_t)runs, archs, ms, prior, CONTEXT_LAMBDA};
    double predicted = 0, rms_isolated = 0, bias_isolated = 0;
    if (status == SSLAT_OK)
        status = sslat_context_figures(&problem, prior, &predicted, &rms_isolated, &bias_isolated, err);
    if (status == SSLAT_OK && target->scale_prior && predicted > 0) {
        /* another runtime: the isolated table scaled by its overall ratio to
         * the runs is the prior, so what the runs cannot separate follows it */
        double measured = 0;
        for (int32_t k = 0; k < runs; k++) measured += ms[k];
        scale = measured / predicted;
        for (size_t i = 0; i < size; i++) prior[i] *= scale;
    }
    double cv_error = NAN;
    if (status == SSLAT_OK) status = sslat_context_choose_lambda(&problem, &problem.lambda, &cv_error, err);
    double half_error = NAN;
    if (status == SSLAT_OK) status = sslat_context_half_runs_error(&problem, &half_error, err);
    if (status == SSLAT_OK) status = sslat_context_fit(&problem, x, result, err);
    if (status == SSLAT_OK) {
        result->rms_before = rms_isolated;
        result->bias_before = bias_isolated;
    }
    if (status == SSLAT_OK) status = write_back(table, x, seen, err);
    char text[400];
    const char *how = isnan(cv_error) ? "the default: too few runs to cross-validate" : "by 5-fold cross-validation";
    if (target->name)
        snprintf(text, sizeof text, "%d architectures timed end to end in %s; values fitted to them, ridge toward "
                                    "the isolated table scaled by its overall ratio %.4g (lambda %g, %s)",
                 runs, target->name, scale, problem.lambda, how);
    else
        snprintf(text, sizeof text, "%d architectures timed end to end; values fitted to them, ridge toward the "
                                    "isolated table (lambda %g, %s)", runs, problem.lambda, how);
    if (status == SSLAT_OK) status = sslat_container_set_metadata(table, "context.method", text, err);
    if (status == SSLAT_OK)
        status = sslat_container_set_metadata(table, "context.reference", target->name ? target->name
                                              : "the table's own calculator", err);
    if (status == SSLAT_OK)
        status = sslat_container_set_metadata(table, "context.runtime", target->runtime ? target->runtime : "sslat",
                                              err);
    if (status == SSLAT_OK) status = note(table, "context.architectures", runs, err);
    if (status == SSLAT_OK) {
        snprintf(text, sizeof text, "%llu", (unsigned long long)seed);
        status = sslat_container_set_metadata(table, "context.seed", text, err);
    }
    if (status == SSLAT_OK) status = note(table, "context.prior_scale", scale, err);
    if (status == SSLAT_OK) status = note(table, "context.lambda", problem.lambda, err);
    if (status == SSLAT_OK && !isnan(cv_error)) status = note(table, "context.cv_relative_rms", cv_error, err);
    if (status == SSLAT_OK) status = note_enough(table, runs, cv_error, half_error, err);
    if (status == SSLAT_OK) status = note_swaps(table, prior, scale, x, counts, err);
    if (status == SSLAT_OK) status = note(table, "context.rms_isolated_ms", result->rms_before, err);
    if (status == SSLAT_OK) status = note(table, "context.rms_fitted_ms", result->rms_after, err);
    if (status == SSLAT_OK) status = note(table, "context.bias_isolated", result->bias_before, err);
    if (status == SSLAT_OK) status = note(table, "context.bias_fitted", result->bias_after, err);
    free(archs);
    free(rows);
    free(counts);
    free(seen);
    free(ms);
    free(prior);
    free(x);
    return status;
}
