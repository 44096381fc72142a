/* Choosing how a convolution step runs on cuDNN's graph API, the way
 * PyTorch chooses with cudnn.benchmark (Conv_v8.cpp, get_plans_from_find),
 * and then some: the engine configurations of heuristics mode A and the
 * fallback list, those a dtype may not use left out (cuda_engine_refusal),
 * plans finalized in heuristics order until CUDA_AUTOTUNE_LIMIT of them ran,
 * each timed by sslat's own capture and replays on the unit's copy 0. Beside
 * the fastest plain plan (+ the own epilogue when the step has one), the
 * candidates a step may have: the same autotune over a graph with the
 * epilogue fused as pointwise operations (fused mode), and the own depthwise
 * kernel (a depthwise convolution). The fastest is kept; fusion is sometimes
 * much slower than the plain convolution and a separate epilogue, so it is
 * timed, never assumed. Where nothing runs, the reason is kept and the legacy
 * API decides (kernels/cuda_launch.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_graph.h"

static cuda_graph_problem cuda_graph_problem_of(const cuda_program *p, int32_t k, bool fused)
{
    const cuda_step *step = &p->plan.steps[k];
    const sslat_node *node = &p->graph->nodes[step->main_node];
    const sslat_conv_params *c = sslat_node_conv(node);
    sslat_shape in = sslat_graph_shape_of(p->graph, node->input[0]);
    return (cuda_graph_problem){in,        node->shape, c->kernel, c->stride, c->dilation, c->groups,
                                sslat_conv_pads(c, in), p->dtype, p->nhwc, fused, step->bias,
                                step->residual != SSLAT_NO_INPUT, step->act};
}

/* Whether the graph API may take the step's epilogue into the graph: fused
 * mode (eager runs one node per step), an epilogue, an activation with a
 * pointwise form. */
static bool may_fuse(const cuda_program *p, const cuda_step *step)
{
    return p->mode == SSLAT_MODE_FUSED && step->epilogue && cuda_graph_fuses_act(step->act);
}

/* One candidate on copy 0's buffers, as cuda_time_calls runs it: a plan
 * (then the own epilogue, when asked), or the own depthwise kernel. */
typedef struct candidate_run {
    cuda_program *program;
    int32_t k;
    cudnnBackendDescriptor_t plan, pack;
    bool own_epilogue, own_depthwise;
} candidate_run;

static sslat_status run_candidate(void *context, sslat_error *err)
{
    candidate_run *run = context;
    cuda_program *p = run->program;
    if (run->own_depthwise) {
        CUDA_RETURN_IF_FAILED(err, runtime, cuda_launch_own_depthwise(p, run->k, 0));
        return SSLAT_OK;
    }
    sslat_status status = cuda_graph_execute(p->session->cudnn, run->plan, run->pack, err);
    if (status == SSLAT_OK && run->own_epilogue)
        CUDA_RETURN_IF_FAILED(err, runtime, cuda_launch_own_epilogue(p, run->k, 0));
    return status;
}

/* The median replay time of one candidate for conv step k on copy 0, in ms
 * (plan NULL: the own depthwise kernel). */
static sslat_status time_candidate(cuda_program *p, int32_t k, const cuda_graph_conv *graph,
                                   cudnnBackendDescriptor_t plan, size_t workspace, bool own_epilogue, double *ms,
                                   sslat_error *err)
{
    cuda_session *s = p->session;
    void *space = NULL;
    sslat_status status = cuda_session_workspace(s, workspace, &space, err);
    candidate_run run = {p, k, plan, NULL, own_epilogue, plan == NULL};
    if (status == SSLAT_OK && plan) status = cuda_program_step_pack(p, k, 0, graph, &run.pack, err);
    if (status == SSLAT_OK) status = cuda_time_calls(s, run_candidate, &run, ms, err);
    cuda_graph_destroy(run.pack);
    cudaGetLastError(); /* a candidate that failed to run leaves nothing behind for the next */
    return status;
}

