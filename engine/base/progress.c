#include "base/progress.h"

#include <stdio.h>
#include <unistd.h>

#include "base/clock.h"

void sslat_progress_begin(sslat_progress *p, bool enabled, const char *what, const char *unit, size_t total)
{
    snprintf(p->what, sizeof p->what, "%s", what);
    snprintf(p->unit, sizeof p->unit, "%s", unit);
    p->total = total;
    p->started = sslat_now_s();
    p->enabled = enabled && total > 0;
    p->terminal = isatty(2);
}

void sslat_progress_format(const sslat_progress *p, size_t done, double elapsed, char *out, size_t size)
{
    if (done == 0 || done >= p->total) {
        snprintf(out, size, "%s %zu/%zu %s  %.0f s elapsed", p->what, done, p->total, p->unit, elapsed);
        return;
    }
    double eta = elapsed / (double)done * (double)(p->total - done);
    snprintf(out, size, "%s %zu/%zu %s  %.0f s elapsed, ETA %.0f s", p->what, done, p->total, p->unit, elapsed, eta);
}

void sslat_progress_step(sslat_progress *p, size_t done)
{
    if (!p->enabled) return;
    char line[256];
    sslat_progress_format(p, done, sslat_now_s() - p->started, line, sizeof line);
    if (p->terminal)
        fprintf(stderr, "\r%s   %s", line, done >= p->total ? "\n" : "");
    else
        fprintf(stderr, "%s\n", line);
    fflush(stderr);
}
