#include "report/front_figure.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "report/svg_plot.h"
#include "stats/stats.h"
#include "table/container.h"
#include "table/describe.h"

/* Okabe and Ito's colour-blind-safe palette, one colour per front. */
static const uint32_t PALETTE[FRONT_FIGURE_MAX_FRONTS] = {0x0072b2, 0xd55e00, 0x009e73, 0xcc79a7, 0x56b4e9, 0xe69f00};
#define INK 0x222222u
#define GRID 0xe3e3e3u
#define CHOSEN 0xe69f00u

/* The plot area inside the page, in points: room for tick labels and axis
 * titles at the left and the bottom. */
enum { MARGIN_LEFT = 42, MARGIN_RIGHT = 8, MARGIN_TOP = 8, MARGIN_BOTTOM = 30 };

/* One front as drawn: its points (fastest first) and their latency spread. */
typedef struct drawn_front {
    const sslat_pareto_front *front;
    sslat_pareto_front *owned; /* the front computed here (NULL: the caller's) */
    int32_t n;
    double *latency, *value, *sigma;
    bool has_sigma;
} drawn_front;

void front_figure_default_label(const sslat_container *t, char *out, size_t size)
{
    const char *dtype = sslat_container_dtype(t), *calibrated = sslat_table_calibrated_to(t);
    snprintf(out, size, "%s %s%s%s%s%s", sslat_container_space_title(t), sslat_container_value_name(t),
             *dtype && strcmp(dtype, "fp32") ? " " : "", *dtype && strcmp(dtype, "fp32") ? dtype : "",
             calibrated ? " as " : "", calibrated ? calibrated : "");
}

int64_t front_figure_numbered(const sslat_pareto_front *front, int32_t numbered, int64_t *chosen)
{
    int32_t n = sslat_pareto_size(front);
    if (numbered <= 0 || n <= 0) return 0;
    double *latency = malloc((size_t)n * sizeof *latency);
    if (!latency) return 0;
    for (int32_t i = 0; i < n; i++) sslat_pareto_point(front, i, NULL, 0, &latency[i], NULL, NULL);
    int64_t count = n <= numbered ? n : sslat_pareto_spread(latency, n, numbered, chosen);
    if (n <= numbered)
        for (int32_t i = 0; i < n; i++) chosen[i] = i;
    free(latency);
    return count;
}

/* The latency spread of an architecture: the entries' sample standard
 * deviations (and the constant's) added as independent variances. */
static double spread_of(const sslat_container *t, const int32_t *arch)
{
    sslat_entry constant = sslat_container_constant_entry(t);
    double variance = constant.samples > 1 ? constant.stddev * constant.stddev : 0;
    for (int32_t b = 0; b < sslat_container_block_count(t); b++) {
        sslat_entry e;
        if (sslat_container_entry(t, b, arch[b], &e, NULL) == SSLAT_OK && e.samples > 1)
            variance += e.stddev * e.stddev;
    }
    return sqrt(variance);
}

static void release(drawn_front *d)
{
    sslat_pareto_free(d->owned);
    free(d->latency);
    free(d->value);
    free(d->sigma);
}

static sslat_status compute(const front_figure_front *f, drawn_front *d, sslat_error *err)
{
    memset(d, 0, sizeof *d);
    sslat_status status = SSLAT_OK;
    if (f->front) d->front = f->front;
    else if ((status = sslat_pareto_compute(f->latency, f->value, 0, &d->owned, err)) == SSLAT_OK) d->front = d->owned;
    if (status != SSLAT_OK) return status;
    d->n = sslat_pareto_size(d->front);
    int32_t blocks = sslat_container_block_count(f->latency);
    d->latency = malloc(((size_t)d->n + 1) * sizeof *d->latency);
    d->value = malloc(((size_t)d->n + 1) * sizeof *d->value);
    d->sigma = malloc(((size_t)d->n + 1) * sizeof *d->sigma);
    int32_t *arch = malloc(((size_t)blocks + 1) * sizeof *arch);
    if (!d->latency || !d->value || !d->sigma || !arch) status = sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    for (int32_t i = 0; status == SSLAT_OK && i < d->n; i++) {
        status = sslat_pareto_point(d->front, i, arch, blocks + 1, &d->latency[i], &d->value[i], err);
        d->sigma[i] = status == SSLAT_OK ? spread_of(f->latency, arch) : 0;
        d->has_sigma |= d->sigma[i] > 0;
    }
    free(arch);
    return status;
}

