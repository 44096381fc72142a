/* Small inline-SVG drawing helpers for `sslat report`: a plot frame mapping data
 * to pixels, axes with round tick values, XML escaping and a colour ramp. */
#ifndef SSLAT_SVG_PLOT_H
#define SSLAT_SVG_PLOT_H

#include <stddef.h>
#include <stdio.h>

/* The data range shown and the pixel box it maps to (y grows upwards in data). */
typedef struct plot_frame {
    double x_min, x_max, y_min, y_max;
    double left, top, width, height;
} plot_frame;

double plot_x(const plot_frame *frame, double x);
double plot_y(const plot_frame *frame, double y);

/* Round tick values covering [lo, hi] (about target of them); returns the count. */
int plot_ticks(double lo, double hi, int target, double *ticks, int capacity);

/* <svg id=… width height viewBox role="img"> with a <title>; plot_end closes it. */
void plot_begin(FILE *out, const char *id, int width, int height, const char *title);
void plot_end(FILE *out);

/* The frame's box, ticks and grid on both axes, and the axis labels. */
void plot_axes(FILE *out, const plot_frame *frame, const char *x_label, const char *y_label);

/* A vertical marker line across the frame at x, labelled at the top. */
void plot_marker(FILE *out, const plot_frame *frame, double x, const char *color, const char *label,
                 int label_row);

/* n points (x[i], y[i]) as circles of radius r in one group. */
void plot_points(FILE *out, const plot_frame *frame, const double *x, const double *y, size_t n, const char *fill,
                 double opacity, double radius);

/* The current architecture: one larger orange point with its title. */
void plot_current(FILE *out, const plot_frame *frame, double x, double y);

/* Text with &, <, >, " and ' escaped for XML and HTML; a control byte as U+FFFD. */
void plot_escape(FILE *out, const char *text);

/* A perceptually ordered colour (dark blue → yellow) for t in [0, 1] as "#rrggbb". */
void plot_color(double t, char out[8]);

#endif
