#include "host/choose.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "host/lower.h"
#include "host/measure.h"

bool host_impl_is_reference(const char *impl) { return strncmp(impl, "ref", 3) == 0; }

int host_lowering_ladder(sslat_exec_mode mode, host_lowering *out)
{
    int n = 0;
    if (mode == SSLAT_MODE_FUSED) {
        out[n++] = (host_lowering){SSLAT_MODE_FUSED, HOST_RESIDUAL_BINARY_POST_OP, HOST_SHUFFLE_PRIMITIVE};
        out[n++] = (host_lowering){SSLAT_MODE_FUSED, HOST_RESIDUAL_SUM_POST_OP, HOST_SHUFFLE_REORDER};
        out[n++] = (host_lowering){SSLAT_MODE_FUSED, HOST_RESIDUAL_SEPARATE, HOST_SHUFFLE_REORDER};
    } else {
        out[n++] = (host_lowering){SSLAT_MODE_EAGER, HOST_RESIDUAL_SEPARATE, HOST_SHUFFLE_PRIMITIVE};
    }
    out[n++] = (host_lowering){SSLAT_MODE_EAGER, HOST_RESIDUAL_SEPARATE, HOST_SHUFFLE_REORDER};
    return n;
}

void host_lowering_describe(host_lowering l, char *out, size_t size)
{
    const char *residual = "";
    if (l.mode == SSLAT_MODE_FUSED && l.residual == HOST_RESIDUAL_SUM_POST_OP) residual = ", residual as sum post-op";
    if (l.mode == SSLAT_MODE_FUSED && l.residual == HOST_RESIDUAL_SEPARATE) residual = ", residual as its own add";
    snprintf(out, size, "%s%s%s", l.mode == SSLAT_MODE_FUSED ? "fused" : "eager", residual,
             l.shuffle == HOST_SHUFFLE_REORDER ? ", shuffle as reorder" : "");
}

/* Whether a later trial beats the best so far: by more than the margin, so
 * near-ties (noise of a brief timing) keep the lowering closer to the default. */
static bool beats(const host_trial *later, const host_trial *best)
{
    return later->ms < best->ms * (1.0 - HOST_PICK_MARGIN);
}

int host_pick_trial(const host_trial *trials, int n, bool *reference)
{
    int best = -1, best_any = -1;
    for (int i = 0; i < n; i++) {
        if (!trials[i].built) continue;
        if (best_any < 0 || beats(&trials[i], &trials[best_any])) best_any = i;
        if (!trials[i].reference && (best < 0 || beats(&trials[i], &trials[best]))) best = i;
    }
    *reference = best < 0 && best_any >= 0;
    return best >= 0 ? best : best_any;
}

int host_program_reference_step(const host_program *p, int from)
{
    for (int i = from; i < p->body.count; i++)
        if (host_impl_is_reference(p->body.items[i].impl)) return i;
    return -1;
}

/* ---- the session's choices ---------------------------------------------------------- */

void host_choices_release(host_choices *c)
{
    free(c->items);
    sslat_key_index_release(&c->index);
    memset(c, 0, sizeof *c);
}

const host_choice *host_choices_find(const host_choices *c, uint64_t hash)
{
    long at = sslat_key_index_get(&c->index, hash);
    return at < 0 ? NULL : &c->items[at];
}

static host_choice *choices_add(host_choices *c, const host_choice *choice, sslat_error *err)
{
    if (c->count == c->capacity) {
        int next = c->capacity ? 2 * c->capacity : 16;
        host_choice *grown = realloc(c->items, (size_t)next * sizeof *grown);
        if (!grown) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory"), NULL;
        c->items = grown;
        c->capacity = next;
    }
    if (!sslat_key_index_put(&c->index, choice->hash, c->count))
        return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory"), NULL;
    c->items[c->count] = *choice;
    return &c->items[c->count++];
}

/* ---- building ------------------------------------------------------------------------- */

sslat_status host_build_copies(host_session *session, const sslat_graph *graph, host_lowering lowering,
                               uint64_t seed, int replicas, host_program *program, int *copy_steps,
                               sslat_error *err)
{
    sslat_status status = host_program_init(program, session, graph->input, lowering.mode, seed, err);
    if (status != SSLAT_OK) return status;
    program->lowering = lowering;
    for (int r = 0; status == SSLAT_OK && r < replicas; r++) {
        if (r > 0) status = host_program_new_input(program, graph->input, r, err);
        if (status == SSLAT_OK) status = host_program_append(program, graph, err);
        if (r == 0) *copy_steps = program->body.count;
    }
    if (status != SSLAT_OK) host_program_release(program);
    return status;
}

