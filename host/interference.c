#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "host/interference.h"

#include <dirent.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "measure/quality.h"

void (*host_sample_hook)(void) = NULL;

/* The "cpu" line and "procs_running" of /proc/stat. */
static void read_machine(host_usage *u)
{
    u->have_machine = false;
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return;
    char line[512];
    unsigned long long v[10] = {0};
    bool cpu = false, running = false;
    while (fgets(line, sizeof line, f) && !(cpu && running)) {
        if (!cpu && strncmp(line, "cpu ", 4) == 0) {
            cpu = sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                         &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]) >= 8;
        } else if (strncmp(line, "procs_running ", 14) == 0) {
            running = sscanf(line + 14, "%d", &u->procs_running) == 1;
        }
    }
    fclose(f);
    if (!cpu) return;
    /* user nice system idle iowait irq softirq steal (guest time is inside user) */
    u->machine_total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    u->machine_idle = v[3] + v[4];
    u->machine_steal = v[7];
    u->have_machine = true;
    if (!running) u->procs_running = 0;
}

static double process_cpu_ms(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t) != 0) return 0;
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* The time this process's threads spent runnable but waiting for a CPU:
 * the second field of /proc/self/task/<id>/schedstat (ns), summed. Exact
 * whatever the threads' wait policy or the CPU's SMT; false when the kernel
 * has no schedstat. At most MAX_TASKS threads are read. */
enum { MAX_TASKS = 4096 };

static bool read_wait_ms(double *wait_ms)
{
    DIR *tasks = opendir("/proc/self/task");
    if (!tasks) return false;
    double total_ns = 0;
    int read = 0;
    struct dirent *entry;
    while ((entry = readdir(tasks)) && read < MAX_TASKS) {
        if (entry->d_name[0] < '0' || entry->d_name[0] > '9') continue;
        char path[64];
        snprintf(path, sizeof path, "/proc/self/task/%.20s/schedstat", entry->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue; /* the thread ended meanwhile */
        unsigned long long run_ns = 0, wait_ns = 0;
        if (fscanf(f, "%llu %llu", &run_ns, &wait_ns) == 2) {
            total_ns += (double)wait_ns;
            read++;
        }
        fclose(f);
    }
    closedir(tasks);
    *wait_ms = total_ns / 1e6;
    return read > 0;
}

void host_usage_now(host_usage *u)
{
    memset(u, 0, sizeof *u);
    read_machine(u);
    u->have_wait = read_wait_ms(&u->wait_ms);
    u->cpu_ms = process_cpu_ms();
    u->wall_ms = sslat_now_ms();
}

host_batch_check host_usage_compare(const host_usage *a, const host_usage *b, int threads)
{
    host_batch_check check = {1.0, 0.0, 0.0, 0, false};
    double wall = b->wall_ms - a->wall_ms;
    if (threads < 1) threads = 1;
    if (wall > 0) check.share = (b->cpu_ms - a->cpu_ms) / (wall * threads);
    if (wall > 0 && a->have_wait && b->have_wait && b->wait_ms > a->wait_ms)
        check.wait = fmin(1.0, (b->wait_ms - a->wait_ms) / (wall * threads)); /* a wait is booked when it ends */
    /* counters that go backwards (idle, steal on some hypervisors) count as no change */
    if (a->have_machine && b->have_machine && b->machine_total > a->machine_total && b->machine_steal > a->machine_steal)
        check.steal = (double)(b->machine_steal - a->machine_steal) / (double)(b->machine_total - a->machine_total);
    check.others = b->procs_running > threads ? b->procs_running - threads : 0;
    /* other threads' CPU time is only brought up to date at a scheduler tick,
     * so the share decides alone only for one thread (whose clock is exact) */
    check.disturbed = check.wait > HOST_MAX_WAIT || (threads == 1 && check.share < HOST_MIN_WORKER_SHARE) ||
                      check.steal > HOST_MAX_STEAL;
    return check;
}

/* ---- the calibration on every worker thread ---------------------------------------- */

enum { CALIBRATION_ROUNDS = 5, MAX_CALIBRATION_THREADS = 1024 };

/* The threads start together: each waits for `go`, set once every thread
 * that could be created exists (fewer when the system refuses one). */
typedef struct start_line {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    bool go;
} start_line;

typedef struct calibration_thread {
    start_line *start;
    double total_ms; /* of all rounds: a thread that shares its core for a while is seen */
    double share;    /* its own CPU time / its wall time: below 1 when it was not running */
} calibration_thread;

static double thread_cpu_ms(void)
{
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) != 0) return 0;
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Rounds of the workload; the first CALIBRATION_SETTLE are not timed: a new
 * thread starts on its parent's CPU and the scheduler moves it within a few
 * milliseconds, which is not what the run's long-lived workers see. */
enum { CALIBRATION_SETTLE = 3 };

static double one_round(void)
{
    volatile double sink = 0;
    double x = 1.0;
    for (int i = 0; i < 1000000; i++) x = x * 1.0000001 + 1e-9;
    sink += x;
    (void)sink;
    return x;
}

static void *calibrate(void *arg)
{
    calibration_thread *t = arg;
    if (t->start) {
        pthread_mutex_lock(&t->start->lock);
        while (!t->start->go) pthread_cond_wait(&t->start->changed, &t->start->lock);
        pthread_mutex_unlock(&t->start->lock);
    }
    for (int round = 0; round < CALIBRATION_SETTLE; round++) one_round();
    double total = 0, cpu0 = thread_cpu_ms();
    for (int round = 0; round < CALIBRATION_ROUNDS; round++) {
        double t0 = sslat_now_ms();
        one_round();
        total += sslat_now_ms() - t0;
    }
    t->total_ms = total;
    t->share = total > 0 ? (thread_cpu_ms() - cpu0) / total : 1.0;
    return NULL;
}

