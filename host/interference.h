/* Whether the machine let a measurement run. A cpu table is only as good as
 * the CPU time its worker threads got: another process on their cores, or a
 * hypervisor stealing the virtual CPU, stretches the wall time of a sample
 * while the threads wait, and nothing in the samples alone says so (a table
 * made beside a busy process had entries 23x too slow and a single-thread
 * drift check of +0.4%). So every batch of samples is bracketed by two looks
 * at the process's own CPU time and /proc/stat:
 *  - worker share = process CPU time / (wall time x worker threads): oneDNN's
 *    OpenMP workers spin at their barriers, so a quiet batch is close to 1 and
 *    a thread that was not running shows as a share below it;
 *  - steal = the hypervisor's share of the machine's CPU time meanwhile;
 *  - others = runnable tasks beyond our own threads (procs_running).
 * At the start, and repeated at the end, a short look at the machine (who else
 * uses CPU) and the calibration workload run on every worker thread at once
 * (a worker's core shared with someone shows as a slower thread). */
#ifndef SSLAT_HOST_INTERFERENCE_H
#define SSLAT_HOST_INTERFERENCE_H

#include <stdbool.h>
#include <stdint.h>

/* One look: wall and process CPU clocks, and the machine's counters. */
typedef struct host_usage {
    double wall_ms;
    double cpu_ms;             /* CLOCK_PROCESS_CPUTIME_ID: every thread of this process */
    double wait_ms;            /* run delay of every thread of this process (schedstat) */
    bool have_wait;
    uint64_t machine_total;    /* /proc/stat "cpu" line, jiffies: all fields */
    uint64_t machine_idle;     /* idle + iowait */
    uint64_t machine_steal;
    int procs_running;         /* /proc/stat: runnable tasks now, this process's included */
    bool have_machine;         /* /proc/stat was readable */
} host_usage;

void host_usage_now(host_usage *usage);

/* A batch is disturbed when the workers waited for a CPU more than this share
 * of the time, when one worker thread got less than this share of the wall
 * time, or when more than this share of the machine's time was stolen. */
#define HOST_MAX_WAIT 0.10
#define HOST_MIN_WORKER_SHARE 0.90
#define HOST_MAX_STEAL 0.05

typedef struct host_batch_check {
    double share;   /* worker share (may exceed 1: other threads' clocks are sampled) */
    double wait;    /* run delay / (wall x threads) */
    double steal;   /* stolen share of the machine's time, 0 when unknown */
    int others;     /* runnable tasks beyond our threads at the end of the batch */
    bool disturbed;
} host_batch_check;

host_batch_check host_usage_compare(const host_usage *before, const host_usage *after, int threads);

/* The calibration workload at the start or the end of a run: on one thread
 * alone (the start / end ratio is the drift: throttling, nvbench's check for
 * CPUs), and on the workers' thread count at once. */
typedef struct host_calibration {
    double alone_ms; /* one thread alone */
    double spread;   /* slowest of the worker count / alone (SMT siblings put it above 1 on a quiet machine too) */
    double share;    /* the worst thread's CPU time / its wall time: below 1 when its core was shared */
} host_calibration;

/* What the run saw, for the table's quality verdict. */
typedef struct host_interference {
    int threads;
    /* batches of samples (a round of the interleaved schedule, or a run of
     * back-to-back samples of one unit) */
    long batches, disturbed, remeasured, kept_disturbed;
    double share_sum, worst_share, worst_steal, wait_sum, worst_wait;
    int most_others;
    /* the start and the end */
    double start_busy_cores, end_busy_cores;   /* cores other processes kept busy over a short look */
    host_calibration start, end;
    long remeasure_budget;                     /* batches that may still be run again */
} host_interference;

/* The CPUs this process may run on (its affinity: taskset, a cpuset, a Slurm
 * allocation), else every online one. */
int host_usable_cpus(void);

/* Before the first unit: a short look at the machine, the calibration on
 * every worker thread. */
void host_interference_begin(host_interference *interference, int threads);
/* After the last unit: the same looks again. */
void host_interference_end(host_interference *interference);
/* Calibration time at the end / at the start, on one thread (1: no drift). */
double host_interference_drift(const host_interference *interference);
/* Record one batch's check (attempt 0: its first run); returns whether it
 * should be run again: it was disturbed and the budget allows (a batch runs
 * at most twice again; the budget starts at 64 and grows by one per new batch
 * while a rerun costs two, so a machine that stays busy costs at most about
 * 1.5x the time once the first reruns are spent). */
bool host_interference_record(host_interference *interference, const host_batch_check *check, int attempt);


/* Test hook: called inside every timed sample after the program ran (NULL in
 * production). A test makes it sleep to inject a stall of the measuring thread. */
extern void (*host_sample_hook)(void);

#endif
