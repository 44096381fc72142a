/* The PDF canvas: the drawing calls become one page's content stream in
 * memory; canvas_pdf_end writes a PDF 1.4 file around it: catalog, one page,
 * the standard Helvetica and Helvetica-Bold fonts (every reader has them: no
 * font is embedded), graphics states for the fill opacities, an info
 * dictionary, the cross-reference table. No script, no link, no compression:
 * the file is plain text a test can read. PDF's y axis points up: y is
 * flipped here, so the figure code draws as for SVG. */
#include "report/canvas.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Fill opacities the figures use, one graphics state each (/G0 …); a fill
 * takes the nearest. */
static const double OPACITIES[] = {1.0, 0.6, 0.35, 0.2, 0.12};
enum { N_OPACITIES = sizeof OPACITIES / sizeof OPACITIES[0] };

typedef struct pdf_state {
    char *stream;
    size_t used, capacity;
    bool failed; /* out of memory: the file is not written */
    char title[256], subject[4096];
} pdf_state;

/* text as a PDF string's contents: printable ASCII, no parenthesis or backslash */
static void plain_string(const char *text, char *out, size_t size)
{
    size_t n = 0;
    for (const char *p = text ? text : ""; *p && n + 1 < size; p++) {
        char ch = canvas_plain_char(*p);
        out[n++] = ch == '(' ? '[' : ch == ')' ? ']' : ch == '\\' ? '/' : ch;
    }
    out[n] = '\0';
}

static void emit(canvas *c, const char *format, ...)
{
    pdf_state *s = c->state;
    if (s->failed) return;
    for (;;) {
        va_list args;
        va_start(args, format);
        int n = vsnprintf(s->stream + s->used, s->capacity - s->used, format, args);
        va_end(args);
        if (n < 0) {
            s->failed = true;
            return;
        }
        if ((size_t)n < s->capacity - s->used) {
            s->used += (size_t)n;
            return;
        }
        size_t grown = (s->capacity + (size_t)n + 1) * 2;
        char *bigger = realloc(s->stream, grown);
        if (!bigger) {
            s->failed = true;
            return;
        }
        s->stream = bigger;
        s->capacity = grown;
    }
}

static void rgb(canvas *c, uint32_t color, const char *op)
{
    emit(c, "%.3f %.3f %.3f %s\n", ((color >> 16) & 0xff) / 255.0, ((color >> 8) & 0xff) / 255.0,
         (color & 0xff) / 255.0, op);
}

static int nearest_opacity(double opacity)
{
    if (!(opacity > 0) || opacity >= 1) return 0;
    int best = 0;
    for (int i = 1; i < N_OPACITIES; i++)
        if (fabs(OPACITIES[i] - opacity) < fabs(OPACITIES[best] - opacity)) best = i;
    return best;
}

/* Colours, width, dash and opacity of one shape, inside q … Q. */
static void begin_shape(canvas *c, const canvas_style *style)
{
    emit(c, "q\n");
    if (style->filled) {
        rgb(c, style->fill, "rg");
        emit(c, "/G%d gs\n", nearest_opacity(style->opacity));
    }
    if (style->stroked) {
        rgb(c, style->stroke, "RG");
        emit(c, "%.2f w 1 J 1 j\n", style->width > 0 ? style->width : 1);
        if (style->dashed) emit(c, "[3 2] 0 d\n");
    }
}

static const char *paint(const canvas_style *style)
{
    if (style->filled && style->stroked) return "B";
    return style->filled ? "f" : "S";
}

static void pdf_path(canvas *c, const double *xy, size_t n, bool closed, const canvas_style *style)
{
    if (n < 2) return;
    begin_shape(c, style);
    for (size_t i = 0; i < n; i++) emit(c, "%.2f %.2f %s\n", xy[2 * i], c->height - xy[2 * i + 1], i ? "l" : "m");
    if (closed) emit(c, "h\n");
    emit(c, "%s\nQ\n", paint(style));
}

/* Four cubic Béziers, the usual circle (control points at 0.5523 r). */
static void pdf_circle(canvas *c, double x, double y, double r, const canvas_style *style)
{
    const double k = 0.5523 * r;
    double cy = c->height - y;
    begin_shape(c, style);
    emit(c, "%.2f %.2f m\n", x + r, cy);
    emit(c, "%.2f %.2f %.2f %.2f %.2f %.2f c\n", x + r, cy + k, x + k, cy + r, x, cy + r);
    emit(c, "%.2f %.2f %.2f %.2f %.2f %.2f c\n", x - k, cy + r, x - r, cy + k, x - r, cy);
    emit(c, "%.2f %.2f %.2f %.2f %.2f %.2f c\n", x - r, cy - k, x - k, cy - r, x, cy - r);
    emit(c, "%.2f %.2f %.2f %.2f %.2f %.2f c\n", x + k, cy - r, x + r, cy - k, x + r, cy);
    emit(c, "h\n%s\nQ\n", paint(style));
}