/* "convolution jit_1x1:avx2, eltwise jit:avx2, …" for steps [0, count). */
static void describe_steps(const host_program *p, int count, char *out, size_t size)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < count && used + 1 < size; i++) {
        int wrote = snprintf(out + used, size - used, "%s%s %s", i ? ", " : "", p->body.items[i].kind,
                             p->body.items[i].impl);
        if (wrote < 0 || (size_t)wrote >= size - used) {
            snprintf(out + (size > 4 ? size - 4 : 0), size > 4 ? 4 : size, "...");
            return;
        }
        used += (size_t)wrote;
    }
    if (count == 0) snprintf(out, size, "(no primitive)");
}

/* A brief time of a program: enough to rank lowerings that differ by tens of
 * percent or more, which is what a reference kernel costs. */
static sslat_status brief_ms(host_program *p, const sslat_graph *graph, double *ms, sslat_error *err)
{
    sslat_calc_options o;
    sslat_calc_options_default(&o);
    o.warmup_iterations = 1;
    o.run_iterations = 2;
    sslat_entry entry;
    sslat_status status = host_measure_program(p, graph->input.n, &o, NULL, NULL, &entry, err);
    *ms = entry.value;
    return status;
}

sslat_status host_build_avoiding_reference(host_session *session, host_choices *choices,
                                           const sslat_graph *graph, uint64_t hash, sslat_exec_mode mode,
                                           uint64_t seed, int replicas, host_program *program,
                                           const host_choice **choice, sslat_error *err)
{
    const host_choice *known = host_choices_find(choices, hash);
    int copy_steps = 0;
    if (known && known->lowering.mode == mode) {
        *choice = known;
        return host_build_copies(session, graph, known->lowering, seed, replicas, program, &copy_steps, err);
    }
    host_lowering ladder[HOST_MAX_LOWERINGS];
    int n = host_lowering_ladder(mode, ladder);
    host_program built[HOST_MAX_LOWERINGS];
    host_trial trials[HOST_MAX_LOWERINGS] = {{0}};
    int steps[HOST_MAX_LOWERINGS] = {0};
    host_choice made = {.hash = hash, .lowering = ladder[0], .tried = 1};
    sslat_status status = host_build_copies(session, graph, ladder[0], seed, replicas, &built[0], &steps[0], err);
    if (status != SSLAT_OK) return status;
    trials[0].built = true;
    int first_reference = host_program_reference_step(&built[0], 0);
    int keep = 0;
    if (first_reference >= 0) {
        const host_step *step = &built[0].body.items[first_reference];
        snprintf(made.avoided, sizeof made.avoided, "%s %s", step->kind, step->impl);
        trials[0].reference = true;
        trials[0].ms = INFINITY; /* decided from oneDNN's implementation name: never run */
        int fast = 0;            /* lowerings built without a reference kernel */
        for (int i = 1; i < n; i++) {
            /* another mode (eager for a fused table) only when none of the
             * table's own mode avoids the reference kernel: it is the slower
             * form (fused <= eager for every example candidate) */
            if (ladder[i].mode != mode && fast > 0) continue;
            sslat_error ignored; /* a lowering oneDNN refuses is simply not a candidate */
            if (host_build_copies(session, graph, ladder[i], seed, replicas, &built[i], &steps[i], &ignored) != SSLAT_OK)
                continue;
            trials[i].built = true;
            trials[i].reference = host_program_reference_step(&built[i], 0) >= 0;
            trials[i].ms = INFINITY;
            if (!trials[i].reference) fast++;
            made.tried++;
        }
        /* only lowerings without a reference kernel are ever timed, and only
         * when there is more than one to rank */
        for (int i = 1; status == SSLAT_OK && fast > 1 && i < n; i++)
            if (trials[i].built && !trials[i].reference) status = brief_ms(&built[i], graph, &trials[i].ms, err);
        if (status == SSLAT_OK) keep = host_pick_trial(trials, n, &made.reference);
    }
    for (int i = 0; i < n; i++)
        if (trials[i].built && (i != keep || status != SSLAT_OK)) host_program_release(&built[i]);
    if (status != SSLAT_OK) return status;
    made.lowering = ladder[keep];
    describe_steps(&built[keep], steps[keep], made.implementations, sizeof made.implementations);
    *program = built[keep];
    *choice = choices_add(choices, &made, err);
    if (!*choice) {
        host_program_release(program);
        return err ? err->status : SSLAT_ERR_NOMEM;
    }
    return SSLAT_OK;
}
