/* sslat show: a torchinfo-like table of a search space. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/limits.h"
#include "calc/calculator.h"
#include "calc/mac.h"
#include "cli/cli.h"
#include "ir/ir_json.h"
#include "ir/space.h"

/* Widths of the columns, sized to the longest entry of this space (a long
 * shape or sequence label widens its column instead of shifting a row). */
typedef struct show_widths {
    int name, label, shape, params;
} show_widths;

typedef struct show_options {
    sslat_mac_rule rule;
    sslat_ignore_set ignore;
    bool ops;     /* list primitives under each candidate */
    bool fuse_bn; /* count with BN folded into its conv */
    show_widths width;
} show_options;

typedef struct graph_totals {
    double params, macs;
} graph_totals;

static graph_totals totals_of(const sslat_graph *graph, const show_options *o)
{
    graph_totals t = {0, sslat_mac_graph(graph, o->rule, &o->ignore, o->fuse_bn)};
    for (int32_t i = 0; i < graph->count; i++)
        t.params += (double)sslat_node_param_count(graph, &graph->nodes[i]);
    return t;
}

/* N×C×H×W, or N×L×C tokens marked with a t (2x197x192t) */
static const char *shape_text(sslat_shape s, char *buffer, size_t size)
{
    if (s.tokens) snprintf(buffer, size, "%dx%dx%dt", s.n, s.h, s.c);
    else snprintf(buffer, size, "%dx%dx%dx%d", s.n, s.c, s.h, s.w);
    return buffer;
}

/* 25557032 → "25,557,032" */
static const char *grouped(double value, char *buffer, size_t size)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", value);
    size_t n = strlen(digits), out = 0;
    for (size_t i = 0; i < n && out + 2 < size; i++) {
        if (i > 0 && (n - i) % 3 == 0) buffer[out++] = ',';
        buffer[out++] = digits[i];
    }
    buffer[out] = '\0';
    return buffer;
}

static void print_ops(const sslat_graph *graph, const show_options *o)
{
    for (int32_t i = 0; i < graph->count; i++) {
        const sslat_node *node = &graph->nodes[i];
        char shape[48], detail[64] = "", params[32];
        if (node->op == SSLAT_OP_CONV2D) {
            const sslat_conv_params *c = sslat_node_conv(node);
            sslat_pads p = sslat_conv_pads(c, sslat_graph_shape_of(graph, node->input[0]));
            char pad[24];
            if (sslat_pads_symmetric(p)) snprintf(pad, sizeof pad, "p%d", p.top);
            else snprintf(pad, sizeof pad, "p%d,%d+%d,%d", p.top, p.left, p.bottom, p.right);
            snprintf(detail, sizeof detail, "k%d s%d %s g%d%s", c->kernel, c->stride, pad, c->groups,
                     c->bias ? " bias" : "");
        } else if (node->op == SSLAT_OP_ACT) {
            snprintf(detail, sizeof detail, "%s", sslat_act_name(sslat_node_act(node)));
        } else if (node->op == SSLAT_OP_MAXPOOL || node->op == SSLAT_OP_AVGPOOL) {
            const sslat_pool_params *p = sslat_node_pool(node);
            snprintf(detail, sizeof detail, "k%d s%d p%d", p->kernel, p->stride, p->padding);
        }
        printf("%6s %-15s %-14s %-18s %-16s %12s %10.3f\n", "", sslat_op_name(node->op),
               cli_text(node->name), detail, shape_text(node->shape, shape, sizeof shape),
               grouped((double)sslat_node_param_count(graph, node), params, sizeof params),
               sslat_ignore_contains(&o->ignore, node) ? 0.0
                                                       : sslat_mac_node(graph, node, o->rule, o->fuse_bn) / 1e6);
    }
}

static void print_candidate_line(const char *index, const char *name, const char *label,
                                 const sslat_graph *graph, const show_options *o, bool marked)
{
    char shape[48], params[32];
    graph_totals t = totals_of(graph, o);
    const show_widths *w = &o->width;
    printf("%4s %c %-*s %-*s %-*s %*s %10.2f\n", index, marked ? '*' : ' ', w->name, name, w->label, label, w->shape,
           shape_text(sslat_graph_output(graph), shape, sizeof shape), w->params,
           grouped(t.params, params, sizeof params), t.macs / 1e6);
    if (o->ops) print_ops(graph, o);
}

/* "6^6 x 7^15": the architecture count as powers of each candidate count. */
static void print_factorised(const sslat_space *space)
{
    int32_t powers[SSLAT_MAX_CANDIDATES + 1] = {0};
    for (int32_t b = 0; b < space->n_blocks; b++) {
        int32_t n = sslat_space_block_layer(space, b)->n_candidates;
        if (n < SSLAT_MAX_CANDIDATES + 1) powers[n]++;
    }
    bool first = true;
    for (int32_t n = 2; n < SSLAT_MAX_CANDIDATES + 1; n++) {
        if (!powers[n]) continue;
        printf("%s%d^%d", first ? "" : " x ", n, powers[n]);
        first = false;
    }
}

