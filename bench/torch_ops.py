#!/usr/bin/env python3
"""The same ops in PyTorch, timed so the comparison with sslat's cuda table is
fair: eval mode, cudnn.benchmark=True, BN folded into the conv before it (as
sslat's fused mode does), the dtype AND the layout of the sslat table it is
compared with (--layout; default: sslat's, NCHW for fp32 / tf32,
channels_last for fp16 / bf16), and R copies per CUDA-graph replay, each with
its own weights and input, R chosen by sslat's rule (a replay >= 0.2 ms, the
copies' footprint > 2x L2), replayed between CUDA events.

Reads the IR of `sslat show --ir SPACE [--batch B]` (the very subgraphs sslat
measures) and writes CSV: layer,label,torch_ms (per sample, like sslat's
entries). Only the NAS blocks' candidates; identical subgraphs timed once. A
candidate that launches no kernel (a skip: an identity) is 0, as sslat's
entry is: an empty graph's replay is no latency.

The regime, as sslat's ("fair", the default): every copy keeps its own
intermediates (each copy's values stay referenced through the capture, so
the graph's memory pool cannot hand one copy's buffers to the next, L2-warm),
and each timed replay waits behind a GPU spin (torch.cuda._sleep, about
50 us) meant to last until the start event, the replay and the stop event are
queued, as sslat's blocking kernel does: the host's launch latency stays out
of the sample. The spin is fixed, not released by the host: the samples it
ended too early for are counted on stderr. --compare-regimes also times the
plain regime (intermediates freed into the pool, no spin) and writes it as a
second column, torch_plain_ms, so the difference is reported beside.

    python3 bench/torch_ops.py IR.json --dtype fp16 -o torch.csv
    python3 bench/torch_ops.py IR.json --dtype fp32 --layout nchw --compare-regimes -o torch.csv
    python3 bench/torch_ops.py IR.json --dtype fp16 --kernels blk01:ir_k7_e6   # kernel names, torch.profiler
"""
import argparse
import copy
import importlib.util
import csv
import json
import math
import os
import statistics
import sys

import torch
import torch.nn as nn

# The one IR -> PyTorch interpreter (python/sslat/_ir_torch.py, what
# sslat.torch.to_module and `validate --reference torch` use), loaded by path:
# it imports nothing, and the sslat package would load libsslat.
_spec = importlib.util.spec_from_file_location(
    "sslat_ir_torch", os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "sslat", "_ir_torch.py"))
_ir_torch = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_ir_torch)
fold_batchnorm = _ir_torch.fold_batchnorm


def torch_module(torch, graph):
    return _ir_torch.interpreter(torch)(graph)


def copies_for(one_ms, copy_bytes, l2_bytes, free_bytes, min_replay_ms=0.2, max_copies=1024):
    """sslat's rule (kernels/cuda_env.c, sslat_cuda_copies)."""
    by_time = math.ceil(min_replay_ms / one_ms) if one_ms > 0 else max_copies
    by_cache = math.floor(2 * l2_bytes / copy_bytes) + 1 if copy_bytes > 0 else 1
    copies = min(max(by_time, by_cache, 1), max_copies)
    if copy_bytes > 0 and copies * copy_bytes > free_bytes:
        copies = free_bytes // copy_bytes
    return max(int(copies), 1)


def layout_of(dtype, layout):
    """torch's memory format for a layout name, or sslat's default for the dtype."""
    if layout is None:
        layout = "nhwc" if dtype in (torch.float16, torch.bfloat16) else "nchw"
    return torch.channels_last if layout == "nhwc" else torch.contiguous_format


def capture(models, inputs, keep_intermediates):
    """One CUDA graph of every copy. keep_intermediates: each copy's values stay
    referenced (returned with the graph) so no copy reuses another's buffers."""
    kept = []
    with torch.no_grad():
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for model, x in zip(models, inputs):
                model(x)  # an eager run of each before capture
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for model, x in zip(models, inputs):
                if keep_intermediates:
                    kept.append(model.run(x))
                else:
                    model(x)
    return graph, kept


# GPU cycles the spin before a timed replay lasts: about 50 us at 2 GHz, far
# more than queueing an event, a graph launch and an event takes
SPIN_CYCLES = 100_000


# samples whose spin had ended before the stop event was queued (launch
# latency inside them), and all spun samples: printed at the end
SPIN_SHORT = [0, 0]


def replay_ms(graph, runs, spin):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    spun = torch.cuda.Event()
    samples = []
    for _ in range(runs):
        if spin:
            torch.cuda._sleep(SPIN_CYCLES)
            spun.record()
        start.record()
        graph.replay()
        stop.record()
        if spin:  # a fixed spin, not sslat's host-released one: say when it was too short
            SPIN_SHORT[0] += spun.query()
            SPIN_SHORT[1] += 1
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
    return statistics.median(samples)


def launches_nothing(candidate):
    """A subgraph of identities and flattens only: sslat's entry is 0."""
    return all(node["op"] in ("identity", "flatten") for node in candidate["nodes"])


def build(candidate, dtype, memory_format):
    return fold_batchnorm(torch, torch_module(torch, candidate).eval()).cuda().to(dtype=dtype,
                                                                                 memory_format=memory_format)


