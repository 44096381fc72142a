/* The sections of `sslat report`: summary, heat map, distribution, MACs vs
 * latency, validation. Each writes HTML (and inline SVG) to one stream. */
#include "report/report.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/order.h"
#include "base/rng.h"
#include "report/front_figure.h"
#include "report/svg_plot.h"
#include "stats/stats.h"
#include "stats/validation.h"
#include "table/container.h"
#include "table/describe.h"

#define HISTOGRAM_BINS 60
#define SCATTER_POINTS 2000

static const char *STYLE =
    "body{font-family:sans-serif;margin:24px;color:#222;max-width:1000px}"
    "h1{font-size:22px}h2{font-size:17px;margin-top:28px;border-bottom:1px solid #ddd}"
    "table{border-collapse:collapse;font-size:13px}td,th{padding:2px 10px 2px 0;text-align:left;"
    "vertical-align:top}th{color:#555;font-weight:normal}p.caption{font-size:13px;color:#444}"
    "code{font-size:12px}tr.quality-disturbed td{color:#b00020;font-weight:bold}"
    "tr.quality-noisy td{color:#8a5a00}svg{max-width:100%;height:auto}"
    ".warning{border:2px solid #b00020;background:#fff0f0;padding:8px 12px;margin:12px 0}"
    "table.list td{font-size:12px}"
    /* print / save as PDF: full width, no page break inside a plot or table, no collapsed details */
    "@page{size:A4;margin:12mm}"
    "@media print{body{margin:0;max-width:none;font-size:11px}h2{break-after:avoid;page-break-after:avoid}"
    "svg,table,.warning{break-inside:avoid;page-break-inside:avoid}details{display:none}}";

static double total_of(const sslat_container *c, const int32_t *arch)
{
    double value = 0;
    sslat_current_latency(c, arch, sslat_container_block_count(c), &value, NULL);
    return value;
}

static void row(FILE *out, const char *name, const char *value)
{
    fputs("<tr><th>", out);
    plot_escape(out, name);
    fputs("</th><td>", out);
    plot_escape(out, value);
    fputs("</td></tr>\n", out);
}

/* ---- summary ------------------------------------------------------------------- */

static const char *device_of(const sslat_container *t)
{
    const char *keys[] = {"device.name", "host.cpu"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const char *value = sslat_container_metadata(t, keys[i]);
        if (value && *value) return value;
    }
    /* an imported table (ENOT) of a timed type says nothing of its device */
    return strcmp(sslat_container_unit(t), "ms") ? "(analytic: no device)" : "unknown (not recorded in the table)";
}

/* How a timed table was made, in the open (not only under "all metadata"):
 * each row shown when the table records it. */
static void write_method(FILE *out, const sslat_container *t)
{
    static const char *const ROWS[][2] = {
        {"calculator", "calculator.summary"},   {"cache mode", "calculator.cache"},
        {"schedule", "calculator.schedule"},    {"noisy entries", "quality.noisy_entries"},
        {"noisiest entry", "quality.cov_worst"}, {"machine load and drift", "quality.machine"},
        {"calibration", "host.calibration_ms"}, {"lowering and fallbacks", "cpu.impl.units"},
        {"reference kernels", "cpu.reference"}, {"fused fallbacks", "cuda.fused_fallbacks"},
        {"noisy units", "cuda.noisy_units"},    {"GPU clocks", "device.clocks"},
        {"throttling", "device.throttle_reasons"},
    };
    for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
        const char *value = sslat_container_metadata(t, ROWS[i][1]);
        if (value && *value) row(out, ROWS[i][0], value);
    }
}

/* What to do about a noisy or disturbed table, for the way it was measured:
 * fewer threads only where it used more than one, and what its cause names. */
static const char *advice_for(const sslat_container *t)
{
    const char *threads = sslat_container_metadata(t, "host.threads");
    const char *cause = sslat_container_metadata(t, "quality.cause");
    bool many = threads && strcmp(threads, "1");
    bool busy = cause && (strstr(cause, "other processes") || strstr(cause, "runnable") || strstr(cause, "stole") ||
                          strstr(cause, "calibration thread") || strstr(cause, "not running"));
    if (busy && many)
        return "measure again when the machine is quiet, or with fewer --threads than its free cores, before "
               "trusting a ranking.";
    if (busy) return "measure again when the machine is quiet (it was already measured on one thread) before "
                     "trusting a ranking.";
    return "more --runs (or --adaptive) narrow the entries; a machine with a fixed clock (no turbo, no "
           "power saving) drifts less.";
}