/* The fronts share axes: one latency unit, one value name and unit. */
static sslat_status check_axes(const front_figure *figure, sslat_error *err)
{
    if (figure->n_fronts < 1 || figure->n_fronts > FRONT_FIGURE_MAX_FRONTS)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "a figure shows 1 to %d fronts, not %zu",
                          FRONT_FIGURE_MAX_FRONTS, figure->n_fronts);
    const front_figure_front *first = &figure->fronts[0];
    for (size_t f = 1; f < figure->n_fronts; f++) {
        const front_figure_front *other = &figure->fronts[f];
        if (strcmp(sslat_container_unit(first->latency), sslat_container_unit(other->latency)))
            return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "front %zu's latency is in %s, front 1's in %s: one "
                              "figure has one x axis", f + 1, sslat_container_unit(other->latency),
                              sslat_container_unit(first->latency));
        if (strcmp(sslat_container_value_name(first->value), sslat_container_value_name(other->value)) ||
            strcmp(sslat_container_unit(first->value), sslat_container_unit(other->value)))
            return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "front %zu's values are %s (%s), front 1's %s (%s): "
                              "one figure has one y axis", f + 1, sslat_container_value_name(other->value),
                              sslat_container_unit(other->value), sslat_container_value_name(first->value),
                              sslat_container_unit(first->value));
    }
    double total;
    sslat_error why;
    if (figure->chosen && sslat_current_latency(first->latency, figure->chosen, figure->chosen_length, &total,
                                                &why) != SSLAT_OK)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "the chosen architecture, of the first front's space: %s",
                          why.message);
    for (size_t r = 0; r < figure->n_references; r++) {
        const sslat_plot_reference *ref = &figure->references[r];
        if (!ref->name || !*ref->name || !isfinite(ref->latency) || !isfinite(ref->value))
            return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "reference %zu needs a name, a finite latency and a "
                              "finite value", r + 1);
    }
    if (figure->numbered < 0 || figure->numbered > FRONT_FIGURE_MAX_NUMBERED)
        return sslat_fail(err, SSLAT_ERR_INVALID_ARGUMENT, "numbered points: 0 to %d per front, not %d",
                          FRONT_FIGURE_MAX_NUMBERED, (int)figure->numbered);
    return SSLAT_OK;
}

/* An architecture's total in a table (the architecture is checked before). */
static double total_of(const sslat_container *t, const int32_t *arch)
{
    double total = NAN;
    sslat_current_latency(t, arch, sslat_container_block_count(t), &total, NULL);
    return total;
}

/* A tick label: at most 4 significant digits, no trailing zeros. */
static void tick_text(double v, char *out, size_t size) { snprintf(out, size, "%.4g", v); }

static void draw_axes(canvas *c, const plot_frame *f, const char *x_label, const char *y_label)
{
    double ticks[16];
    char text[32];
    canvas_style grid = {.stroke = GRID, .stroked = true, .width = 0.5};
    canvas_style ink = {.stroke = INK, .stroked = true, .width = 0.7};
    canvas_text_style small = {.size = 6.5, .anchor = CANVAS_MIDDLE, .color = INK};
    int n = plot_ticks(f->x_min, f->x_max, 5, ticks, 16);
    for (int i = 0; i < n; i++) {
        double x = plot_x(f, ticks[i]), line[] = {x, f->top, x, f->top + f->height};
        c->path(c, line, 2, false, &grid);
        double mark[] = {x, f->top + f->height, x, f->top + f->height + 2.5};
        c->path(c, mark, 2, false, &ink);
        tick_text(ticks[i], text, sizeof text);
        c->text(c, x, f->top + f->height + 10, text, &small);
    }
    n = plot_ticks(f->y_min, f->y_max, 5, ticks, 16);
    small.anchor = CANVAS_END;
    for (int i = 0; i < n; i++) {
        double y = plot_y(f, ticks[i]), line[] = {f->left, y, f->left + f->width, y};
        c->path(c, line, 2, false, &grid);
        double mark[] = {f->left - 2.5, y, f->left, y};
        c->path(c, mark, 2, false, &ink);
        tick_text(ticks[i], text, sizeof text);
        c->text(c, f->left - 4, y + 2.3, text, &small);
    }
    double box[] = {f->left, f->top, f->left + f->width, f->top, f->left + f->width, f->top + f->height, f->left,
                    f->top + f->height};
    c->path(c, box, 4, true, &ink);
    canvas_text_style title = {.size = 7.5, .anchor = CANVAS_MIDDLE, .color = INK};
    c->text(c, f->left + f->width / 2, f->top + f->height + 22, x_label, &title);
    title.vertical = true;
    c->text(c, 11, f->top + f->height / 2, y_label, &title);
}