static int widest(int current, const char *text)
{
    int length = (int)strlen(text);
    return length > current ? length : current;
}

/* Each column as wide as its header and its longest entry. */
static show_widths widths_of(const sslat_space *space, const show_options *o)
{
    show_widths w = {(int)strlen("layer / block"), (int)strlen("candidate"), (int)strlen("output"), (int)strlen("params")};
    for (int32_t i = 0; i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        w.name = widest(w.name, cli_text(layer->name));
        for (int32_t c = 0; c < layer->n_candidates; c++) {
            char label[112], shape[48], params[32];
            if (layer->block >= 0) {
                snprintf(label, sizeof label, "%d %s", c, cli_text(layer->candidates[c].label));
                w.label = widest(w.label, label);
            }
            const sslat_graph *graph = &layer->candidates[c].graph;
            w.shape = widest(w.shape, shape_text(sslat_graph_output(graph), shape, sizeof shape));
            w.params = widest(w.params, grouped(totals_of(graph, o).params, params, sizeof params));
        }
    }
    return w;
}

static void print_space(const sslat_space *space, const char *source, const show_options *options)
{
    show_options sized = *options;
    sized.width = widths_of(space, options);
    const show_options *o = &sized;
    const show_widths *w = &o->width;
    printf("space   %s (%s)\n", cli_text(space->name), cli_text(source));
    printf("input   %dx%dx%dx%d (NxCxHxW)   layers %d   NAS blocks %d   hash %016llx\n",
           space->input.n, space->input.c, space->input.h, space->input.w, space->n_layers,
           space->n_blocks, (unsigned long long)space->hash);
    printf("MACs    %s, millions, whole batch\n\n", sslat_mac_rule_name(o->rule));
    printf("%4s   %-*s %-*s %-*s %*s %10s\n", "#", w->name, "layer / block", w->label, "candidate", w->shape, "output",
           w->params, "params", "MMACs");

    graph_totals constant = {0, 0}, low = {0, 0}, high = {0, 0}, chosen = {0, 0};
    for (int32_t i = 0; i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        char index[16];
        snprintf(index, sizeof index, "%d", i);
        if (layer->block < 0) {
            const sslat_graph *graph = &layer->candidates[0].graph;
            print_candidate_line(index, cli_text(layer->name), "", graph, o, false);
            graph_totals t = totals_of(graph, o);
            constant.params += t.params;
            constant.macs += t.macs;
            continue;
        }
        graph_totals lo = {INFINITY, INFINITY}, hi = {-INFINITY, -INFINITY};
        for (int32_t c = 0; c < layer->n_candidates; c++) {
            char label[112];
            snprintf(label, sizeof label, "%d %s", c, cli_text(layer->candidates[c].label));
            bool marked = space->arch && space->arch[layer->block] == c;
            print_candidate_line(c == 0 ? index : "", c == 0 ? cli_text(layer->name) : "", label,
                                 &layer->candidates[c].graph, o, marked);
            graph_totals t = totals_of(&layer->candidates[c].graph, o);
            lo.params = fmin(lo.params, t.params);
            lo.macs = fmin(lo.macs, t.macs);
            hi.params = fmax(hi.params, t.params);
            hi.macs = fmax(hi.macs, t.macs);
            if (marked) {
                chosen.params += t.params;
                chosen.macs += t.macs;
            }
        }
        low.params += lo.params;
        low.macs += lo.macs;
        high.params += hi.params;
        high.macs += hi.macs;
    }

    char a[32], b[32];
    printf("\nconstant part    params %s   MMACs %.2f\n", grouped(constant.params, a, sizeof a),
           constant.macs / 1e6);
    if (space->n_blocks == 0) {
        printf("total            params %s   MMACs %.2f   (a fixed network: 1 architecture)\n",
               grouped(constant.params, a, sizeof a), constant.macs / 1e6);
        return;
    }
    printf("network min      params %s   MMACs %.2f   (each block at its minimum)\n",
           grouped(constant.params + low.params, a, sizeof a), (constant.macs + low.macs) / 1e6);
    printf("network max      params %s   MMACs %.2f   (each block at its maximum)\n",
           grouped(constant.params + high.params, b, sizeof b), (constant.macs + high.macs) / 1e6);
    if (space->arch)
        printf("arch (* above)   params %s   MMACs %.2f\n",
               grouped(constant.params + chosen.params, a, sizeof a),
               (constant.macs + chosen.macs) / 1e6);
    size_t need = sslat_space_architecture_count_string(space, NULL, 0) + 1;
    char *count = malloc(need);
    if (count) {
        sslat_space_architecture_count_string(space, count, need);
        printf("architectures    %s = ", count);
        print_factorised(space);
        printf("\n");
        free(count);
    }
}

/* The expanded IR of a space as JSON (show --ir): every layer, candidate and
 * primitive node with its parameters, learnable parameter count and output
 * shape, for other tools (python/sslat/_ir_torch.py builds the ops in PyTorch
 * from it). */
