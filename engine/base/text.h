/* Text from files is untrusted: the container format says UTF-8, and a
 * message that echoes a name must stay one line on a terminal (a name holding
 * "\x1b[31m" would otherwise colour it, a newline would split it). */
#ifndef SSLAT_TEXT_H
#define SSLAT_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether bytes[0..length) is well-formed UTF-8 (no overlong forms, no
 * surrogates, nothing past U+10FFFF). */
bool sslat_utf8_valid(const char *bytes, size_t length);

/* The same, surrogates (U+D800..U+DFFF as three bytes) accepted: what
 * Python's pickle decodes a str from ('surrogatepass'). */
bool sslat_utf8_valid_surrogatepass(const char *bytes, size_t length);

/* text with every control character written out: C0 and DEL as \xNN, C1
 * (U+0080..U+009F) as \u00NN; into out (size bytes, NUL-terminated, cut at a
 * whole character when it does not fit). */
void sslat_escape_controls(const char *text, char *out, size_t size);

/* Cut text (NUL-terminated, already cut to fit a buffer) back to its last
 * whole UTF-8 character, so a cut never leaves half a character. */
void sslat_utf8_cut_whole(char *text);

/* One CSV field: quoted (quotes doubled) when it holds a comma or quote;
 * every control character (a line break too) written as sslat_escape_controls
 * writes it. */
void sslat_csv_field(FILE *out, const char *text);

/* JSON text for a terminal: DEL and C1 characters, which JSON lets stand raw
 * inside strings, written as \u escapes (the same JSON value). */
void sslat_json_write_for_terminal(FILE *out, const char *json);

#endif