/* The workload (5 rounds of about 1.5 ms of floating point) timed on
 * `threads` threads at once: the slowest thread's total, in ms; *worst_share
 * gets the lowest of the threads' own CPU time / wall time. */
static double calibration_ms(int threads, double *worst_share)
{
    if (threads < 1) threads = 1;
    if (threads > MAX_CALIBRATION_THREADS) threads = MAX_CALIBRATION_THREADS;
    calibration_thread *items = malloc((size_t)threads * sizeof *items);
    pthread_t *ids = malloc((size_t)threads * sizeof *ids);
    if (!items || !ids) threads = 1; /* then this thread alone, on the one below */
    calibration_thread alone;
    if (threads == 1) {
        free(items);
        items = NULL;
    }
    calibration_thread *first = items ? items : &alone;
    start_line start = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false};
    *first = (calibration_thread){&start, 0, 1.0};
    for (int i = 1; i < threads; i++) items[i] = *first;
    int started = 1; /* this thread is the first */
    while (started < threads && pthread_create(&ids[started], NULL, calibrate, &items[started]) == 0) started++;
    pthread_mutex_lock(&start.lock);
    start.go = true;
    pthread_cond_broadcast(&start.changed);
    pthread_mutex_unlock(&start.lock);
    calibrate(first);
    double slowest = first->total_ms;
    *worst_share = first->share;
    for (int i = 1; i < started; i++) {
        pthread_join(ids[i], NULL);
        if (items[i].total_ms > slowest) slowest = items[i].total_ms;
        if (items[i].share < *worst_share) *worst_share = items[i].share;
    }
    free(items);
    free(ids);
    return slowest;
}

/* ---- start and end ------------------------------------------------------------------- */

/* Cores other processes kept busy over 50 ms while this one slept. */
static double busy_cores_elsewhere(void)
{
    host_usage a, b;
    host_usage_now(&a);
    struct timespec pause = {0, 50 * 1000 * 1000};
    nanosleep(&pause, NULL);
    host_usage_now(&b);
    if (!a.have_machine || !b.have_machine || b.machine_total <= a.machine_total) return 0;
    double total = (double)(b.machine_total - a.machine_total);
    /* signed: idle (iowait) and steal may go backwards; a negative change is none */
    double idle = (double)b.machine_idle - (double)a.machine_idle;
    double steal = (double)b.machine_steal - (double)a.machine_steal;
    double busy = total - (idle > 0 ? idle : 0) - (steal > 0 ? steal : 0);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    double ours = (b.cpu_ms - a.cpu_ms) / (b.wall_ms - a.wall_ms); /* cores' worth this process used */
    double elsewhere = busy / total * (double)(cores > 0 ? cores : 1) - ours;
    return elsewhere > 0 ? elsewhere : 0;
}

/* The calibration alone and on every worker thread at once. */
static host_calibration calibrate_now(int threads)
{
    host_calibration c = {0, 1.0, 1.0};
    c.alone_ms = calibration_ms(1, &c.share);
    double together = c.alone_ms;
    if (threads > 1) together = calibration_ms(threads, &c.share);
    if (c.share < SSLAT_QUALITY_DISTURBED_CALIBRATION_SHARE) {
        /* once more: a thread woken after a pause may land on a busy core
         * until the scheduler balances; a shared core stays shared */
        double again = 1.0;
        double second = calibration_ms(threads, &again);
        if (again > c.share) {
            c.share = again;
            together = second;
        }
    }
    if (c.alone_ms > 0 && threads > 1) c.spread = together / c.alone_ms;
    return c;
}

int host_usable_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

void host_interference_begin(host_interference *q, int threads)
{
    memset(q, 0, sizeof *q);
    q->threads = threads < 1 ? 1 : threads;
    q->worst_share = INFINITY;
    q->remeasure_budget = 64;
    q->start_busy_cores = busy_cores_elsewhere();
    q->start = calibrate_now(q->threads);
}

void host_interference_end(host_interference *q)
{
    q->end_busy_cores = busy_cores_elsewhere();
    q->end = calibrate_now(q->threads);
}

double host_interference_drift(const host_interference *q)
{
    return q->start.alone_ms > 0 && q->end.alone_ms > 0 ? q->end.alone_ms / q->start.alone_ms : 1.0;
}

bool host_interference_record(host_interference *q, const host_batch_check *check, int attempt)
{
    q->batches++;
    if (attempt == 0) q->remeasure_budget++; /* grows with new batches, not with reruns: one per two batches */
    q->share_sum += check->share;
    q->wait_sum += check->wait;
    if (check->wait > q->worst_wait) q->worst_wait = check->wait;
    if (check->share < q->worst_share) q->worst_share = check->share;
    if (check->steal > q->worst_steal) q->worst_steal = check->steal;
    if (check->others > q->most_others) q->most_others = check->others;
    if (!check->disturbed) return false;
    q->disturbed++;
    if (attempt < 2 && q->remeasure_budget > 0) {
        q->remeasure_budget -= 2;
        q->remeasured++;
        return true;
    }
    q->kept_disturbed++;
    return false;
}
