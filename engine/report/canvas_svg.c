/* The SVG canvas: every drawing call one element, written as it comes. The
 * figure has no script, no link and no external font or style: it renders
 * the same offline, in a browser, Inkscape or a LaTeX toolchain. */
#include "report/canvas.h"

#include "report/svg_plot.h"

static void color(FILE *out, const char *attribute, uint32_t rgb)
{
    fprintf(out, " %s=\"#%06x\"", attribute, (unsigned)(rgb & 0xffffff));
}

static void style_attributes(FILE *out, const canvas_style *s)
{
    if (s->filled) {
        color(out, "fill", s->fill);
        if (s->opacity > 0 && s->opacity < 1) fprintf(out, " fill-opacity=\"%.2f\"", s->opacity);
    } else {
        fputs(" fill=\"none\"", out);
    }
    if (s->stroked) {
        color(out, "stroke", s->stroke);
        fprintf(out, " stroke-width=\"%.2f\" stroke-linejoin=\"round\"", s->width > 0 ? s->width : 1);
        if (s->dashed) fputs(" stroke-dasharray=\"3 2\"", out);
    }
}

static void svg_path(canvas *c, const double *xy, size_t n, bool closed, const canvas_style *style)
{
    FILE *out = c->state;
    if (n < 2) return;
    fputs("<path d=\"", out);
    for (size_t i = 0; i < n; i++) fprintf(out, "%s%.2f %.2f", i ? " L" : "M", xy[2 * i], xy[2 * i + 1]);
    fprintf(out, "%s\"", closed ? " Z" : "");
    style_attributes(out, style);
    fputs("/>\n", out);
}

static void svg_circle(canvas *c, double x, double y, double r, const canvas_style *style)
{
    FILE *out = c->state;
    fprintf(out, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\"", x, y, r);
    style_attributes(out, style);
    fputs("/>\n", out);
}

static void svg_text(canvas *c, double x, double y, const char *text, const canvas_text_style *style)
{
    static const char *const ANCHOR[] = {"start", "middle", "end"};
    FILE *out = c->state;
    fprintf(out, "<text x=\"%.2f\" y=\"%.2f\" font-size=\"%.1f\" text-anchor=\"%s\"", x, y, style->size,
            ANCHOR[style->anchor]);
    color(out, "fill", style->color);
    if (style->bold) fputs(" font-weight=\"bold\"", out);
    if (style->vertical) fprintf(out, " transform=\"rotate(-90 %.2f %.2f)\"", x, y);
    fputc('>', out);
    char plain[2] = {0, 0};
    for (const char *p = text ? text : ""; *p; p++) {
        plain[0] = canvas_plain_char(*p);
        plot_escape(out, plain);
    }
    fputs("</text>\n", out);
}

void canvas_svg_begin(canvas *c, FILE *out, double width, double height, bool standalone, const char *id,
                      const char *title)
{
    *c = (canvas){svg_path, svg_circle, svg_text, width, height, out};
    if (standalone) fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n", out);
    fprintf(out, "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\"");
    if (id) {
        fputs(" id=\"", out);
        plot_escape(out, id);
        fputc('"', out);
    }
    /* width and height in points: one column of a two-column paper is 3.5 in = 252 pt */
    fprintf(out, " width=\"%.0fpt\" height=\"%.0fpt\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
                 "font-family=\"Helvetica, Arial, sans-serif\">\n", width, height, width, height);
    if (title) {
        fputs("<title>", out);
        plot_escape(out, title);
        fputs("</title>\n", out);
    }
    fprintf(out, "<rect width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", width, height);
}

void canvas_svg_end(canvas *c) { fputs("</svg>\n", (FILE *)c->state); }
