/* A sweep's folder and its locks. A whole sweep holds DIR/.sslat-sweep.lock
 * exclusively; a shard holds it shared and its own DIR/.sslat-sweep-I-of-N.lock
 * exclusively, so the shards of one sweep (a Slurm array) run side by side
 * while a whole sweep and anything else do not. The shared lock file holds
 * the sweep's signature (its calculator, options, points and shard count),
 * written by the first run that finds the folder free: a shard of another
 * sweep (another array size, another calculator or option) is refused before
 * it measures, instead of overwriting the points both would own. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/sweep.h"

/* How long a shard waits for another shard that is writing the signature. */
enum { SIGNATURE_WAIT_MS = 5000, SIGNATURE_POLL_MS = 10 };

void sweep_folder_close(sweep_folder *f)
{
    if (f->own >= 0) {
        unlink(f->own_lock); /* still held: the next run makes its own */
        close(f->own);
    }
    if (f->common >= 0) {
        /* the last run out removes the lock and its signature; a shard that
         * cannot take it alone leaves it to the others still in the folder */
        if (!f->own_lock[0] || flock(f->common, LOCK_EX | LOCK_NB) == 0) unlink(f->common_lock);
        close(f->common);
    }
    if (f->created) rmdir(f->path); /* only when empty: a refused or failed first point leaves nothing */
}

static void busy(const char *dir)
{
    fprintf(stderr, "sslat sweep: another sweep is writing into %s: wait for it, or give another -o\n", dir);
}

/* The signature in the lock file (its first line), read from the start. */
static void read_signature(int fd, char *out, size_t size)
{
    ssize_t got = pread(fd, out, size - 1, 0);
    out[got > 0 ? got : 0] = '\0';
    char *end = strchr(out, '\n');
    if (end) *end = '\0';
}

static bool write_signature(int fd, const char *signature)
{
    size_t n = strlen(signature);
    return ftruncate(fd, 0) == 0 && pwrite(fd, signature, n, 0) == (ssize_t)n && pwrite(fd, "\n", 1, (off_t)n) == 1;
}

/* Whether the lock file is still the one at its path: the last run out
 * removes it, so a run that opened it just before holds a lock nobody else
 * sees, and must open it again. */
static bool still_linked(int fd, const char *path)
{
    struct stat held, named;
    return fstat(fd, &held) == 0 && stat(path, &named) == 0 && held.st_ino == named.st_ino &&
           held.st_dev == named.st_dev;
}

enum { LOCK_AGAIN = -1, LOCK_HELD = -2 }; /* removed under us: open it again; another run holds it */

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* The lock taken exclusively and this sweep's signature written in it: what a
 * whole sweep holds, and what the first shard into a free folder does before
 * it shares the lock. CLI_OK, LOCK_HELD, LOCK_AGAIN, or a failure (said). */
static int take_alone(sweep_folder *f, const char *signature)
{
    if (flock(f->common, LOCK_EX | LOCK_NB) != 0) return LOCK_HELD;
    if (!still_linked(f->common, f->common_lock)) return LOCK_AGAIN;
    if (write_signature(f->common, signature)) return CLI_OK;
    fprintf(stderr, "sslat sweep: -o %s: cannot write its lock %s: %s\n", f->path, f->common_lock, strerror(errno));
    return CLI_FAILURE;
}

/* A shard: the folder free → this sweep's signature written, then the lock
 * held shared; else the holder's signature must be this sweep's. */
static int lock_shared(sweep_folder *f, const char *signature)
{
    int code = take_alone(f, signature);
    /* (another shard waiting below takes it shared in the gap: it reads the signature just written) */
    if (code == CLI_OK && flock(f->common, LOCK_SH | LOCK_NB) != 0) return LOCK_HELD;
    if (code != LOCK_HELD) return code;
    /* held: by shards (shared) or a whole sweep (exclusive); a shard writing
     * the signature holds it exclusively for a moment */
    long waited = 0;
    while (flock(f->common, LOCK_SH | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK || waited >= SIGNATURE_WAIT_MS) return LOCK_HELD;
        sleep_ms(SIGNATURE_POLL_MS);
        waited += SIGNATURE_POLL_MS;
    }
    if (!still_linked(f->common, f->common_lock)) return LOCK_AGAIN;
    char held[512];
    read_signature(f->common, held, sizeof held);
    /* (none: a holder that writes none, an sslat from before signatures) */
    if (!held[0] || !strcmp(held, signature)) return CLI_OK;
    fprintf(stderr, "sslat sweep: the shards of another sweep are writing into %s (%s; this one: %s): its points "
                    "would overwrite each other. Wait for it, or give another -o\n",
            f->path, held, signature);
    return CLI_FAILURE;
}

int sweep_folder_make(const char *dir, const char *suffix, sweep_folder *f)
{
    *f = (sweep_folder){.common = -1, .own = -1, .path = dir};
    snprintf(f->common_lock, sizeof f->common_lock, "%s/.sslat-sweep.lock", dir);
    if (*suffix) snprintf(f->own_lock, sizeof f->own_lock, "%s/.sslat-sweep%s.lock", dir, suffix);
    if (mkdir(dir, 0755) == 0) f->created = true;
    else if (errno != EEXIST) {
        fprintf(stderr, "sslat sweep: cannot create %s: %s\n", dir, strerror(errno));
        return CLI_FAILURE;
    }
    return CLI_OK;
}

int sweep_folder_lock(sweep_folder *f, const char *suffix, const char *signature)
{
    const char *dir = f->path;
    int code = LOCK_AGAIN;
    for (int attempt = 0; code == LOCK_AGAIN && attempt < 100; attempt++) {
        if (f->common >= 0) close(f->common);
        f->common = open(f->common_lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (f->common < 0) {
            fprintf(stderr, "sslat sweep: -o %s: cannot make its lock %s: %s\n", dir, f->common_lock,
                    strerror(errno));
            code = CLI_FAILURE;
        } else {
            code = *suffix ? lock_shared(f, signature) : take_alone(f, signature);
        }
    }
    if (code == LOCK_AGAIN || code == LOCK_HELD) {
        busy(dir);
        code = CLI_FAILURE;
    }
    if (code == CLI_OK && *suffix) {
        f->own = open(f->own_lock, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (f->own < 0 || flock(f->own, LOCK_EX | LOCK_NB) != 0) {
            if (f->own < 0) fprintf(stderr, "sslat sweep: -o %s: cannot make its lock %s: %s\n", dir, f->own_lock,
                                    strerror(errno));
            else busy(dir);
            code = CLI_FAILURE;
        }
    }
    if (code != CLI_OK) {
        /* refused: the lock files stay for the runs that hold them
         * (sweep_folder_close then removes only a folder this run made) */
        if (f->own >= 0) close(f->own);
        if (f->common >= 0) close(f->common);
        f->own = f->common = -1;
    }
    return code;
}