/* Appends (x, y) to a vertex list unless it repeats the last one to a tenth
 * of a point (a front of 10^5 points draws as the few hundred the page shows). */
static void vertex(double *xy, size_t *n, double x, double y)
{
    if (*n && fabs(xy[2 * *n - 2] - x) < 0.1 && fabs(xy[2 * *n - 1] - y) < 0.1) return;
    xy[2 * *n] = x;
    xy[2 * *n + 1] = y;
    (*n)++;
}

/* The step line of a front (a point's value holds until the next, slower,
 * point), shifted in latency by `side` standard deviations. */
static size_t step_line(const plot_frame *f, const drawn_front *d, double side, double *xy)
{
    size_t n = 0;
    for (int32_t i = 0; i < d->n; i++) {
        double x = plot_x(f, d->latency[i] + side * d->sigma[i]);
        if (i > 0) vertex(xy, &n, x, plot_y(f, d->value[i - 1]));
        vertex(xy, &n, x, plot_y(f, d->value[i]));
    }
    return n;
}

static sslat_status draw_front(canvas *c, const plot_frame *f, const drawn_front *d, uint32_t color, int32_t numbered,
                               sslat_error *err)
{
    size_t capacity = 4 * (size_t)d->n + 4;
    double *xy = malloc(2 * capacity * sizeof *xy), *back = malloc(2 * capacity * sizeof *back);
    int64_t *chosen = malloc(((size_t)numbered + 1) * sizeof *chosen);
    if (!xy || !back || !chosen) {
        free(xy), free(back), free(chosen);
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    }
    if (d->has_sigma) { /* the band: the line shifted −σ, then back along it shifted +σ */
        size_t left = step_line(f, d, -1, xy), right = step_line(f, d, +1, back);
        for (size_t i = 0; i < right; i++) {
            xy[2 * (left + i)] = back[2 * (right - 1 - i)];
            xy[2 * (left + i) + 1] = back[2 * (right - 1 - i) + 1];
        }
        canvas_style band = {.fill = color, .filled = true, .opacity = 0.2};
        c->path(c, xy, left + right, true, &band);
    }
    canvas_style line = {.stroke = color, .stroked = true, .width = 1.2};
    c->path(c, xy, step_line(f, d, 0, xy), false, &line);
    int64_t count = front_figure_numbered(d->front, numbered, chosen);
    canvas_style marker = {.fill = color, .filled = true, .stroke = 0xffffff, .stroked = true, .width = 0.5};
    canvas_text_style number = {.size = 5, .anchor = CANVAS_MIDDLE, .bold = true, .color = 0xffffff};
    for (int64_t k = 0; k < count; k++) {
        double x = plot_x(f, d->latency[chosen[k]]), y = plot_y(f, d->value[chosen[k]]);
        char text[8];
        snprintf(text, sizeof text, "%lld", (long long)(k + 1));
        c->circle(c, x, y, 4.0, &marker);
        c->text(c, x, y + 1.8, text, &number);
    }
    free(xy), free(back), free(chosen);
    return SSLAT_OK;
}

/* The labels already placed (their boxes), so the next one moves clear of them. */
enum { MAX_LABELS = 40 };
typedef struct placed_labels {
    double box[MAX_LABELS][4]; /* x0, y0, x1, y1 */
    int n;
} placed_labels;

static bool overlaps(const placed_labels *placed, const double box[4])
{
    for (int i = 0; i < placed->n; i++)
        if (box[0] < placed->box[i][2] && placed->box[i][0] < box[2] && box[1] < placed->box[i][3] &&
            placed->box[i][1] < box[3])
            return true;
    return false;
}