static void write_summary(FILE *out, const report_input *in, double min, double median, double bound,
                          double mean, double max)
{
    const sslat_container *t = in->table;
    const char *unit = sslat_container_unit(t);
    char text[256];
    const char *verdict = sslat_container_metadata(t, "quality.verdict");
    if (verdict && (!strcmp(verdict, "noisy") || !strcmp(verdict, "disturbed"))) {
        char quality[1400];
        sslat_table_quality_text(t, quality, sizeof quality);
        fputs("<div class=\"warning\" id=\"quality-warning\"><b>Read this table with care.</b> Its quality "
              "verdict is ", out);
        plot_escape(out, quality);
        fputs(". Entries hatched in the heat map varied most between samples; ", out);
        fputs(advice_for(t), out);
        fputs("</div>\n", out);
    }
    const char *reference = sslat_container_metadata(t, "context.quality.verdict");
    if (reference && strcmp(reference, "ok")) {
        const char *cause = sslat_container_metadata(t, "context.quality.cause");
        fprintf(out, "<div class=\"warning\" id=\"reference-warning\"><b>The fit's reference runs were %s.</b> ",
                strcmp(reference, "disturbed") ? "noisy" : "disturbed");
        plot_escape(out, cause ? cause : "");
        fputs(". The calibrated values follow those runs: fit again on a quiet machine before trusting "
              "them.</div>\n", out);
    }
    fputs("<h2>Summary</h2>\n<table id=\"summary\">\n", out);
    if (in->table_name) row(out, "table", in->table_name);
    row(out, "space", sslat_container_space_title(t));
    snprintf(text, sizeof text, "%s (%s)", sslat_container_value_name(t), unit);
    row(out, "latency type", text);
    int32_t shape[4];
    sslat_container_input_shape(t, shape);
    if (shape[0] > 0)
        snprintf(text, sizeof text, "%d x %d x %d x %d (N C H W)", shape[0], shape[1], shape[2], shape[3]);
    else
        snprintf(text, sizeof text, "unknown (not recorded in the table)");
    row(out, "input", text);
    sslat_table_unit_meaning(t, text, sizeof text);
    row(out, "figures are", text);
    snprintf(text, sizeof text, "%s, %s", *sslat_container_dtype(t) ? sslat_container_dtype(t) : "-",
             *sslat_container_layout(t) ? sslat_container_layout(t) : "-");
    row(out, "dtype, layout", text);
    row(out, "device", device_of(t));
    sslat_table_method_text(t, text, sizeof text);
    if (text[0]) row(out, "measured with", text);
    char predicts[1400];
    sslat_table_predicts_text(t, predicts, sizeof predicts, NULL);
    if (predicts[0]) row(out, "predicts", predicts);
    char fit[3000];
    sslat_table_fit_text(t, "; ", fit, sizeof fit);
    if (fit[0]) row(out, "fit", fit);
    char quality[1400];
    sslat_table_quality_text(t, quality, sizeof quality);
    if (quality[0]) {
        /* a class name only from the known verdicts: the table is input */
        const char *verdict = sslat_container_metadata(t, "quality.verdict");
        bool known = !strcmp(verdict, "ok") || !strcmp(verdict, "noisy") || !strcmp(verdict, "disturbed");
        fprintf(out, "<tr class=\"quality-%s\"><th>quality</th><td>", known ? verdict : "unknown");
        plot_escape(out, quality);
        fputs("</td></tr>\n", out);
    }
    write_method(out, t);
    int32_t blocks = sslat_container_block_count(t), candidates = 0;
    double architectures = 1;
    for (int32_t b = 0; b < blocks; b++) {
        candidates += sslat_container_candidate_count(t, b);
        architectures *= sslat_container_candidate_count(t, b);
    }
    snprintf(text, sizeof text, "%d NAS blocks, %d candidates", blocks, candidates);
    row(out, "blocks", text);
    if (in->space) sslat_space_architecture_count_string(in->space, text, sizeof text);
    else snprintf(text, sizeof text, "%.6g", architectures);
    row(out, "architectures", text);
    snprintf(text, sizeof text, "%.6g %s", sslat_container_constant_latency(t), unit);
    row(out, "constant part", text);
    if (isfinite(min) && isfinite(max) && isfinite(median) && isfinite(mean))
        snprintf(text, sizeof text, "%.6g / %.6g (± %.2g) / %.6g / %.6g %s", min, median, bound, mean, max, unit);
    else /* sums past a double: no figure to show, said so */
        snprintf(text, sizeof text, "overflow: the table's sums pass the largest double (min %.6g, max %.6g %s)",
                 min, max, unit);
    row(out, "min / median / mean / max", text);
    if (in->current_arch) {
        snprintf(text, sizeof text, "%.6g %s", total_of(t, in->current_arch), unit);
        row(out, "current architecture", text);
    }
    row(out, "created", sslat_container_created(t));
    row(out, "tool version", sslat_container_tool_version(t));
    fputs("</table>\n<details><summary>all metadata</summary>\n<table id=\"metadata\">\n", out);
    for (int32_t i = 0; i < sslat_container_metadata_count(t); i++) {
        const char *key = NULL, *value = NULL;
        if (sslat_container_metadata_at(t, i, &key, &value) == SSLAT_OK) row(out, key, value);
    }
    fputs("</table>\n</details>\n", out);
}

