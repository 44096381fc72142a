#include "base/text.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

static bool utf8_valid(const char *bytes, size_t length, bool surrogates)
{
    const unsigned char *s = (const unsigned char *)bytes;
    for (size_t i = 0; i < length;) {
        unsigned char c = s[i];
        size_t extra;
        uint32_t code, least;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xE0) == 0xC0) {
            extra = 1, code = c & 0x1F, least = 0x80;
        } else if ((c & 0xF0) == 0xE0) {
            extra = 2, code = c & 0x0F, least = 0x800;
        } else if ((c & 0xF8) == 0xF0) {
            extra = 3, code = c & 0x07, least = 0x10000;
        } else {
            return false;
        }
        if (i + extra >= length) return false; /* cut short */
        for (size_t k = 1; k <= extra; k++) {
            if ((s[i + k] & 0xC0) != 0x80) return false;
            code = code << 6 | (s[i + k] & 0x3F);
        }
        if (code < least || code > 0x10FFFF || (!surrogates && code >= 0xD800 && code <= 0xDFFF)) return false;
        i += extra + 1;
    }
    return true;
}

bool sslat_utf8_valid(const char *bytes, size_t length) { return utf8_valid(bytes, length, false); }

bool sslat_utf8_valid_surrogatepass(const char *bytes, size_t length) { return utf8_valid(bytes, length, true); }

/* The length of a control character at p: 1 for C0 and DEL, 2 for a C1
 * (U+0080..U+009F, bytes C2 80..9F: some terminals act on them too), else 0. */
static int control_at(const unsigned char *p)
{
    if (*p < 0x20 || *p == 0x7F) return 1;
    if (p[0] == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) return 2;
    return 0;
}

/* How a control character is written: \xNN for C0 and DEL, \u00NN for C1. */
static int escape_of(const unsigned char *p, int length, char out[8])
{
    return length == 1 ? snprintf(out, 8, "\\x%02x", p[0]) : snprintf(out, 8, "\\u%04x", p[1]);
}

void sslat_escape_controls(const char *text, char *out, size_t size)
{
    if (!size) return;
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        int control = control_at(p);
        char escaped[8];
        size_t need = control ? (size_t)escape_of(p, control, escaped) : 1;
        if (used + need >= size) { /* cut: never inside a character */
            out[used] = '\0';
            sslat_utf8_cut_whole(out);
            return;
        }
        if (control) {
            memcpy(out + used, escaped, need);
            used += need;
            p += control;
        } else {
            out[used++] = (char)*p++;
        }
    }
    out[used] = '\0';
}

void sslat_csv_field(FILE *out, const char *text)
{
    /* control bytes never raw in a CSV (a terminal shows it, a spreadsheet
     * splits a row): written as on the terminal */
    bool quote = strpbrk(text, ",\"") != NULL;
    if (quote) fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p;) {
        int control = control_at(p);
        if (control) {
            char escaped[8];
            escape_of(p, control, escaped);
            fputs(escaped, out);
            p += control;
            continue;
        }
        if (*p == '"') fputc('"', out);
        fputc(*p++, out);
    }
    if (quote) fputc('"', out);
}

void sslat_json_write_for_terminal(FILE *out, const char *json)
{
    /* JSON allows DEL and C1 raw inside strings; escaped they are the same text */
    for (const unsigned char *p = (const unsigned char *)json; *p;) {
        int control = control_at(p); /* (C0 is escaped by every JSON writer already) */
        if (control == 2 || *p == 0x7F) {
            fprintf(out, "\\u%04x", p[control - 1]);
            p += control;
        } else {
            fputc(*p++, out);
        }
    }
}

void sslat_utf8_cut_whole(char *text)
{
    size_t length = strlen(text), start = length;
    /* back to the lead byte of the last character */
    while (start > 0 && ((unsigned char)text[start - 1] & 0xC0) == 0x80 && length - start < 3) start--;
    if (start == 0) return;
    unsigned char lead = (unsigned char)text[start - 1];
    size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1;
    if (length - (start - 1) < need) text[start - 1] = '\0';
}
