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

void sslat_escape_controls(const char *text, char *out, size_t size)
{
    if (!size) return;
    size_t used = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        bool control = *p < 0x20 || *p == 0x7F;
        size_t need = control ? 4 : 1;
        if (used + need >= size) { /* cut: never inside a character */
            out[used] = '\0';
            sslat_utf8_cut_whole(out);
            return;
        }
        if (control) used += (size_t)snprintf(out + used, size - used, "\\x%02x", *p);
        else out[used++] = (char)*p;
    }
    out[used] = '\0';
}

void sslat_csv_field(FILE *out, const char *text)
{
    /* control bytes never raw in a CSV (a terminal shows it, a spreadsheet
     * splits a row): written as \xNN, as on the terminal */
    bool quote = strpbrk(text, ",\"") != NULL;
    if (quote) fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p < 0x20 || *p == 0x7F) fprintf(out, "\\x%02x", *p);
        else {
            if (*p == '"') fputc('"', out);
            fputc(*p, out);
        }
    }
    if (quote) fputc('"', out);
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
