/* The front figure of `sslat plot`, sslat_plot_fronts and the report: one
 * or more Pareto fronts of latency (x, lower is better) against a value
 * (y, higher is better) on one pair of axes, drawn on a canvas (SVG or PDF):
 *  - each front a step line, its tabulated points numbered on it (the same
 *    points, spread evenly in latency, that front_figure_numbered gives the
 *    tables printed beside the figure);
 *  - a band of ±1 standard deviation of latency around it where its entries
 *    were timed (the entries' sample spreads summed as independent);
 *  - reference networks as labelled squares, the chosen architecture as a
 *    labelled triangle;
 *  - a legend where there is more than one front, in the corner a front
 *    never reaches (fast and best: upper left).
 * Sized for one column of a two-column paper by default (252 × 189 pt). */
#ifndef SSLAT_REPORT_FRONT_FIGURE_H
#define SSLAT_REPORT_FRONT_FIGURE_H

#include "report/canvas.h"
#include "sslat.h"

typedef struct front_figure_front {
    const sslat_container *latency, *value;
    const char *label; /* in the legend (NULL: made from the latency table) */
    const sslat_pareto_front *front; /* their whole front when the caller has it (NULL: computed here) */
} front_figure_front;

typedef struct front_figure {
    const front_figure_front *fronts;
    size_t n_fronts;
    const sslat_plot_reference *references;
    size_t n_references;
    const int32_t *chosen; /* an architecture of the first front's space, or NULL */
    int32_t chosen_length;
    int32_t numbered;      /* points numbered on each front (0: none) */
    const char *chosen_label; /* NULL: "chosen" */
} front_figure;

#define FRONT_FIGURE_WIDTH 252.0
#define FRONT_FIGURE_HEIGHT 189.0
#define FRONT_FIGURE_MAX_FRONTS 6
#define FRONT_FIGURE_MAX_NUMBERED 50

/* Checks that the fronts can share axes (one latency unit; one value name
 * and unit), computes them and draws the figure on c. */
sslat_status front_figure_draw(canvas *c, const front_figure *figure, sslat_error *err);

/* The numbered points of a front: their indices into it (fastest first),
 * at most `numbered`; returns how many. */
int64_t front_figure_numbered(const sslat_pareto_front *front, int32_t numbered, int64_t *chosen);

/* The legend's name of a front without a label: "<space> <calculator>[ dtype]"
 * and, for a calibrated table, " as <runtime>". */
void front_figure_default_label(const sslat_container *latency, char *out, size_t size);

/* What the figure shows and where its figures come from, for the SVG's
 * <desc> and the PDF's subject: each front's tables, what the latency
 * predicts and the machine it was measured on. */
void front_figure_provenance(const front_figure *figure, char *out, size_t size);

#endif
