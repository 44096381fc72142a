#!/usr/bin/env python3
"""The same ops in PyTorch, timed the way a careful PyTorch user would: eval
mode, channels_last, cudnn.benchmark=True, the op captured in a CUDA graph
(K calls over K inputs per replay) and replayed between CUDA events.

Reads the IR of `sslat show --ir SPACE [--batch B]` (the very subgraphs sslat
measures) and writes CSV: layer,label,torch_ms (per sample, like sslat's
entries). Only the NAS blocks' candidates; identical subgraphs timed once.

    python3 bench/torch_ops.py IR.json --dtype fp16 -o torch.csv
"""
import argparse
import csv
import json
import statistics
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

ACTS = {"relu": nn.ReLU, "relu6": nn.ReLU6, "hswish": nn.Hardswish, "hsigmoid": nn.Hardsigmoid,
        "sigmoid": nn.Sigmoid, "silu": nn.SiLU, "gelu": nn.GELU, "tanh": nn.Tanh}


class Subgraph(nn.Module):
    """An sslat subgraph: nodes in order, each reading earlier values (-1 = input)."""

    def __init__(self, candidate):
        super().__init__()
        self.nodes = candidate["nodes"]
        self.input_shape = candidate["input"]
        self.layers = nn.ModuleList()
        for node in self.nodes:
            in_shape = self.shape_of(node["input"][0])
            op = node["op"]
            if op == "conv2d":
                c = node["conv"]
                layer = nn.Conv2d(in_shape[1], c["out_channels"], c["kernel"], c["stride"], c["padding"],
                                  c["dilation"], c["groups"], bias=c["bias"])
            elif op == "batchnorm":
                layer = nn.BatchNorm2d(in_shape[1])
            elif op == "act":
                layer = ACTS[node["act"]]()
            elif op == "maxpool":
                p = node["pool"]
                layer = nn.MaxPool2d(p["kernel"], p["stride"], p["padding"])
            elif op == "avgpool":
                p = node["pool"]
                layer = nn.AvgPool2d(p["kernel"], p["stride"], p["padding"])
            elif op == "linear":
                features = in_shape[1] * in_shape[2] * in_shape[3]
                layer = nn.Linear(features, node["linear"]["out_features"], bias=node["linear"]["bias"])
            else:
                layer = nn.Identity()
            self.layers.append(layer)

    def shape_of(self, index):
        return self.input_shape if index == -1 else self.nodes[index]["shape"]

    def forward(self, x):
        values = []
        for node, layer in zip(self.nodes, self.layers):
            a = x if node["input"][0] == -1 else values[node["input"][0]]
            b = None if node["input"][1] == -2 else (x if node["input"][1] == -1 else values[node["input"][1]])
            op = node["op"]
            if op == "add":
                y = a + b
            elif op == "mul_channel":
                y = a * b
            elif op == "global_avgpool":
                y = F.adaptive_avg_pool2d(a, 1)
            elif op == "linear":
                y = layer(torch.flatten(a, 1)).view(a.shape[0], -1, 1, 1)
            elif op == "flatten":
                y = a.reshape(a.shape[0], -1, 1, 1)
            elif op == "channel_shuffle":
                n, c, h, w = a.shape
                g = node["groups"]
                y = a.view(n, g, c // g, h, w).transpose(1, 2).reshape(n, c, h, w)
            else:
                y = layer(a)
            values.append(y)
        return values[-1] if values else x


def time_subgraph(candidate, dtype, copies, warmup, runs):
    model = Subgraph(candidate).eval().cuda().to(dtype=dtype, memory_format=torch.channels_last)
    n = candidate["input"][0]
    inputs = [torch.rand(candidate["input"], device="cuda", dtype=dtype).mul_(2).sub_(1)
              .contiguous(memory_format=torch.channels_last) for _ in range(copies)]
    with torch.no_grad():
        for x in inputs[:3]:
            model(x)  # cudnn.benchmark picks its algorithms here
        torch.cuda.synchronize()
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            model(inputs[0])
        torch.cuda.current_stream().wait_stream(stream)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for x in inputs:
                model(x)
    for _ in range(warmup):
        graph.replay()
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    samples = []
    for _ in range(runs):
        start.record()
        graph.replay()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop) / copies / n)
    return statistics.median(samples)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("ir", help="output of sslat show --ir")
    parser.add_argument("--dtype", default="fp32", choices=["fp32", "tf32", "fp16", "bf16"])
    parser.add_argument("--copies", type=int, default=20, help="calls per graph replay")
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
                timed[candidate["hash"]] = time_subgraph(candidate, dtype, args.copies, args.warmup, args.runs)
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
