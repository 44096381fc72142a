/* Helvetica's advance widths (the standard 14 fonts' AFM files, 1/1000 em)
 * for printable ASCII: where the PDF backend places anchored text, and how
 * much room a label takes in either format. */
#include "report/canvas.h"

static const unsigned short HELVETICA[95] = {
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, /* space .. / */
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, /* 0 .. ? */
    1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778, /* @ .. O */
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556, /* P .. _ */
    333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556, /* ` .. o */
    556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584};      /* p .. ~ */

static const unsigned short HELVETICA_BOLD[95] = {
    278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278,
    556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611,
    975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778,
    667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556,
    333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611,
    611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584};

char canvas_plain_char(char c) { return c >= 0x20 && c <= 0x7e ? c : '?'; }

double canvas_text_width(const char *text, double size, bool bold)
{
    const unsigned short *widths = bold ? HELVETICA_BOLD : HELVETICA;
    double units = 0;
    for (const char *p = text ? text : ""; *p; p++) units += widths[canvas_plain_char(*p) - 0x20];
    return units * size / 1000.0;
}