/* cuDNN's own words in a failure's message, without the call and where it was made. */
static const char *library_words(const char *message)
{
    const char *at = strstr(message, " failed at ");
    const char *words = at ? strstr(at, ": ") : NULL;
    return words ? words + 2 : message;
}

/* Why the legacy API decides instead, with cuDNN's last words when there are some. */
static void legacy_because(cuda_conv_choice *choice, const char *why, const char *detail)
{
    snprintf(choice->legacy_reason, sizeof choice->legacy_reason, "%s%s%s", why, detail && detail[0] ? ": " : "",
             detail ? detail : "");
}

/* What the autotune of one graph (plain or fused) found. */
typedef struct graph_tuned {
    cuda_graph_plan *kept; /* the fastest plan with its graph and configuration, or NULL */
    cuda_engine engine;
    size_t workspace;
    double ms;
    char why_none[320];    /* when none ran: cuDNN's last words */
} graph_tuned;

static void tuned_release(graph_tuned *t)
{
    if (t->kept) cuda_graph_plan_release(t->kept);
    free(t->kept);
    t->kept = NULL;
}

/* The autotune of conv step k's graph, the epilogue fused or not. */
static sslat_status tune_graph(cuda_program *p, int32_t k, bool fused, cuda_graph_census *census, graph_tuned *out,
                               sslat_error *err)
{
    cuda_session *s = p->session;
    memset(out, 0, sizeof *out);
    cuda_graph_plan *kept = calloc(1, sizeof *kept);
    if (!kept) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    cuda_graph_problem problem = cuda_graph_problem_of(p, k, fused);
    cuda_graph_config *configs = NULL;
    int32_t n_configs = 0;
    sslat_status status = cuda_graph_conv_build(s->cudnn, &problem, &kept->conv, err);
    if (status == SSLAT_OK) status = cuda_graph_configs(&kept->conv, &configs, &n_configs, err);
    if (status != SSLAT_OK && status != SSLAT_ERR_NOMEM) { /* cuDNN refused the graph itself */
        snprintf(out->why_none, sizeof out->why_none, "cuDNN refused the %soperation graph: %s",
                 fused ? "fused " : "convolution's ", library_words(err->message));
        status = SSLAT_OK;
    }
    census->configs = n_configs;
    cudnnBackendDescriptor_t plans[CUDA_AUTOTUNE_LIMIT] = {NULL};
    int32_t plan_config[CUDA_AUTOTUNE_LIMIT];
    size_t plan_workspace[CUDA_AUTOTUNE_LIMIT];
    double ms[CUDA_AUTOTUNE_LIMIT];
    char last_refusal[192] = "";
    int32_t attempts = 0;
    for (int32_t i = 0; status == SSLAT_OK && i < n_configs && census->timed < CUDA_AUTOTUNE_LIMIT &&
                        attempts < CUDA_AUTOTUNE_ATTEMPTS;
         i++) {
        if (cuda_engine_refusal(&configs[i].engine, (int)p->dtype)) {
            census->refused++;
            continue;
        }
        attempts++;
        /* finalize, outside any capture: a runtime-compiled engine compiles here (NVRTC) */
        double started = sslat_now_s();
        cudnnBackendDescriptor_t plan = NULL;
        size_t workspace = 0;
        sslat_error why;
        sslat_status finalized = cuda_graph_plan_finalize(s->cudnn, configs[i].config, &plan, &workspace, &why);
        double spent_ms = 1e3 * (sslat_now_s() - started);
        census->finalize_ms += spent_ms;
        if (configs[i].engine.behavior & CUDA_BEHAVIOR_RUNTIME_COMPILATION) census->compile_ms += spent_ms;
        if (finalized == SSLAT_OK && workspace > cuda_session_workspace_limit(s))
            finalized = sslat_fail(&why, SSLAT_ERR_NOMEM, "a workspace of %zu MB, more than sslat lends a convolution "
                                   "(%zu MB)", workspace >> 20, cuda_session_workspace_limit(s) >> 20);
        double plan_ms = -1;
        if (finalized == SSLAT_OK)
            finalized = time_candidate(p, k, &kept->conv, plan, workspace, false, &plan_ms, &why);
        if (finalized != SSLAT_OK) { /* not supported for this shape, no NVRTC, failed to run, … */
            census->unfinalized++;
            snprintf(last_refusal, sizeof last_refusal, "%s", library_words(why.message));
            cuda_graph_destroy(plan);
            continue;
        }
        plans[census->timed] = plan;
        plan_config[census->timed] = i;
        plan_workspace[census->timed] = workspace;
        ms[census->timed++] = plan_ms;
    }
    int winner = status == SSLAT_OK ? cuda_autotune_pick(ms, census->timed) : -1;
    if (status == SSLAT_OK && winner < 0 && !out->why_none[0])
        snprintf(out->why_none, sizeof out->why_none,
                 "no engine configuration of cuDNN's heuristics ran%s: %d configurations, %d refused for %s, %d not "
                 "finalized or run%s%s",
                 fused ? " the fused graph" : "", n_configs, census->refused, sslat_dtype_name(p->dtype),
                 census->unfinalized, last_refusal[0] ? "; last: " : "", last_refusal);
    if (winner >= 0) {
        int32_t i = plan_config[winner];
        kept->plan = plans[winner];
        plans[winner] = NULL;
        kept->config = configs[i].config;
        configs[i].config = NULL; /* the kept plan owns its configuration */
        census->rank = winner;
        census->winner_ms = ms[winner];
        census->first_ms = ms[0];
        out->kept = kept;
        out->engine = configs[i].engine;
        out->workspace = plan_workspace[winner];
        out->ms = ms[winner];
    }
    for (int32_t t = 0; t < census->timed; t++) cuda_graph_destroy(plans[t]);
    cuda_graph_configs_release(configs, n_configs);
    if (!out->kept) {
        cuda_graph_plan_release(kept);
        free(kept);
    }
    return status;
}