/* ---- heat map: latency per block x candidate ----------------------------------------- */

#define NOISE_SOME 0.05 /* an entry's stddev / mean from which it is hatched */
#define NOISE_HIGH 0.20 /* … and hatched densely */

/* An entry's spread between samples (stddev / mean; 0 for one sample or an analytic table). */
static double entry_cov(const sslat_container *t, int32_t block, int32_t candidate)
{
    sslat_entry e;
    if (sslat_container_entry(t, block, candidate, &e, NULL) != SSLAT_OK || e.samples < 2 || !(e.mean > 0)) return 0;
    return e.stddev / e.mean;
}

/* The label column c has in every block that has it, or NULL when blocks differ. */
static const char *column_label(const sslat_container *t, int32_t c)
{
    const char *shared = NULL;
    for (int32_t b = 0; b < sslat_container_block_count(t); b++) {
        if (c >= sslat_container_candidate_count(t, b)) continue;
        const char *label = sslat_container_candidate_label(t, b, c);
        if (!label || !*label || (shared && strcmp(shared, label))) return NULL;
        shared = label;
    }
    return shared;
}

/* When columns mean different candidates in different blocks: each block's labels, printed. */
static void write_candidate_legend(FILE *out, const sslat_container *t)
{
    fputs("<table class=\"list\" id=\"candidate-labels\"><tr><th>block</th><th>candidates (column: label)</th></tr>\n", out);
    for (int32_t b = 0; b < sslat_container_block_count(t); b++) {
        char title[64];
        fputs("<tr><td>", out);
        plot_escape(out, sslat_container_block_title(t, b, title, sizeof title));
        fputs("</td><td>", out);
        for (int32_t c = 0; c < sslat_container_candidate_count(t, b); c++) {
            fprintf(out, "%s%d: ", c ? " · " : "", c);
            plot_escape(out, sslat_container_candidate_title(t, b, c, title, sizeof title));
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

static void write_heatmap(FILE *out, const report_input *in)
{
    const sslat_container *t = in->table;
    int32_t blocks = sslat_container_block_count(t), columns = 1;
    double lo = INFINITY, hi = -INFINITY;
    for (int32_t b = 0; b < blocks; b++) {
        int32_t n = sslat_container_candidate_count(t, b);
        if (n > columns) columns = n;
        for (int32_t c = 0; c < n; c++) {
            double v = sslat_container_latency(t, b, c);
            lo = fmin(lo, v);
            hi = fmax(hi, v);
        }
    }
    if (!(hi > lo)) hi = lo + 1;
    bool labelled = true; /* every column one candidate kind: its label goes on the axis */
    for (int32_t c = 0; c < columns; c++) labelled = labelled && column_label(t, c);
    const int left = 150, top = labelled ? 96 : 34, cell_h = 18;
    int cell_w = 780 / columns;
    if (cell_w > 80) cell_w = 80;
    if (cell_w < 8) cell_w = 8;
    int width = left + columns * cell_w + 20, height = top + blocks * cell_h + 50;
    fprintf(out, "<h2>Latency per block and candidate</h2>\n");
    plot_begin(out, "heatmap", width, height, "latency of every candidate of every NAS block");
    fputs("<defs><pattern id=\"noise-some\" width=\"7\" height=\"7\" patternUnits=\"userSpaceOnUse\" "
          "patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" y2=\"7\" stroke=\"#d00\" "
          "stroke-width=\"1.2\"/></pattern><pattern id=\"noise-high\" width=\"3.5\" height=\"3.5\" "
          "patternUnits=\"userSpaceOnUse\" patternTransform=\"rotate(45)\"><line x1=\"0\" y1=\"0\" x2=\"0\" "
          "y2=\"3.5\" stroke=\"#d00\" stroke-width=\"1.4\"/></pattern></defs>\n", out);
    for (int32_t c = 0; c < columns; c++) {
        int x = left + c * cell_w + cell_w / 2;
        if (labelled) {
            fprintf(out, "<text class=\"column-label\" x=\"%d\" y=\"%d\" transform=\"rotate(-40 %d %d)\" "
                         "font-size=\"11\" fill=\"#333\">", x, top - 6, x, top - 6);
            plot_escape(out, column_label(t, c));
            fputs("</text>\n", out);
        } else {
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"#555\">%d</text>\n", x, top - 6, c);
        }
    }
    int hatched = 0;
    for (int32_t b = 0; b < blocks; b++) {
        int y = top + b * cell_h;
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", left - 6, y + 13);
        plot_escape(out, sslat_container_block_name(t, b));
        fputs("</text>\n", out);
        for (int32_t c = 0; c < sslat_container_candidate_count(t, b); c++) {
            double v = sslat_container_latency(t, b, c), share = (v - lo) / (hi - lo), cov = entry_cov(t, b, c);
            char color[8];
            plot_color(share, color);
            bool current = in->current_arch && in->current_arch[b] == c;
            int x = left + c * cell_w;
            fprintf(out, "<g class=\"cell\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\"%s>"
                         "<title>",
                    x, y, cell_w - 1, cell_h - 1, color, current ? " stroke=\"#e8590c\" stroke-width=\"2.5\"" : "");
            char title[32];
            plot_escape(out, sslat_container_block_title(t, b, title, sizeof title));
            fputs(" / ", out);
            plot_escape(out, sslat_container_candidate_title(t, b, c, title, sizeof title));
            fprintf(out, ": %.6g %s, spread %.1f%%%s</title></rect>", v, sslat_container_unit(t), 100 * cov,
                    current ? " (current)" : "");
            if (cov >= NOISE_SOME) {
                fprintf(out, "<rect class=\"noisy\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"url(#%s)\"/>", x, y,
                        cell_w - 1, cell_h - 1, cov >= NOISE_HIGH ? "noise-high" : "noise-some");
                hatched++;
            }
            if (cell_w >= 44)
                fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"10\" fill=\"%s\">%.3g</text>",
                        x + cell_w / 2, y + 13, share > 0.6 ? "#000" : "#fff", v);
            fputs("</g>\n", out);
        }
    }
    /* colour legend */
    int legend_y = top + blocks * cell_h + 16;
    for (int i = 0; i < 100; i++) {
        char color[8];
        plot_color(i / 99.0, color);
        fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"3\" height=\"10\" fill=\"%s\"/>", left + 3 * i, legend_y, color);
    }
    fprintf(out, "\n<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.3g</text><text x=\"%d\" y=\"%d\">%.3g %s</text>\n",
            left - 4, legend_y + 9, lo, left + 304, legend_y + 9, hi, sslat_container_unit(t));
    plot_end(out);
    fprintf(out, "<p class=\"caption\" id=\"heatmap-caption\">%s Hatched: entries whose samples spread "
                 "(stddev / mean) %.0f%% or more, densely from %.0f%% (%d of them).%s</p>\n",
            labelled ? "Columns are labelled by candidate." : "Column = candidate index; the labels of each "
                                                             "block's columns are listed below.",
            100 * NOISE_SOME, 100 * NOISE_HIGH, hatched, in->current_arch ? " Outlined: the current architecture." : "");
    if (!labelled) write_candidate_legend(out, t);
}

/* ---- distribution of random architectures -------------------------------------------- */

static sslat_status write_distribution(FILE *out, const report_input *in, double min, double median,
                                       double max, sslat_error *err)
{
    const sslat_container *t = in->table;
    size_t n = (size_t)in->samples;
    if (!isfinite(min) || !isfinite(max)) { /* sums past a double: no axis to draw them on */
        fprintf(out, "<h2>Latency of random architectures</h2>\n<p>Not drawn: the table's sums overflow a double "
                     "(min %g, max %g %s).</p>\n", min, max, sslat_container_unit(t));
        return SSLAT_OK;
    }
    double *samples = malloc((n + 1) * sizeof *samples);
    if (!samples) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory for %zu samples", n);
    sslat_status status = sslat_sample_latencies(t, n, in->seed, samples, err);
    if (status != SSLAT_OK) {
        free(samples);
        return status;
    }
    qsort(samples, n, sizeof *samples, sslat_compare_doubles);
    double lo = min, hi = max;
    if (!(hi > lo)) hi = lo + fmax(fabs(lo) * 0.01, 1e-9);
    int counts[HISTOGRAM_BINS] = {0}, peak = 1;
    for (size_t i = 0; i < n; i++) {
        int bin = (int)((samples[i] - lo) / (hi - lo) * HISTOGRAM_BINS);
        if (bin >= HISTOGRAM_BINS) bin = HISTOGRAM_BINS - 1;
        if (bin < 0) bin = 0;
        if (++counts[bin] > peak) peak = counts[bin];
    }
    const char *unit = sslat_container_unit(t);
    char label[96];
    snprintf(label, sizeof label, "latency of an architecture (%s)", unit);
    plot_frame f = {lo, hi, 0, peak * 1.05, 70, 52, 800, 260};
    fputs("<h2>Latency of random architectures</h2>\n", out);
    plot_begin(out, "histogram", 940, 360, "histogram and CDF of uniformly random architectures' latency");
    plot_axes(out, &f, label, "architectures per bin");
    double bin_w = f.width / HISTOGRAM_BINS;
    fputs("<g class=\"bars\" fill=\"#4c72b0\">\n", out);
    for (int i = 0; i < HISTOGRAM_BINS; i++) {
        if (!counts[i]) continue;
        double y = plot_y(&f, counts[i]);
        fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\"><title>%.4g–%.4g %s: %d</title></rect>\n",
                f.left + i * bin_w, y, bin_w - 0.5, f.top + f.height - y, lo + i * (hi - lo) / HISTOGRAM_BINS,
                lo + (i + 1) * (hi - lo) / HISTOGRAM_BINS, unit, counts[i]);
    }
    fputs("</g>\n<polyline class=\"cdf\" fill=\"none\" stroke=\"#c44e52\" stroke-width=\"1.5\" points=\"", out);
    size_t step = n > 400 ? n / 400 : 1;
    for (size_t i = 0; i < n; i += step)
        fprintf(out, "%.1f,%.1f ", plot_x(&f, samples[i]), f.top + f.height * (1 - (double)(i + 1) / (double)n));
    fprintf(out, "%.1f,%.1f\"/>\n", plot_x(&f, samples[n - 1]), f.top);
    /* the CDF's own axis on the right */
    for (int k = 0; k <= 4; k++)
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#c44e52\">%.2f</text>\n", f.left + f.width + 4,
                f.top + f.height * (1 - k / 4.0) + 4, k / 4.0);
    plot_marker(out, &f, min, "#2b8a3e", "min", 0);
    plot_marker(out, &f, median, "#222", "median", 1);
    plot_marker(out, &f, max, "#c92a2a", "max", 0);
    if (in->current_arch) plot_marker(out, &f, total_of(t, in->current_arch), "#e8590c", "current", 2);
    plot_end(out);
    fprintf(out, "<p class=\"caption\">%zu architectures drawn uniformly (seed %llu): bars, and their "
                 "cumulative share in red (right axis). min, max and the median are exact over the whole "
                 "space (%.6g, %.6g, %.6g %s).</p>\n",
            n, (unsigned long long)in->seed, min, median, max, unit);
    free(samples);
    return SSLAT_OK;
}

