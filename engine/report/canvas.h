/* A drawing surface for figures that are written both as SVG and as PDF
 * (`sslat plot`, the report's front): lines, filled shapes, markers and
 * Helvetica text in points, origin at the top left, y downwards. One figure
 * module draws; canvas_svg.c and canvas_pdf.c write. */
#ifndef SSLAT_REPORT_CANVAS_H
#define SSLAT_REPORT_CANVAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct canvas_style {
    uint32_t stroke, fill;   /* 0xRRGGBB */
    bool stroked, filled;
    double width;            /* stroke width in points */
    double opacity;          /* of the fill (0..1; 1 when 0) */
    bool dashed;
} canvas_style;

typedef enum canvas_anchor { CANVAS_START, CANVAS_MIDDLE, CANVAS_END } canvas_anchor;

typedef struct canvas_text_style {
    double size;             /* points */
    canvas_anchor anchor;
    bool vertical;           /* rotated 90° counter-clockwise (a y axis label) */
    bool bold;
    uint32_t color;
} canvas_text_style;

typedef struct canvas canvas;
struct canvas {
    /* xy: n points as x0, y0, x1, y1, … */
    void (*path)(canvas *c, const double *xy, size_t n, bool closed, const canvas_style *style);
    void (*circle)(canvas *c, double x, double y, double r, const canvas_style *style);
    /* ASCII text (other bytes are drawn as '?') */
    void (*text)(canvas *c, double x, double y, const char *text, const canvas_text_style *style);
    double width, height;    /* points */
    void *state;             /* the backend's */
};

/* Width of ASCII text in Helvetica (or Helvetica-Bold) at size points: the
 * standard fonts' metrics, so the PDF anchors text where the SVG does. */
double canvas_text_width(const char *text, double size, bool bold);

/* The byte a figure writes for a character of text: printable ASCII as it
 * is, anything else '?' (the standard PDF fonts have no other glyphs). */
char canvas_plain_char(char c);

/* An SVG canvas writing to out: canvas_svg_begin writes the <svg> element
 * (standalone: with the XML declaration; id and title may be NULL),
 * canvas_svg_end closes it. The canvas lives until then. */
void canvas_svg_begin(canvas *c, FILE *out, double width, double height, bool standalone, const char *id,
                      const char *title);
void canvas_svg_end(canvas *c);

/* A PDF canvas: drawn into memory, written whole (one page, the standard
 * Helvetica fonts, no script, no link; title and subject in its info) by
 * canvas_pdf_end; false when out of memory or the write failed. */
bool canvas_pdf_begin(canvas *c, double width, double height, const char *title, const char *subject);
bool canvas_pdf_end(canvas *c, FILE *out);

#endif
