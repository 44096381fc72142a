/* Choosing a convolution's engine through cuDNN's graph API, the way PyTorch
 * does with cudnn.benchmark (Conv_v8.cpp, get_plans_from_find): the engine
 * configurations of heuristics mode A and the fallback list, those a dtype
 * may not use left out (cuda_engine_refusal), plans finalized in heuristics
 * order until CUDA_AUTOTUNE_LIMIT of them ran, each timed by sslat's own
 * capture and replays on the unit's copy 0, the fastest kept. Where no
 * configuration finalizes and runs, the reason is kept and the legacy API
 * decides (kernels/cuda_launch.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/error.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_graph.h"

static cuda_graph_problem problem_of(const cuda_program *p, const cuda_step *step)
{
    const sslat_node *node = &p->graph->nodes[step->main_node];
    const sslat_conv_params *c = sslat_node_conv(node);
    sslat_shape in = sslat_graph_shape_of(p->graph, node->input[0]);
    return (cuda_graph_problem){in,        node->shape, c->kernel, c->stride, c->dilation, c->groups,
                                sslat_conv_pads(c, in), p->dtype, p->nhwc};
}

/* One plan on copy 0's buffers, as cuda_time_calls runs it. */
typedef struct candidate_run {
    cuda_session *session;
    cudnnBackendDescriptor_t plan, pack;
} candidate_run;

static sslat_status run_candidate(void *context, sslat_error *err)
{
    candidate_run *run = context;
    return cuda_graph_execute(run->session->cudnn, run->plan, run->pack, err);
}

/* The median replay time of one finalized plan for conv step k on copy 0, in ms. */
static sslat_status time_plan(cuda_program *p, int32_t k, cudnnBackendDescriptor_t plan, size_t workspace, double *ms,
                              sslat_error *err)
{
    cuda_session *s = p->session;
    void *space = NULL;
    sslat_status status = cuda_session_workspace(s, workspace, &space, err);
    candidate_run run = {s, plan, NULL};
    if (status == SSLAT_OK) status = cuda_program_step_pack(p, k, 0, &run.pack, err);
    if (status == SSLAT_OK) status = cuda_time_calls(s, run_candidate, &run, ms, err);
    cuda_graph_destroy(run.pack);
    cudaGetLastError(); /* a plan that failed to run leaves nothing behind for the next */
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

sslat_status cuda_graph_choose(cuda_program *p, int32_t k, cuda_conv_choice *choice, sslat_error *err)
{
    cuda_session *s = p->session;
    const cuda_step *step = &p->plan.steps[k];
    cuda_graph_census *census = &choice->census;
    const char *missing = cuda_graph_unavailable();
    if (missing) {
        legacy_because(choice, "this cuDNN has no graph API", missing);
        return SSLAT_OK;
    }
    cuda_graph_plan *kept = calloc(1, sizeof *kept);
    if (!kept) return sslat_fail(err, SSLAT_ERR_NOMEM, "out of memory");
    cuda_graph_problem problem = problem_of(p, step);
    cuda_graph_config *configs = NULL;
    int32_t n_configs = 0;
    sslat_status status = cuda_graph_conv_build(s->cudnn, &problem, &kept->conv, err);
    if (status == SSLAT_OK) status = cuda_graph_configs(&kept->conv, &configs, &n_configs, err);
    if (status != SSLAT_OK && status != SSLAT_ERR_NOMEM) { /* cuDNN refused the graph itself */
        legacy_because(choice, "cuDNN refused the convolution's operation graph", library_words(err->message));
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
        if (finalized == SSLAT_OK) finalized = time_plan(p, k, plan, workspace, &plan_ms, &why);
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
    if (status == SSLAT_OK && winner < 0 && !choice->legacy_reason[0]) {
        char detail[300];
        snprintf(detail, sizeof detail, "%d configurations, %d refused for %s, %d not finalized or run%s%s",
                 n_configs, census->refused, sslat_dtype_name(p->dtype), census->unfinalized,
                 last_refusal[0] ? "; last: " : "", last_refusal);
        legacy_because(choice, "no engine configuration of cuDNN's heuristics ran", detail);
    }
    if (winner >= 0) {
        int32_t i = plan_config[winner];
        kept->plan = plans[winner];
        plans[winner] = NULL;
        kept->config = configs[i].config;
        configs[i].config = NULL; /* the kept plan owns its configuration */
        census->rank = winner;
        census->winner_ms = ms[winner];
        census->first_ms = ms[0];
        choice->graph = true;
        choice->graph_plan = kept;
        choice->engine = configs[i].engine;
        choice->workspace = plan_workspace[winner];
    }
    for (int32_t t = 0; t < census->timed; t++) cuda_graph_destroy(plans[t]);
    cuda_graph_configs_release(configs, n_configs);
    if (!choice->graph) {
        cuda_graph_plan_release(kept);
        free(kept);
    }
    return status;
}