static void print_ir_json(const sslat_space *space)
{
    json_t *layers = json_array();
    for (int32_t i = 0; i < space->n_layers; i++) {
        const sslat_layer *layer = &space->layers[i];
        json_t *candidates = json_array();
        for (int32_t c = 0; c < layer->n_candidates; c++) {
            json_t *candidate = sslat_graph_json(&layer->candidates[c].graph);
            json_object_set_new(candidate, "label", json_string(layer->candidates[c].label));
            json_array_append_new(candidates, candidate);
        }
        json_t *sources = json_array(); /* what the layer reads ("from"): layer indices, -1 the network input */
        for (int k = 0; k < layer->n_sources; k++) json_array_append_new(sources, json_integer(layer->source[k]));
        json_array_append_new(layers, json_pack("{s:s, s:i, s:o, s:o}", "name", layer->name, "block", layer->block,
                                                "sources", sources, "candidates", candidates));
    }
    json_t *input = json_pack("[i, i, i, i]", space->input.n, space->input.c, space->input.h, space->input.w);
    cli_print_json(json_pack("{s:s, s:o, s:o}", "name", space->name, "input", input, "layers", layers));
}

static void show_usage(void)
{
    printf("usage: sslat show [SPACE] [options]\n\n"
           "Prints every layer and NAS block with each candidate's output shape, parameters\n"
           "and MACs, the totals, and the number of architectures. '*' marks the file's arch.\n\n"
           CLI_SPACE_HELP
           "  -c, --calculator T MAC rule for the MMACs column: mac (default), mac_thop,\n"
           "                     mac_fvcore, mac_pthflops\n"
           "  --ignore LIST      op kinds or activations left out of the MACs (batchnorm,act)\n"
           "  --fuse-bn          count the network as it runs for inference: every BN folded\n"
           "                     into the conv before it (the conv gains a bias)\n"
           "  --ops              list the primitive operations of every candidate\n"
           "  --ir               print the expanded IR as JSON (layers, candidates, nodes with\n"
           "                     parameters, shapes and canonical hashes) for other tools\n"
           "  -h, --help         this help\n");
}

enum { OPT_IGNORE = 2001, OPT_OPS, OPT_IR, OPT_FUSE_BN };

typedef struct show_args {
    cli_space_args space;
    show_options table;
    bool ir;
} show_args;

static int show_option(int opt, const char *value, void *args)
{
    show_args *a = args;
    int code = CLI_OK;
    if (cli_space_option(opt, value, &a->space, &code)) return code;
    switch (opt) {
    case 'c': {
        int rule = sslat_mac_rule_from_name(value);
        if (rule < 0) {
            fprintf(stderr, "sslat show: -c takes a MAC rule (mac, mac_thop, mac_fvcore, "
                            "mac_pthflops), got '%s'\n", value);
            return CLI_BAD_INPUT;
        }
        a->table.rule = (sslat_mac_rule)rule;
        return CLI_OK;
    }
    case OPT_IGNORE: {
        sslat_error err;
        if (sslat_ignore_parse(value, &a->table.ignore, &err) != SSLAT_OK) {
            fprintf(stderr, "sslat show: %s\n", err.message);
            return CLI_BAD_INPUT;
        }
        return CLI_OK;
    }
    case OPT_OPS: a->table.ops = true; return CLI_OK;
    case OPT_FUSE_BN: a->table.fuse_bn = true; return CLI_OK;
    case OPT_IR: a->ir = true; return CLI_OK;
    default: return CLI_BAD_INPUT;
    }
}

static const struct option SHOW_OPTIONS[] = {
    {"calculator", required_argument, NULL, 'c'}, {"ignore", required_argument, NULL, OPT_IGNORE},
    {"ops", no_argument, NULL, OPT_OPS},           {"help", no_argument, NULL, 'h'},
    {"ir", no_argument, NULL, OPT_IR},             {"fuse-bn", no_argument, NULL, OPT_FUSE_BN},
    CLI_SPACE_LONG_OPTIONS,                        {NULL, 0, NULL, 0}};
static const cli_verb SHOW = {"show", "c:h", SHOW_OPTIONS, show_usage, show_option, 0, 1, NULL};

int cmd_show(int argc, char **argv)
{
    show_args a = {.table = {SSLAT_MAC_PLAIN, {0, 0}, false, false, {0, 0, 0, 0}}};
    int first, code = cli_parse(&SHOW, argc, argv, &a, &first);
    if (code != CLI_OK) return code == CLI_HELP ? CLI_OK : code;
    cli_space_args args = a.space;
    if (first < argc) args.path = argv[first];
    show_options o = a.table;
    bool ir = a.ir;
    sslat_space *space = NULL;
    code = cli_load_space(&args, &space);
    if (code != CLI_OK) return code;
    if (ir) print_ir_json(space);
    else print_space(space, args.path ? args.path : "built-in default", &o);
    sslat_space_free(space);
    return CLI_OK;
}
