/* Outputs that would destroy an input, or each other, are refused before
 * anything runs: an hours-long table replaced by its own HTML report is lost
 * for good. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/file_io.h"
#include "cli/cli.h"

/* The canonical path of a file that may not exist yet: its folder resolved,
 * its name kept (NULL when the folder does not resolve either). */
static char *canonical(const char *path)
{
    char *whole = realpath(path, NULL);
    if (whole) return whole;
    const char *slash = strrchr(path, '/');
    char *folder = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    char *resolved = folder ? realpath(folder, NULL) : NULL;
    free(folder);
    if (!resolved) return NULL;
    const char *name = slash ? slash + 1 : path;
    char *out = malloc(strlen(resolved) + strlen(name) + 2);
    if (out) sprintf(out, "%s/%s", resolved, name);
    free(resolved);
    return out;
}

bool cli_same_path(const char *a, const char *b)
{
    if (!a || !b || !strcmp(a, "-") || !strcmp(b, "-")) return false;
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char *ca = canonical(a), *cb = canonical(b);
    bool same = ca && cb ? !strcmp(ca, cb) : !strcmp(a, b);
    free(ca);
    free(cb);
    return same;
}

int cli_check_paths(const char *verb, const char *const *inputs, size_t n_in, const char *const *outputs, size_t n_out)
{
    for (size_t o = 0; o < n_out; o++) {
        if (!outputs[o]) continue;
        sslat_error err;
        if (strcmp(outputs[o], "-") != 0 && sslat_check_writable(outputs[o], NULL, &err) != SSLAT_OK) {
            fprintf(stderr, "sslat %s: cannot write %s\n", verb, err.message);
            return CLI_FAILURE; /* as the write itself would have failed, only sooner */
        }
        for (size_t i = 0; i < n_in; i++)
            if (cli_same_path(outputs[o], inputs[i])) {
                fprintf(stderr, "sslat %s: the output %s is the input %s: refusing to overwrite it\n", verb,
                        outputs[o], inputs[i]);
                return CLI_BAD_INPUT;
            }
        for (size_t other = 0; other < o; other++)
            if (cli_same_path(outputs[o], outputs[other])) {
                fprintf(stderr, "sslat %s: the outputs %s and %s are the same file: one would destroy the other\n",
                        verb, outputs[other], outputs[o]);
                return CLI_BAD_INPUT;
            }
    }
    return CLI_OK;
}