static void pdf_text(canvas *c, double x, double y, const char *text, const canvas_text_style *style)
{
    double width = canvas_text_width(text, style->size, style->bold);
    double shift = style->anchor == CANVAS_MIDDLE ? width / 2 : style->anchor == CANVAS_END ? width : 0;
    emit(c, "q\n");
    rgb(c, style->color, "rg");
    emit(c, "BT\n/F%d %.2f Tf\n", style->bold ? 2 : 1, style->size);
    if (style->vertical) /* rotated 90° counter-clockwise about (x, y), then moved along the text */
        emit(c, "0 1 -1 0 %.2f %.2f Tm\n", x, c->height - y - shift);
    else
        emit(c, "1 0 0 1 %.2f %.2f Tm\n", x - shift, c->height - y);
    emit(c, "(");
    for (const char *p = text ? text : ""; *p; p++) {
        char ch = canvas_plain_char(*p);
        if (ch == '(' || ch == ')' || ch == '\\') emit(c, "\\%c", ch);
        else emit(c, "%c", ch);
    }
    emit(c, ") Tj\nET\nQ\n");
}

bool canvas_pdf_begin(canvas *c, double width, double height, const char *title, const char *subject)
{
    pdf_state *s = calloc(1, sizeof *s);
    if (!s) return false;
    s->capacity = 1 << 14;
    s->stream = malloc(s->capacity);
    if (!s->stream) {
        free(s);
        return false;
    }
    plain_string(title, s->title, sizeof s->title);
    plain_string(subject, s->subject, sizeof s->subject);
    *c = (canvas){pdf_path, pdf_circle, pdf_text, width, height, s};
    /* a white page */
    emit(c, "1 1 1 rg\n0 0 %.2f %.2f re\nf\n", width, height);
    return true;
}

bool canvas_pdf_end(canvas *c, FILE *out)
{
    pdf_state *s = c->state;
    bool ok = !s->failed;
    long offsets[16];
    int object = 0;
#define OBJECT() (offsets[++object] = ftell(out), fprintf(out, "%d 0 obj\n", object))
    if (ok) {
        fputs("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n", out);
        OBJECT();
        fputs("<< /Type /Catalog /Pages 2 0 R >>\nendobj\n", out);
        OBJECT();
        fputs("<< /Type /Pages /Kids [3 0 R] /Count 1 >>\nendobj\n", out);
        OBJECT();
        fprintf(out, "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %.2f %.2f] /Contents 6 0 R\n"
                     "   /Resources << /Font << /F1 4 0 R /F2 5 0 R >> /ExtGState <<", c->width, c->height);
        for (int i = 0; i < N_OPACITIES; i++) fprintf(out, " /G%d %d 0 R", i, 8 + i);
        fputs(" >> >> >>\nendobj\n", out);
        OBJECT();
        fputs("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>\nendobj\n", out);
        OBJECT();
        fputs("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>\nendobj\n",
              out);
        OBJECT();
        fprintf(out, "<< /Length %zu >>\nstream\n", s->used);
        fwrite(s->stream, 1, s->used, out);
        fputs("endstream\nendobj\n", out);
        OBJECT();
        fprintf(out, "<< /Title (%s) /Subject (%s) /Producer (sslat) >>\nendobj\n", s->title, s->subject);
        for (int i = 0; i < N_OPACITIES; i++) {
            OBJECT();
            fprintf(out, "<< /Type /ExtGState /ca %.2f /CA 1 >>\nendobj\n", OPACITIES[i]);
        }
        long xref = ftell(out);
        fprintf(out, "xref\n0 %d\n0000000000 65535 f \n", object + 1);
        for (int i = 1; i <= object; i++) fprintf(out, "%010ld 00000 n \n", offsets[i]);
        fprintf(out, "trailer\n<< /Size %d /Root 1 0 R /Info 7 0 R >>\nstartxref\n%ld\n%%%%EOF\n", object + 1, xref);
        ok = !ferror(out);
    }
#undef OBJECT
    free(s->stream);
    free(s);
    c->state = NULL;
    return ok;
}