def time_subgraph(candidate, dtype, memory_format, warmup, runs, regimes):
    """ms per sample of each regime ("fair", then "plain" when asked)."""
    base = build(candidate, dtype, memory_format)
    n = candidate["input"][0]

    def make_input():
        return torch.rand(candidate["input"], device="cuda", dtype=dtype).mul_(2).sub_(1).contiguous(
            memory_format=memory_format)

    with torch.no_grad():
        for _ in range(3):
            base(make_input())  # cudnn.benchmark picks its algorithms here
    torch.cuda.synchronize()
    # one copy's time and footprint decide the copies, as sslat decides them
    first = [make_input()]  # a captured graph reads its inputs' memory: they stay referenced while it replays
    one_graph, one_kept = capture([base], first, True)
    one = replay_ms(one_graph, 3, True)
    element = torch.tensor([], dtype=dtype).element_size()
    footprint = sum(p.numel() for p in base.parameters()) * element
    footprint += sum(math.prod(node["shape"]) for node in candidate["nodes"]) * element + math.prod(candidate["input"]) * element
    free, _ = torch.cuda.mem_get_info()
    copies = copies_for(one, footprint, torch.cuda.get_device_properties(0).L2_cache_size, free // 2)
    models = [base] + [copy.deepcopy(base) for _ in range(copies - 1)]
    for model in models[1:]:  # each copy its own weights, as in sslat
        with torch.no_grad():
            for parameter in model.parameters():
                parameter.copy_(torch.empty_like(parameter).uniform_(-0.1, 0.1))
    inputs = [make_input() for _ in range(copies)]
    times = []
    for regime in regimes:
        fair = regime == "fair"
        graph, kept = capture(models, inputs, fair)
        for _ in range(warmup):
            graph.replay()
        times.append(replay_ms(graph, runs, fair) / copies / n)
        del graph, kept
    return times


def kernel_names(candidate, dtype, memory_format):
    """The kernels one run of the candidate launches, in order (torch.profiler)."""
    model = build(candidate, dtype, memory_format)
    x = torch.rand(candidate["input"], device="cuda", dtype=dtype).contiguous(memory_format=memory_format)
    with torch.no_grad():
        for _ in range(3):
            model(x)  # cudnn.benchmark picks first
        torch.cuda.synchronize()
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as profile:
            model(x)
            torch.cuda.synchronize()
    events = [e for e in profile.events() if e.device_type == torch.autograd.DeviceType.CUDA]
    return [e.name for e in sorted(events, key=lambda e: e.time_range.start)]


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ir", help="output of sslat show --ir")
    parser.add_argument("--dtype", default="fp32", choices=["fp32", "tf32", "fp16", "bf16"])
    parser.add_argument("--layout", choices=["nchw", "nhwc"], help="default: sslat's for the dtype")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--compare-regimes", action="store_true",
                        help="also the plain regime (shared intermediates, no spin): column torch_plain_ms")
    parser.add_argument("--kernels", metavar="LAYER:LABEL",
                        help="print the kernels one run of that candidate launches, and nothing else")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    tf32 = args.dtype == "tf32"
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(args.dtype, torch.float32)
    memory_format = layout_of(dtype, args.layout)
    with open(args.ir) as file:
        ir = json.load(file)
    if args.kernels:
        layer_name, label = args.kernels.split(":", 1)
        found = [c for layer in ir["layers"] if layer["name"] == layer_name for c in layer["candidates"]
                 if c["label"] == label]
        if not found:
            sys.exit("torch_ops.py: no candidate %s in %s" % (args.kernels, args.ir))
        names = kernel_names(found[0], dtype, memory_format)
        print("torch %s %s %s: %d kernels: %s" % (args.kernels, args.dtype, "nhwc" if memory_format ==
              torch.channels_last else "nchw", len(names), "; ".join(names)))
        return
    regimes = ["fair", "plain"] if args.compare_regimes else ["fair"]
    timed = {}
    rows = []
    for layer in ir["layers"]:
        if layer["block"] < 0:
            continue
        for candidate in layer["candidates"]:
            if launches_nothing(candidate):
                rows.append((layer["name"], candidate["label"], [0.0] * len(regimes)))
                continue
            if candidate["hash"] not in timed:
                timed[candidate["hash"]] = time_subgraph(candidate, dtype, memory_format, args.warmup, args.runs,
                                                         regimes)
            rows.append((layer["name"], candidate["label"], timed[candidate["hash"]]))
    out = sys.stdout if args.output == "-" else open(args.output, "w", newline="")
    writer = csv.writer(out)
    writer.writerow(["layer", "label", "torch_ms"] + (["torch_plain_ms"] if args.compare_regimes else []))
    for name, label, times in rows:
        writer.writerow([name, label] + ["%.9g" % t for t in times])
    if out is not sys.stdout:
        out.close()
    print("torch_ops.py: %d of %d spun samples had the spin end before their stop event was queued"
          % (SPIN_SHORT[0], SPIN_SHORT[1]), file=sys.stderr)


if __name__ == "__main__":
    main()