/* ---- MACs vs latency -------------------------------------------------------------------- */

/* A uniformly random architecture (the scatter plots' background). */
static void random_arch(sslat_rng *rng, const sslat_container *t, int32_t *arch)
{
    for (int32_t b = 0; b < sslat_container_block_count(t); b++)
        arch[b] = (int32_t)sslat_rng_below(rng, (uint32_t)sslat_container_candidate_count(t, b));
}

static sslat_status write_mac_scatter(FILE *out, const report_input *in, sslat_error *err)
{
    const sslat_container *t = in->table, *mac = in->mac;
    int32_t blocks = sslat_container_block_count(t);
    size_t n = SCATTER_POINTS;
    double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
    int32_t *arch = malloc(((size_t)blocks + 1) * sizeof *arch);
    if (!x || !y || !arch) {
        free(x), free(y), free(arch);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    sslat_rng rng;
    sslat_rng_seed(&rng, in->seed ^ 0x6d6163u);
    double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        random_arch(&rng, t, arch);
        x[i] = total_of(t, arch); /* latency on x in every plot, as on the front */
        y[i] = total_of(mac, arch);
        x_lo = fmin(x_lo, x[i]), x_hi = fmax(x_hi, x[i]), y_lo = fmin(y_lo, y[i]), y_hi = fmax(y_hi, y[i]);
    }
    double rho = sslat_spearman_rho(x, y, n);
    double x_pad = fmax((x_hi - x_lo) * 0.03, 1e-9), y_pad = fmax((y_hi - y_lo) * 0.03, 1e-9);
    x_lo -= x_pad, x_hi += x_pad, y_lo -= y_pad, y_hi += y_pad;
    char x_label[96], y_label[96];
    snprintf(x_label, sizeof x_label, "latency (%s, lower is better)", sslat_container_unit(t));
    snprintf(y_label, sizeof y_label, "%s (%s)", sslat_container_value_name(mac), sslat_container_unit(mac));
    plot_frame f = {x_lo, x_hi, y_lo, y_hi, 70, 20, 800, 300};
    fputs("<h2>Latency vs MACs</h2>\n", out);
    plot_begin(out, "mac-scatter", 940, 370, "latency against MACs of random architectures");
    plot_axes(out, &f, x_label, y_label);
    plot_points(out, &f, x, y, n, "#4c72b0", 0.45, 2);
    if (in->current_arch) plot_current(out, &f, total_of(t, in->current_arch), total_of(mac, in->current_arch));
    plot_end(out);
    fprintf(out, "<p class=\"caption\" id=\"rank-correlation\">%zu random architectures. Spearman rank "
                 "correlation of MACs and latency: <b>%.3f</b> (1 = MACs order architectures exactly as "
                 "latency does).</p>\n",
            n, rho);
    free(x), free(y), free(arch);
    return SSLAT_OK;
}