bool cuda_step_is_depthwise(const cuda_program *p, int32_t k)
{
    const sslat_node *node = &p->graph->nodes[p->plan.steps[k].main_node];
    const sslat_conv_params *c = sslat_node_conv(node);
    sslat_shape in = sslat_graph_shape_of(p->graph, node->input[0]);
    return c->groups == in.c && node->shape.c == in.c;
}

sslat_status cuda_graph_choose(cuda_program *p, int32_t k, cuda_conv_choice *choice, sslat_error *err)
{
    const cuda_step *step = &p->plan.steps[k];
    cuda_graph_census *census = &choice->census;
    census->plain_total_ms = census->fused_ms = census->own_ms = -1;
    const char *missing = cuda_graph_unavailable();
    if (missing) {
        legacy_because(choice, "this cuDNN has no graph API", missing);
        return SSLAT_OK;
    }
    /* the plain convolution, then (timed with it) the own epilogue */
    graph_tuned plain, fused;
    memset(&fused, 0, sizeof fused);
    sslat_status status = tune_graph(p, k, false, census, &plain, err);
    if (status == SSLAT_OK && plain.kept) {
        census->plain_total_ms = plain.ms;
        if (step->epilogue) {
            double total = -1;
            sslat_error why;
            if (time_candidate(p, k, &plain.kept->conv, plain.kept->plan, plain.workspace, true, &total, &why) == SSLAT_OK)
                census->plain_total_ms = total;
            else { /* the epilogue failed with it: not a candidate */
                tuned_release(&plain);
                census->plain_total_ms = -1;
            }
        }
    }
    /* the epilogue fused into the graph */
    cuda_graph_census fused_census;
    memset(&fused_census, 0, sizeof fused_census);
    if (status == SSLAT_OK && may_fuse(p, step)) {
        status = tune_graph(p, k, true, &fused_census, &fused, err);
        census->fused_configs = fused_census.configs;
        census->fused_timed = fused_census.timed;
        census->fused_refused = fused_census.refused;
        census->fused_unfinalized = fused_census.unfinalized;
        census->finalize_ms += fused_census.finalize_ms;
        census->compile_ms += fused_census.compile_ms;
        if (fused.kept) census->fused_ms = fused.ms;
    }
    /* the own depthwise kernel, with the whole epilogue */
    if (status == SSLAT_OK && cuda_step_is_depthwise(p, k)) {
        double own = -1;
        sslat_error why;
        if (time_candidate(p, k, NULL, NULL, 0, false, &own, &why) == SSLAT_OK) census->own_ms = own;
    }
    /* the fastest; on a tie the earlier of plain, fused, own */
    const double times[3] = {census->plain_total_ms, census->fused_ms, census->own_ms};
    int best = cuda_autotune_pick(times, 3);
    if (status == SSLAT_OK && best < 0)
        legacy_because(choice, plain.why_none[0] ? plain.why_none : "no candidate ran", NULL);
    graph_tuned *winner = best == 0 ? &plain : best == 1 ? &fused : NULL;
    if (status == SSLAT_OK && best >= 0) {
        choice->route = best == 0 ? CUDA_ROUTE_GRAPH : best == 1 ? CUDA_ROUTE_GRAPH_FUSED : CUDA_ROUTE_OWN_DEPTHWISE;
        if (winner) {
            choice->graph_plan = winner->kept;
            choice->engine = winner->engine;
            choice->workspace = winner->workspace;
            winner->kept = NULL;
            if (best == 1) { /* the census speaks of the plan that runs */
                census->rank = fused_census.rank;
                census->winner_ms = fused_census.winner_ms;
                census->first_ms = fused_census.first_ms;
            }
        }
    }
    tuned_release(&plain);
    tuned_release(&fused);
    return status;
}