/* A labelled marker: a square (a reference network) or a triangle (the chosen one). */
static void draw_marked(canvas *c, const plot_frame *f, placed_labels *placed, double latency, double value,
                        const char *name, bool chosen)
{
    double x = plot_x(f, latency), y = plot_y(f, value), r = 3.2;
    canvas_style style = {.fill = chosen ? CHOSEN : 0xffffff, .filled = true, .stroke = INK, .stroked = true,
                          .width = 0.8};
    if (chosen) {
        double triangle[] = {x, y - r * 1.2, x + r * 1.1, y + r * 0.8, x - r * 1.1, y + r * 0.8};
        c->path(c, triangle, 3, true, &style);
    } else {
        double square[] = {x - r, y - r, x + r, y - r, x + r, y + r, x - r, y + r};
        c->path(c, square, 4, true, &style);
    }
    /* the name below and to the right, away from the front above it (to the
     * left near the right edge); lower, or else above, where another label is */
    canvas_text_style text = {.size = 6.5, .anchor = CANVAS_START, .color = INK};
    double width = canvas_text_width(name, text.size, false);
    bool left = x + 5 + width > f->left + f->width;
    double x0 = left ? x - 4 - width : x + 4;
    static const double DROPS[] = {10, 18, 26, -5, -13, 34};
    double baseline = y + DROPS[0];
    for (size_t i = 0; i < sizeof DROPS / sizeof DROPS[0]; i++) {
        double box[4] = {x0, y + DROPS[i] - 6, x0 + width, y + DROPS[i] + 1.5};
        if (box[3] > f->top + f->height || box[1] < f->top || overlaps(placed, box)) continue;
        baseline = y + DROPS[i];
        break;
    }
    if (placed->n < MAX_LABELS) {
        double *box = placed->box[placed->n++];
        box[0] = x0, box[1] = baseline - 6, box[2] = x0 + width, box[3] = baseline + 1.5;
    }
    text.anchor = left ? CANVAS_END : CANVAS_START;
    c->text(c, left ? x - 4 : x + 4, baseline, name, &text);
}

/* Rows of the legend: one per front where there are several, one for the band. */
static int legend_rows(const front_figure *figure, const drawn_front *fronts)
{
    bool band = false;
    for (size_t i = 0; i < figure->n_fronts; i++) band |= fronts[i].has_sigma;
    return (figure->n_fronts > 1 ? (int)figure->n_fronts : 0) + (band ? 1 : 0);
}

static void draw_legend(canvas *c, const plot_frame *f, const front_figure *figure, const drawn_front *fronts)
{
    bool band = false;
    for (size_t i = 0; i < figure->n_fronts; i++) band |= fronts[i].has_sigma;
    if (!legend_rows(figure, fronts)) return;
    canvas_text_style text = {.size = 6.5, .anchor = CANVAS_START, .color = INK};
    double x = f->left + 6, y = f->top + 9;
    for (size_t i = 0; i < figure->n_fronts && figure->n_fronts > 1; i++, y += 9) {
        char label[160];
        if (figure->fronts[i].label) snprintf(label, sizeof label, "%s", figure->fronts[i].label);
        else front_figure_default_label(figure->fronts[i].latency, label, sizeof label);
        canvas_style line = {.stroke = PALETTE[i], .stroked = true, .width = 1.5};
        double segment[] = {x, y - 2.2, x + 12, y - 2.2};
        c->path(c, segment, 2, false, &line);
        c->text(c, x + 15, y, label, &text);
    }
    if (band) {
        size_t first = 0; /* the band's colour: the first front that has one */
        while (!fronts[first].has_sigma) first++;
        canvas_style fill = {.fill = PALETTE[first], .filled = true, .opacity = 0.2};
        double box[] = {x, y - 5, x + 12, y - 5, x + 12, y + 0.5, x, y + 0.5};
        c->path(c, box, 4, true, &fill);
        c->text(c, x + 15, y, "band: latency +/- 1 sd of the entries' spread", &text);
    }
}

/* The data ranges of everything drawn, padded by 4 %, with room above the
 * data for the legend (no point under it). */
