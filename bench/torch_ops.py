#!/usr/bin/env python3
"""The same ops in PyTorch, timed so the comparison with sslat's cuda table is
fair: eval mode, cudnn.benchmark=True, BN folded into the conv before it (as
sslat's fused mode does), the layout sslat used (NCHW for fp32 / tf32,
channels_last for fp16 / bf16), and R copies per CUDA-graph replay, each with
its own weights and input, R chosen by sslat's rule (a replay >= 0.2 ms, the
copies' footprint > 2x L2), replayed between CUDA events.

Reads the IR of `sslat show --ir SPACE [--batch B]` (the very subgraphs sslat
measures) and writes CSV: layer,label,torch_ms (per sample, like sslat's
entries). Only the NAS blocks' candidates; identical subgraphs timed once.

    python3 bench/torch_ops.py IR.json --dtype fp16 -o torch.csv

Left as it is: PyTorch's graph pool may reuse one copy's intermediates for
the next, where sslat gives each copy its own buffers.
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


def capture(models, inputs):
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
                model(x)
    return graph


def replay_ms(graph, runs):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(runs):
        start.record()
        graph.replay()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
    return statistics.median(samples)


def time_subgraph(candidate, dtype, warmup, runs):
    layout = torch.channels_last if dtype in (torch.float16, torch.bfloat16) else torch.contiguous_format
    base = fold_batchnorm(torch, torch_module(torch, candidate).eval()).cuda().to(dtype=dtype, memory_format=layout)
    n = candidate["input"][0]

    def make_input():
        return torch.rand(candidate["input"], device="cuda", dtype=dtype).mul_(2).sub_(1).contiguous(memory_format=layout)

    with torch.no_grad():
        for _ in range(3):
            base(make_input())  # cudnn.benchmark picks its algorithms here
    torch.cuda.synchronize()
    # one copy's time and footprint decide the copies, as sslat decides them
    first = [make_input()]  # a captured graph reads its inputs' memory: they stay referenced while it replays
    one = replay_ms(capture([base], first), 3)
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
    graph = capture(models, inputs)
    for _ in range(warmup):
        graph.replay()
    return replay_ms(graph, runs) / copies / n


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ir", help="output of sslat show --ir")
    parser.add_argument("--dtype", default="fp32", choices=["fp32", "tf32", "fp16", "bf16"])
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    torch.backends.cudnn.benchmark = True
    tf32 = args.dtype == "tf32"
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = tf32
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(args.dtype, torch.float32)
    with open(args.ir) as file:
        ir = json.load(file)
    timed = {}
    rows = []
    for layer in ir["layers"]:
        if layer["block"] < 0:
            continue
        for candidate in layer["candidates"]:
            if not candidate["nodes"]:
                rows.append((layer["name"], candidate["label"], 0.0))
                continue
            if candidate["hash"] not in timed:
                timed[candidate["hash"]] = time_subgraph(candidate, dtype, args.warmup, args.runs)
            rows.append((layer["name"], candidate["label"], timed[candidate["hash"]]))
    out = sys.stdout if args.output == "-" else open(args.output, "w", newline="")
    writer = csv.writer(out)
    writer.writerow(["layer", "label", "torch_ms"])
    for row in rows:
        writer.writerow([row[0], row[1], "%.9g" % row[2]])
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
