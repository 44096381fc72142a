#include "report/svg_plot.h"

#include <math.h>

double plot_x(const plot_frame *f, double x)
{
    double span = f->x_max - f->x_min;
    return f->left + (span > 0 ? (x - f->x_min) / span : 0.5) * f->width;
}

double plot_y(const plot_frame *f, double y)
{
    double span = f->y_max - f->y_min;
    return f->top + f->height - (span > 0 ? (y - f->y_min) / span : 0.5) * f->height;
}

int plot_ticks(double lo, double hi, int target, double *ticks, int capacity)
{
    if (!(hi > lo) || !isfinite(lo) || !isfinite(hi)) {
        if (capacity > 0 && isfinite(lo)) ticks[0] = lo;
        return capacity > 0 && isfinite(lo) ? 1 : 0;
    }
    /* step = 1, 2 or 5 × 10^k, the first giving at most `target` intervals */
    double raw = (hi - lo) / (target > 1 ? target : 1), power = pow(10, floor(log10(raw)));
    double step = power;
    if (raw > 5 * power) step = 10 * power;
    else if (raw > 2 * power) step = 5 * power;
    else if (raw > power) step = 2 * power;
    int n = 0;
    for (double t = ceil(lo / step) * step; t <= hi + step * 1e-9 && n < capacity; t += step)
        ticks[n++] = fabs(t) < step * 1e-9 ? 0.0 : t;
    return n;
}

void plot_escape(FILE *out, const char *text)
{
    for (const char *c = text ? text : ""; *c; c++) {
        switch (*c) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: /* a control byte (from a file's label) is no character XML allows: shown as U+FFFD */
            if (((unsigned char)*c < 0x20 && *c != '\t' && *c != '\n') || *c == 0x7f) fputs("&#xFFFD;", out);
            else fputc(*c, out);
        }
    }
}

void plot_begin(FILE *out, const char *id, int width, int height, const char *title)
{
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" id=\"%s\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\" role=\"img\" font-family=\"sans-serif\" font-size=\"11\"><title>",
            id, width, height, width, height);
    plot_escape(out, title);
    fputs("</title>\n", out);
}

void plot_end(FILE *out) { fputs("</svg>\n", out); }

void plot_axes(FILE *out, const plot_frame *f, const char *x_label, const char *y_label)
{
    double ticks[32];
    fprintf(out, "<g class=\"axes\" stroke=\"#bbb\" stroke-width=\"0.5\">\n");
    int n = plot_ticks(f->x_min, f->x_max, 8, ticks, 32);
    for (int i = 0; i < n; i++) {
        double x = plot_x(f, ticks[i]);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" stroke=\"none\" fill=\"#333\">%g</text>\n",
                x, f->top, x, f->top + f->height, x, f->top + f->height + 14, ticks[i]);
    }
    n = plot_ticks(f->y_min, f->y_max, 6, ticks, 32);
    for (int i = 0; i < n; i++) {
        double y = plot_y(f, ticks[i]);
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" stroke=\"none\" fill=\"#333\">%g</text>\n",
                f->left, y, f->left + f->width, y, f->left - 4, y + 4, ticks[i]);
    }
    fprintf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" stroke=\"#666\"/>\n",
            f->left, f->top, f->width, f->height);
    fprintf(out, "</g>\n<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">", f->left + f->width / 2,
            f->top + f->height + 32);
    plot_escape(out, x_label);
    fprintf(out, "</text>\n<text transform=\"translate(%.1f,%.1f) rotate(-90)\" text-anchor=\"middle\">",
            f->left - 46, f->top + f->height / 2);
    plot_escape(out, y_label);
    fputs("</text>\n", out);
}

void plot_marker(FILE *out, const plot_frame *f, double x, const char *color, const char *label,
                 int label_row)
{
    double px = plot_x(f, x);
    fprintf(out, "<g class=\"marker\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                 "stroke-width=\"1.5\" stroke-dasharray=\"4 2\"/><text x=\"%.1f\" y=\"%.1f\" fill=\"%s\" "
                 "text-anchor=\"middle\">",
            px, f->top, px, f->top + f->height, color, px, f->top - 4 - 12.0 * label_row, color);
    plot_escape(out, label);
    fputs("</text></g>\n", out);
}

void plot_color(double t, char out[8])
{
    /* viridis, sampled at five points and interpolated linearly */
    static const double STOPS[5][3] = {
        {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    if (!(t >= 0)) t = 0;
    if (t > 1) t = 1;
    double at = t * 4;
    int i = at >= 4 ? 3 : (int)at;
    double w = at - i;
    int rgb[3];
    for (int k = 0; k < 3; k++) rgb[k] = (int)lround(STOPS[i][k] * (1 - w) + STOPS[i + 1][k] * w);
    snprintf(out, 8, "#%02x%02x%02x", rgb[0], rgb[1], rgb[2]);
}

void plot_points(FILE *out, const plot_frame *frame, const double *x, const double *y, size_t n, const char *fill,
                 double opacity, double radius)
{
    fprintf(out, "<g class=\"points\" fill=\"%s\" fill-opacity=\"%.2f\">\n", fill, opacity);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\"/>\n", plot_x(frame, x[i]), plot_y(frame, y[i]), radius);
    fputs("</g>\n", out);
}

void plot_current(FILE *out, const plot_frame *frame, double x, double y)
{
    fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"#e8590c\"><title>current architecture</title></circle>\n",
            plot_x(frame, x), plot_y(frame, y));
}