/* ---- Pareto front: latency against a second table -------------------------------------------- */

#define PARETO_TABLE_POINTS 12

/* Up to PARETO_TABLE_POINTS points of the front, spread in latency, with their labels. */
static sslat_status write_pareto_table(FILE *out, const report_input *in, const sslat_pareto_front *front,
                                       sslat_error *err)
{
    const sslat_container *t = in->table, *v = in->value;
    int32_t blocks = sslat_container_block_count(t);
    int64_t *chosen = malloc((PARETO_TABLE_POINTS + 1) * sizeof *chosen);
    int32_t *arch = malloc(((size_t)blocks + 1) * sizeof *arch);
    if (!chosen || !arch) {
        free(chosen), free(arch);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    int64_t rows = front_figure_numbered(front, PARETO_TABLE_POINTS, chosen);
    fprintf(out, "<table class=\"list\" id=\"pareto-points\"><tr><th>#</th><th>latency (%s)</th><th>",
            sslat_container_unit(t));
    plot_escape(out, sslat_container_value_name(v));
    fprintf(out, " (%s)</th><th>architecture (candidate of each block)</th></tr>\n", sslat_container_unit(v));
    for (int64_t r = 0; r < rows; r++) {
        double latency, value;
        sslat_pareto_point(front, (int32_t)chosen[r], arch, blocks + 1, &latency, &value, NULL);
        fprintf(out, "<tr><td>%lld</td><td>%.6g</td><td>%.6g</td><td>", (long long)(r + 1), latency, value);
        for (int32_t b = 0; b < blocks; b++) {
            char title[64];
            if (b) fputs(" · ", out);
            plot_escape(out, sslat_container_candidate_title(t, b, arch[b], title, sizeof title));
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    free(chosen), free(arch);
    return SSLAT_OK;
}

static sslat_status write_pareto(FILE *out, const report_input *in, sslat_error *err)
{
    const sslat_container *t = in->table, *v = in->value;
    sslat_pareto_front *front = NULL;
    sslat_status status = sslat_pareto_compute(t, v, 0, &front, err);
    if (status != SSLAT_OK) return status;
    /* the figure `sslat plot` draws, larger: the same numbered points as the table below */
    fputs("<h2>Pareto front: latency against ", out);
    plot_escape(out, sslat_container_value_name(v));
    fputs("</h2>\n", out);
    front_figure_front pair = {t, v, NULL, front}; /* the front computed above, drawn as it is */
    front_figure figure = {&pair, 1, NULL, 0, in->current_arch, in->current_arch ? sslat_container_block_count(t) : 0,
                           PARETO_TABLE_POINTS, "current"};
    canvas c;
    canvas_svg_begin(&c, out, 560, 300, false, "pareto",
                     "the Pareto front of latency against a second table over the whole space");
    status = front_figure_draw(&c, &figure, err);
    canvas_svg_end(&c);
    if (status != SSLAT_OK) {
        sslat_pareto_free(front);
        return status;
    }
    double slack = sslat_pareto_slack(front);
    fprintf(out, "<p class=\"caption\" id=\"pareto-caption\">The Pareto front over all architectures, %lld "
                 "points (%s), as <code>sslat plot</code> draws it; a band of &plusmn;1 standard deviation of latency "
                 "where the entries were timed.%s The numbered points are listed below: points of the front spread "
                 "evenly in latency (for each of %d budgets, the best within it), with their candidates.</p>\n",
            (long long)sslat_pareto_front_size(front), slack == 0 ? "exact" : "thinned on a latency grid",
            in->current_arch ? " Triangle: the current architecture." : "", PARETO_TABLE_POINTS);
    if (slack > 0)
        fprintf(out, "<p class=\"caption\">Any architecture is matched by a point of this front with at least its "
                     "value and at most %.3g %s more latency%s.</p>\n", slack, sslat_container_unit(t),
                sslat_pareto_slack_exceeds_span(front)
                    ? " — wider than the front's own span: its two ends hold, its shape between them does not"
                    : "");
    status = write_pareto_table(out, in, front, err);
    sslat_pareto_free(front);
    return status;
}

/* ---- validation: predicted vs measured ----------------------------------------------------- */

static void write_validation(FILE *out, const report_input *in)
{
    int32_t n = in->n_validation;
    double *predicted = malloc((size_t)n * sizeof *predicted), *measured = malloc((size_t)n * sizeof *measured);
    if (!predicted || !measured) {
        free(predicted), free(measured);
        fputs("<p>(validation: out of memory)</p>\n", out);
        return;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (int32_t i = 0; i < n; i++) {
        predicted[i] = in->validation[i].predicted;
        measured[i] = in->validation[i].measured;
        lo = fmin(lo, fmin(predicted[i], measured[i]));
        hi = fmax(hi, fmax(predicted[i], measured[i]));
    }
    lo *= 0.9, hi *= 1.1;
    sslat_validation_summary s = sslat_validation_summarize(predicted, measured, (size_t)n);
    const char *unit = "ms"; /* what sslat validate measures and writes (predicted_ms, measured_ms) */
    char x_label[64], y_label[64];
    snprintf(x_label, sizeof x_label, "measured end to end (%s)", unit);
    const char *runtime = in->validation_runtime ? in->validation_runtime : "(not recorded)";
    snprintf(y_label, sizeof y_label, "predicted by the table (%s)", unit);
    plot_frame f = {lo, hi, lo, hi, 70, 20, 420, 420};
    fputs("<h2>Validation: predicted vs measured</h2>\n<p id=\"validation-reference\">Measured by ", out);
    plot_escape(out, runtime);
    fputs(".</p>\n", out);
    plot_begin(out, "validation-scatter", 560, 490, "predicted against measured latency of whole architectures");
    plot_axes(out, &f, x_label, y_label);
    /* y = x and the ±5% / ±10% bands */
    const double bands[] = {1.0, 1.05, 0.95, 1.10, 0.90};
    const char *dashes[] = {"", " stroke-dasharray=\"4 3\"", " stroke-dasharray=\"4 3\"",
                            " stroke-dasharray=\"1 3\"", " stroke-dasharray=\"1 3\""};
    for (int k = 0; k < 5; k++) {
        double r = bands[k], x1 = fmax(lo, lo / r), x2 = fmin(hi, hi / r); /* stay inside the frame */
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"%s/>\n",
                plot_x(&f, x1), plot_y(&f, x1 * r), plot_x(&f, x2), plot_y(&f, x2 * r), dashes[k]);
    }
    fputs("<g class=\"points\" fill=\"#2b8a3e\">\n", out);
    for (int32_t i = 0; i < n; i++) {
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\"><title>", plot_x(&f, measured[i]),
                plot_y(&f, predicted[i]));
        plot_escape(out, in->validation[i].label);
        fprintf(out, ": predicted %.4g, measured %.4g %s (%+.1f%%)</title></circle>\n", predicted[i],
                measured[i], unit, 100 * (predicted[i] - measured[i]) / measured[i]);
        /* printed beside the point: "min", "max", the current one by name, a random one by its number */
        const char *label = in->validation[i].label;
        if (!strncmp(label, "random ", 7)) label += 7;
        if (!strncmp(label, "stratum ", 8)) label += 8;
        fprintf(out, "<text class=\"point-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"10\" fill=\"#1b5e20\">",
                plot_x(&f, measured[i]) + 6, plot_y(&f, predicted[i]) - 4);
        plot_escape(out, label);
        fputs("</text>\n", out);
    }
    fputs("</g>\n", out);
    plot_end(out);
    /* the rank figures with their intervals, and the MAC count's beside them when every row has it */
    double *macs = malloc((size_t)n * sizeof *macs + 1);
    bool counted = macs != NULL;
    for (int32_t i = 0; counted && i < n; i++) counted = isfinite(macs[i] = in->validation[i].macs);
    sslat_rank_figures r;
    sslat_error ignored;
    bool ranked = n >= 2 && sslat_rank_figures_compute(predicted, counted ? macs : NULL, measured, (size_t)n,
                                                       sslat_bootstrap_resamples((size_t)n), in->validation_seed, &r,
                                                       &ignored) == SSLAT_OK;
    fprintf(out, "<p class=\"caption\" id=\"validation-figures\">%d architecture%s. MAPE %.2f%%, within ±5%%: "
                 "%.0f%%, within ±10%%: %.0f%%, bias %+.2f%%", n, n == 1 ? "" : "s", 100 * s.mape, 100 * s.within_5,
            100 * s.within_10, 100 * s.bias);
    if (ranked && !isnan(r.tau.value)) fprintf(out, ", Kendall τ %.3f", r.tau.value);
    else fputs(", no ranking (the predictions or the measurements are all equal)", out);
    bool intervals = ranked && r.resamples > 0 && !isnan(r.tau.value);
    if (intervals)
        fprintf(out, " [%.3f, %.3f], Spearman ρ %.3f [%.3f, %.3f] (bootstrap 95%% intervals, %d resamples)",
                r.tau.low, r.tau.high, r.rho.value, r.rho.low, r.rho.high, r.resamples);
    if (intervals && counted && !isnan(r.mac_tau.value))
        fprintf(out, "; the MAC count on the same architectures: Kendall τ %.3f [%.3f, %.3f]", r.mac_tau.value,
                r.mac_tau.low, r.mac_tau.high);
    fputs(". Solid: predicted = measured; dashed ±5%, dotted ±10%. Points are labelled: min and max are the "
          "fastest and slowest architectures by the table, numbers the strata of the latency range (or random "
          "draws, in an older validation).</p>\n", out);
    if (intervals && counted && sslat_rank_versus_macs(&r) == SSLAT_VS_MACS_WORSE)
        fprintf(out, "<div class=\"warning\" id=\"validation-worse-than-macs\"><b>This table ranks these "
                     "architectures worse than their MAC count does</b> (Kendall τ %.3f against %.3f, beyond the "
                     "interval of their difference): for ranking, "
                     "the MAC count is the better proxy, and the table is not worth using until it beats it.</div>\n",
                r.tau.value, r.mac_tau.value);
    free(macs);
    free(predicted), free(measured);
}

/* ---- the page ----------------------------------------------------------------------------- */

sslat_status report_render(const report_input *in, char **html, sslat_error *err)
{
    *html = NULL;
    const sslat_container *t = in->table;
    double min, max, mean, median, bound;
    sslat_status status = sslat_min_latency(t, &min, err);
    if (status == SSLAT_OK) status = sslat_max_latency(t, &max, err);
    if (status == SSLAT_OK) status = sslat_mean_latency(t, &mean, err);
    if (status == SSLAT_OK) status = sslat_latency_quantile(t, 0.5, NULL, &median, &bound, err);
    if (status != SSLAT_OK) return status;
    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (!out) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    fprintf(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                 "<title>sslat report: ");
    plot_escape(out, sslat_container_space_name(t));
    fprintf(out, "</title><style>%s</style></head>\n<body>\n<h1>sslat report: ", STYLE);
    plot_escape(out, sslat_container_space_name(t));
    fputs(" · ", out);
    plot_escape(out, sslat_container_value_name(t));
    fputs("</h1>\n", out);
    write_summary(out, in, min, median, bound, mean, max);
    write_heatmap(out, in);
    status = write_distribution(out, in, min, median, max, err);
    if (status == SSLAT_OK && in->mac) status = write_mac_scatter(out, in, err);
    if (status == SSLAT_OK && in->value) status = write_pareto(out, in, err);
    if (status == SSLAT_OK && in->validation) write_validation(out, in);
    fprintf(out, "<p class=\"caption\">Made by sslat %s. Self-contained: no script, no network.</p>\n"
                 "</body></html>\n",
            sslat_version());
    if (fclose(out) != 0 && status == SSLAT_OK) status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    if (status != SSLAT_OK) {
        free(text);
        return status;
    }
    *html = text;
    return SSLAT_OK;
}