sslat_status cuda_graph_restore(cuda_program *p, int32_t k, const cuda_selection_entry *kept, cuda_conv_choice *choice,
                                bool *works, sslat_error *err)
{
    cuda_session *s = p->session;
    *works = false;
    if (kept->route == CUDA_ROUTE_OWN_DEPTHWISE) {
        *works = cuda_step_is_depthwise(p, k);
        if (*works) choice->route = CUDA_ROUTE_OWN_DEPTHWISE;
        return SSLAT_OK;
    }
    if (cuda_graph_unavailable()) return SSLAT_OK;
    bool fused = kept->route == CUDA_ROUTE_GRAPH_FUSED;
    if (fused && !may_fuse(p, &p->plan.steps[k])) return SSLAT_OK;
    cuda_graph_plan *plan = calloc(1, sizeof *plan);
    if (!plan) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    cuda_graph_problem problem = cuda_graph_problem_of(p, k, fused);
    size_t workspace = 0;
    cuda_engine actual;
    sslat_error why;
    sslat_status status = cuda_graph_conv_build(s->cudnn, &problem, &plan->conv, &why);
    if (status == SSLAT_OK) status = cuda_graph_config_of(&plan->conv, &kept->engine, &plan->config, &actual, &why);
    /* the same refusals as a fresh choice: by the notes cuDNN gives the engine now */
    if (status == SSLAT_OK && cuda_engine_refusal(&actual, (int)p->dtype)) status = SSLAT_ERR_UNSUPPORTED;
    if (status == SSLAT_OK) status = cuda_graph_plan_finalize(s->cudnn, plan->config, &plan->plan, &workspace, &why);
    if (status == SSLAT_OK && workspace > cuda_session_workspace_limit(s)) status = SSLAT_ERR_NOMEM;
    if (status == SSLAT_OK) {
        *works = true;
        choice->route = kept->route;
        choice->graph_plan = plan;
        choice->engine = actual;
        choice->workspace = workspace;
        return SSLAT_OK;
    }
    cuda_graph_plan_release(plan); /* an engine this cuDNN no longer has for the graph: stale */
    free(plan);
    return SSLAT_OK;
}