static plot_frame frame_of(const canvas *c, const front_figure *figure, const drawn_front *fronts)
{
    double x_lo = INFINITY, x_hi = -INFINITY, y_lo = INFINITY, y_hi = -INFINITY;
    for (size_t i = 0; i < figure->n_fronts; i++)
        for (int32_t k = 0; k < fronts[i].n; k++) {
            x_lo = fmin(x_lo, fronts[i].latency[k] - fronts[i].sigma[k]);
            x_hi = fmax(x_hi, fronts[i].latency[k] + fronts[i].sigma[k]);
            y_lo = fmin(y_lo, fronts[i].value[k]), y_hi = fmax(y_hi, fronts[i].value[k]);
        }
    for (size_t r = 0; r < figure->n_references; r++) {
        x_lo = fmin(x_lo, figure->references[r].latency), x_hi = fmax(x_hi, figure->references[r].latency);
        y_lo = fmin(y_lo, figure->references[r].value), y_hi = fmax(y_hi, figure->references[r].value);
    }
    if (figure->chosen) {
        double l = total_of(figure->fronts[0].latency, figure->chosen), v = total_of(figure->fronts[0].value, figure->chosen);
        x_lo = fmin(x_lo, l), x_hi = fmax(x_hi, l), y_lo = fmin(y_lo, v), y_hi = fmax(y_hi, v);
    }
    double x_pad = fmax((x_hi - x_lo) * 0.04, fabs(x_hi) * 1e-6 + 1e-12);
    double y_pad = fmax((y_hi - y_lo) * 0.04, fabs(y_hi) * 1e-6 + 1e-12);
    double height = c->height - MARGIN_TOP - MARGIN_BOTTOM;
    /* the legend's rows (9 pt each) and a margin, as a share of the plot's height, kept free above the data */
    double legend = fmin(0.6, (9.0 * legend_rows(figure, fronts) + 6.0) / height);
    double span = (y_hi + y_pad) - (y_lo - y_pad);
    double top = y_hi + y_pad + (legend > 0 ? span * legend / (1 - legend) : 0);
    return (plot_frame){x_lo - x_pad, x_hi + x_pad, y_lo - y_pad, top, MARGIN_LEFT, MARGIN_TOP,
                        c->width - MARGIN_LEFT - MARGIN_RIGHT, height};
}

sslat_status front_figure_draw(canvas *c, const front_figure *figure, sslat_error *err)
{
    sslat_status status = check_axes(figure, err);
    if (status != SSLAT_OK) return status;
    drawn_front fronts[FRONT_FIGURE_MAX_FRONTS];
    size_t computed = 0;
    while (status == SSLAT_OK && computed < figure->n_fronts) {
        status = compute(&figure->fronts[computed], &fronts[computed], err);
        if (status == SSLAT_OK) computed++;
        else release(&fronts[computed]);
    }
    if (status == SSLAT_OK) {
        plot_frame f = frame_of(c, figure, fronts);
        const sslat_container *latency = figure->fronts[0].latency, *value = figure->fronts[0].value;
        char x_label[96], y_label[96];
        snprintf(x_label, sizeof x_label, "latency in %s (lower is better)", sslat_container_unit(latency));
        snprintf(y_label, sizeof y_label, "%s%s%s (higher is better)", sslat_container_value_name(value),
                 *sslat_container_unit(value) ? " in " : "", sslat_container_unit(value));
        draw_axes(c, &f, x_label, y_label);
        /* the last front first, so the first is on top */
        for (size_t i = figure->n_fronts; status == SSLAT_OK && i-- > 0;)
            status = draw_front(c, &f, &fronts[i], PALETTE[i], figure->numbered, err);
        placed_labels placed = {.n = 0};
        for (size_t r = 0; status == SSLAT_OK && r < figure->n_references; r++)
            draw_marked(c, &f, &placed, figure->references[r].latency, figure->references[r].value,
                        figure->references[r].name, false);
        if (status == SSLAT_OK && figure->chosen)
            /* on the first front's tables: said so where there are several */
            draw_marked(c, &f, &placed, total_of(latency, figure->chosen), total_of(value, figure->chosen),
                        figure->chosen_label ? figure->chosen_label
                                             : figure->n_fronts > 1 ? "chosen (front 1)" : "chosen", true);
        if (status == SSLAT_OK) draw_legend(c, &f, figure, fronts);
    }
    for (size_t i = 0; i < computed; i++) release(&fronts[i]);
    return status;
}

void front_figure_provenance(const front_figure *figure, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < figure->n_fronts && used < size; i++) {
        const front_figure_front *f = &figure->fronts[i];
        char label[160], predicts[1400];
        if (f->label) snprintf(label, sizeof label, "%s", f->label);
        else front_figure_default_label(f->latency, label, sizeof label);
        sslat_table_predicts_text(f->latency, predicts, sizeof predicts, NULL);
        const char *verdict = sslat_container_metadata(f->latency, "quality.verdict");
        const char *machine = sslat_container_metadata(f->latency, "device.name");
        if (!machine) machine = sslat_container_metadata(f->latency, "host.cpu");
        used += (size_t)snprintf(out + used, size - used, "%sfront %zu (%s): latency of space %s%s%s%s%s%s%s; "
                                 "values: %s (%s)", i ? ". " : "", i + 1, label, sslat_container_space_title(f->latency),
                                 predicts[0] ? ", predicting " : "", predicts, machine ? ", measured on " : "",
                                 machine ? machine : "", verdict ? ", quality " : "", verdict ? verdict : "",
                                 sslat_container_value_name(f->value), sslat_container_unit(f->value));
    }
}
