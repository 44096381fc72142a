/* Never time a reference kernel silently, and never run one to find out it
 * is one. oneDNN answers every primitive, but for some fused forms on some
 * CPUs only with its reference (plain C++) implementation, tens of times
 * slower than its JIT kernels (oneDNN 2.6 on avx512_core: the 1x1 convolution
 * with a binary_add post-op). Which implementation a primitive got is known
 * when it is created (its implementation name), so a subgraph is built with
 * its mode's default lowering; when a primitive of it is a reference one, the
 * other lowerings of its mode are built too (eager ones for a fused table
 * only when no fused one avoids the reference kernel), and of those without
 * a reference kernel the only one is kept, or the fastest of a brief timing.
 * No lowering with a reference kernel is ever timed; when every lowering has
 * one, the default is kept and the unit flagged. */
#ifndef SSLAT_HOST_CHOOSE_H
#define SSLAT_HOST_CHOOSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/key_index.h"
#include "host/program.h"

/* oneDNN names its reference implementations "ref:any", "ref_fused:any", … */
bool host_impl_is_reference(const char *impl);

/* The lowerings tried for a mode, the default first (fused: binary post-op;
 * sum post-op; separate add; eager), at most HOST_MAX_LOWERINGS. */
#define HOST_MAX_LOWERINGS 4
int host_lowering_ladder(sslat_exec_mode mode, host_lowering *out);

/* "fused", "fused, residual as sum post-op, shuffle as reorder", … */
void host_lowering_describe(host_lowering lowering, char *out, size_t size);

/* One lowering tried: whether it was built, whether it runs a reference
 * kernel, and its brief time (INFINITY when it was not timed). */
typedef struct host_trial {
    bool built;
    bool reference;
    double ms;
} host_trial;

/* The trial to keep: the fastest built one without a reference kernel, else
 * the fastest built one (then *reference is true); -1 when none was built.
 * In ladder order, a later trial wins only when it is more than
 * HOST_PICK_MARGIN faster, so a near-tie keeps the earlier (closer to the
 * default) lowering whatever the noise of a brief timing. */
#define HOST_PICK_MARGIN 0.10
int host_pick_trial(const host_trial *trials, int n, bool *reference);

/* The first body step of p from `from` on that is a reference kernel, or -1. */
int host_program_reference_step(const host_program *p, int from);

#define HOST_IMPL_TEXT 1024

/* What was decided for one distinct subgraph (by its canonical hash). */
typedef struct host_choice {
    uint64_t hash;
    host_lowering lowering;
    int tried;                  /* lowerings built (1: the default was kept at once) */
    bool reference;             /* it still runs a reference kernel: every lowering did */
    char avoided[64];           /* the default's first reference primitive, "shuffle ref:any", or "" */
    char implementations[HOST_IMPL_TEXT]; /* one copy's primitives: "convolution jit_1x1:avx2, …" */
} host_choice;

/* The choices of a session, so a subgraph is decided once per run and a whole
 * architecture runs each subgraph the way the table timed it. */
typedef struct host_choices {
    host_choice *items;
    int count, capacity;
    sslat_key_index index;
} host_choices;

void host_choices_release(host_choices *choices);
const host_choice *host_choices_find(const host_choices *choices, uint64_t hash);

/* A program of `replicas` chained copies of graph (each with its own input
 * and weights) in one lowering; *copy_steps = the body steps of one copy. */
sslat_status host_build_copies(host_session *session, const sslat_graph *graph, host_lowering lowering,
                               uint64_t seed, int replicas, host_program *program, int *copy_steps,
                               sslat_error *err);

/* The program of `replicas` copies of graph in the lowering decided for it
 * (deciding it now when choices has none), and that decision; hash is
 * sslat_graph_hash(graph), as the run already knows it. */
sslat_status host_build_avoiding_reference(host_session *session, host_choices *choices,
                                           const sslat_graph *graph, uint64_t hash, sslat_exec_mode mode, uint64_t seed,
                                           int replicas, host_program *program, const host_choice **choice,
                                           sslat_error *err);

#endif
