"""Per-candidate MAC counts of ENOT's YOLOv5s search space, by the libraries.

Not run by CI (it needs PyTorch, thop 0.1.1, fvcore 0.1.5, pthflops 0.4.2).
Writes tests/data/yolov5s_ss_counts.json, which tests/test_yolo_counts.cc
compares with examples/yolov5s_ss.json entry by entry:
    python tests/reference/yolo_reference.py [OUT.json]

The network is rebuilt here from the published description, not from sslat's
file: ENOT-AutoDL/enot_yolov5's models/yolov5sss_v1.yaml (its rows, `from`
indices, depth 0.33 and width 0.5 as models/yolo.py's parse_model scales
them) and the candidate lists of models/search.py, with models/common.py's
modules (its Conv is conv → BN → ReLU). Detect is the raw head: one 1x1 conv
with bias per scale, without the box decoding.

ENOT's method for a MAC table: every candidate counted alone on its own input,
and the constant = the whole network at arch 0 minus its candidates at arch 0;
with fuse_bn, on the network whose BNs are folded into their convs.
"""
import json
import math
import sys
import warnings

import torch
import torch.nn as nn

warnings.filterwarnings("ignore")

WIDTH, DEPTH, CLASSES, ANCHORS = 0.5, 0.33, 80, 3
RESOLUTIONS = (224, 320, 480, 640)


ACTIVATION = [nn.ReLU]  # ENOT's fork; ultralytics' YOLOv5 (yolov5s below) uses SiLU


def conv(c1, c2, k=1, s=1, act=True, p=None):
    """common.py's Conv: k×k conv (padding k // 2, no bias) → BN → ReLU (or nothing)."""
    layers = [nn.Conv2d(c1, c2, k, s, k // 2 if p is None else p, bias=False), nn.BatchNorm2d(c2)]
    return nn.Sequential(*layers, ACTIVATION[0]()) if act else nn.Sequential(*layers)


class Residual(nn.Module):
    def __init__(self, body, skip=None):
        super().__init__()
        self.body, self.skip = body, skip

    def forward(self, x):
        return self.body(x) + (x if self.skip is None else self.skip(x))


def bottleneck(c, shortcut, k):
    body = nn.Sequential(conv(c, c, 1), conv(c, c, k))
    return Residual(body) if shortcut else body


class C3(nn.Module):
    def __init__(self, c1, c2, n=1, shortcut=True, e=0.5, k=3):
        super().__init__()
        hidden = int(c2 * e)
        self.cv1, self.cv2, self.cv3 = conv(c1, hidden), conv(c1, hidden), conv(2 * hidden, c2)
        self.m = nn.Sequential(*[bottleneck(hidden, shortcut, k) for _ in range(n)])

    def forward(self, x):
        return self.cv3(torch.cat((self.m(self.cv1(x)), self.cv2(x)), 1))


def conv_block(c1, c2, n=2, k=3, shortcut=True, e=0.5):
    hidden = int(c2 * e)
    body = [conv(c1, hidden if n > 1 else c2, k)] + [conv(hidden, hidden, k) for _ in range(n - 2)]
    if n > 1:
        body.append(conv(hidden, c2, k))
    body = nn.Sequential(*body)
    if not shortcut:
        return body
    return Residual(body, None if c1 == c2 else conv(c1, c2, 1, act=False))


class SPP(nn.Module):
    def __init__(self, c1, c2, kernels=(5, 9, 13)):
        super().__init__()
        hidden = c1 // 2
        self.cv1, self.cv2 = conv(c1, hidden), conv(hidden * (len(kernels) + 1), c2)
        self.m = nn.ModuleList(nn.MaxPool2d(k, 1, k // 2) for k in kernels)

    def forward(self, x):
        x = self.cv1(x)
        return self.cv2(torch.cat([x] + [m(x) for m in self.m], 1))


class SPPF(nn.Module):
    def __init__(self, c1, c2, k=5):
        super().__init__()
        hidden = c1 // 2
        self.cv1, self.cv2, self.m = conv(c1, hidden), conv(hidden * 4, c2), nn.MaxPool2d(k, 1, k // 2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat([x, y1, y2, self.m(y2)], 1))


class Focus(nn.Module):
    def __init__(self, c1, c2, k):
        super().__init__()
        self.conv = conv(4 * c1, c2, k)

    def forward(self, x):
        return self.conv(torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1))


class Concat(nn.Module):
    def forward(self, xs):
        return torch.cat(xs, 1)


class Detect(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.m = nn.ModuleList(nn.Conv2d(c, ANCHORS * (CLASSES + 5), 1) for c in channels)

    def forward(self, xs):
        return [m(x) for m, x in zip(self.m, xs)]


def reduction_candidates(c1, c2, n, k, s):
    """search.py's ReductionSearchBlockSmall: Conv (stride s) then C3 or ConvBlock."""
    if n == 1:
        combos = [("c3", 1.0, 0.5, 1.0), ("c3", 0.75, 0.75, 1.0), ("c3", 0.5, 1.0, 1.0),
                  ("convs", 1.0, 0.5, 1.0), ("convs", 0.75, 0.5, 1.0), ("convs", 0.5, 0.5, 1.0),
                  ("convs", 0.75, 0.5, 2.0), ("convs", 0.5, 0.75, 2.0), ("convs", 0.5, 0.5, 2.0),
                  ("convs", 0.75, 0.375, 3.0), ("convs", 0.5, 0.5, 3.0), ("convs", 0.5, 0.375, 3.0)]
    else:
        combos = [("c3", e0, e, d) for d in (1.0, 0.66)
                  for e0, e in ((1.0, 0.5), (0.75, 0.75), (0.75, 0.5), (0.5, 1.0), (0.5, 0.75), (0.5, 0.5))]
    out = []
    for kind, e0, e, d in combos:
        d = max(int(round(n * d)), 1)
        hidden = int(c2 * e0)
        second = C3(hidden, c2, d, True, e * e0, k) if kind == "c3" else conv_block(hidden, c2, d, k, True, e * e0)
        out.append(nn.Sequential(conv(c1, hidden, k, s), second))
    return out


def search_candidates(c1, c2, n, shortcut):
    """search.py's SearchBlockSmall: C3 or ConvBlock."""
    combos = [("c3", 0.5, 1.0), ("c3", 0.375, 1.0), ("c3", 0.25, 1.0),
              ("convs", 0.5, 2.0), ("convs", 0.375, 2.0), ("convs", 0.25, 2.0), ("convs", 0.125, 2.0),
              ("convs", 0.375, 3.0), ("convs", 0.25, 3.0), ("convs", 0.125, 3.0),
              ("convs", 0.25, 4.0), ("convs", 0.125, 4.0)]
    out = []
    for kind, e, d in combos:
        d = max(int(round(n * d)), 1)
        out.append(C3(c1, c2, d, shortcut, e, 3) if kind == "c3" else conv_block(c1, c2, d, 3, shortcut, e))
    return out


# models/yolov5sss_v1.yaml: [from, number, module, args]
ROWS = [
    (-1, 1, "Focus", [64, 3]), (-1, 3, "Reduction", [128, 3, 2]), (-1, 9, "Reduction", [256, 3, 2]),
    (-1, 9, "Reduction", [512, 3, 2]), (-1, 1, "Conv", [1024, 3, 2]), (-1, 1, "SPP", [1024]),
    (-1, 3, "Search", [1024, False]),
    (-1, 1, "Conv", [512, 1, 1]), (-1, 1, "Upsample", []), ([-1, 3], 1, "Concat", []), (-1, 3, "Search", [512, False]),
    (-1, 1, "Conv", [256, 1, 1]), (-1, 1, "Upsample", []), ([-1, 2], 1, "Concat", []), (-1, 3, "Search", [256, False]),
    (-1, 1, "Conv", [256, 3, 2]), ([-1, 11], 1, "Concat", []), (-1, 3, "Search", [512, False]),
    (-1, 1, "Conv", [512, 3, 2]), ([-1, 7], 1, "Concat", []), (-1, 3, "Search", [1024, False]),
    ([14, 17, 20], 1, "Detect", []),
]


# ultralytics YOLOv5s v6.0, models/yolov5s.yaml (SiLU): the twin of examples/yolov5s.json
ROWS_V6 = [
    (-1, 1, "Conv", [64, 6, 2, 2]), (-1, 1, "Conv", [128, 3, 2]), (-1, 3, "C3", [128]), (-1, 1, "Conv", [256, 3, 2]),
    (-1, 6, "C3", [256]), (-1, 1, "Conv", [512, 3, 2]), (-1, 9, "C3", [512]), (-1, 1, "Conv", [1024, 3, 2]),
    (-1, 3, "C3", [1024]), (-1, 1, "SPPF", [1024, 5]),
    (-1, 1, "Conv", [512, 1, 1]), (-1, 1, "Upsample", []), ([-1, 6], 1, "Concat", []), (-1, 3, "C3", [512, False]),
    (-1, 1, "Conv", [256, 1, 1]), (-1, 1, "Upsample", []), ([-1, 4], 1, "Concat", []), (-1, 3, "C3", [256, False]),
    (-1, 1, "Conv", [256, 3, 2]), ([-1, 14], 1, "Concat", []), (-1, 3, "C3", [512, False]),
    (-1, 1, "Conv", [512, 3, 2]), ([-1, 10], 1, "Concat", []), (-1, 3, "C3", [1024, False]),
    ([17, 20, 23], 1, "Detect", []),
]


def make_divisible(x, divisor=8):
    return math.ceil(x / divisor) * divisor


def build(table=ROWS):
    """Rows as modules (a search row: its candidates) and each row's output width."""
    channels, rows = [], []  # channels[i]: row i's output width
    for source, number, kind, args in table:
        n = max(round(number * DEPTH), 1) if number > 1 else number
        c1 = (channels[source] if channels else 3) if isinstance(source, int) else None
        c2 = make_divisible(args[0] * WIDTH) if args else c1
        if kind == "Focus":
            module = Focus(c1, c2, args[1])
        elif kind == "Conv":
            module = conv(c1, c2, args[1], args[2], p=args[3] if len(args) > 3 else None)
        elif kind == "C3":
            module = C3(c1, c2, n, args[1] if len(args) > 1 else True)
        elif kind == "SPPF":
            module = SPPF(c1, c2, args[1])
        elif kind == "SPP":
            module = SPP(c1, c2)
        elif kind == "Upsample":
            module = nn.Upsample(scale_factor=2, mode="nearest")
        elif kind == "Concat":
            module, c2 = Concat(), sum(channels[j] for j in source)
        elif kind == "Detect":
            module = Detect([channels[j] for j in source])
        elif kind == "Reduction":
            module = reduction_candidates(c1, c2, n, args[1], args[2])
        else:
            module = search_candidates(c1, c2, n, args[1])
        rows.append((source, module))
        channels.append(c2)
    return rows


class Network(nn.Module):
    """The rows with one candidate chosen per search row, wired by `from`."""

    def __init__(self, rows, arch):
        super().__init__()
        picks, b = [], 0
        for source, module in rows:
            if isinstance(module, list):
                module, b = module[arch[b]], b + 1
            picks.append(module)
        self.sources = [source for source, _ in rows]
        self.layers = nn.ModuleList(picks)

    def forward(self, x):
        outputs = []
        for source, layer in zip(self.sources, self.layers):
            if isinstance(source, int):
                x = layer(x if source == -1 else outputs[source])
            else:
                x = layer([x if j == -1 else outputs[j] for j in source])
            outputs.append(x)
        return x


class SearchNetwork(Network):
    """Every candidate present, each search row held by wrap(candidates): a
    choice container (sslat.torch.Choice stands in for ENOT's)."""

    def __init__(self, wrap, rows=None):
        nn.Module.__init__(self)
        rows = rows or build()
        self.sources = [source for source, _ in rows]
        self.layers = nn.ModuleList(wrap(module) if isinstance(module, list) else module for _, module in rows)


def folded(module):
    """common.py's fuse(): each Conv's BN folded into its conv (a conv with bias)."""
    from torch.fx.experimental.optimization import fuse
    return fuse(module.eval())


def counts(module, x, fuse_bn):
    import thop
    from fvcore.nn import FlopCountAnalysis
    from pthflops import count_ops
    module = folded(module) if fuse_bn else module.eval()
    thop_macs, _ = thop.profile(module, inputs=(x,), verbose=False)
    fv = FlopCountAnalysis(module, x)
    fv.unsupported_ops_warnings(False)
    fv.uncalled_modules_warnings(False)
    try:
        pth, _ = count_ops(module, x, mode="fx", print_readable=False, verbose=False)
    except Exception as error:
        pth = "fails: %s" % type(error).__name__
    return {"mac_thop": float(thop_macs), "mac_fvcore": float(fv.total()), "mac_pthflops": pth}


def candidate_inputs(rows, resolution):
    """The input every search row's candidates see (a forward of arch 0, recording)."""
    seen = []
    network = Network(rows, [0] * 8).eval()
    hooks = [layer.register_forward_hook(lambda m, inp, out: seen.append((m, inp[0].shape)))
             for layer, (_, module) in zip(network.layers, rows) if isinstance(module, list)]
    with torch.no_grad():
        network(torch.zeros(1, 3, resolution, resolution))
    for hook in hooks:
        hook.remove()
    return [shape for _, shape in seen]


def main():
    import importlib.metadata as md
    out_path = sys.argv[1] if len(sys.argv) > 1 else "tests/data/yolov5s_ss_counts.json"
    torch.manual_seed(0)
    rows = build()
    blocks = [module for _, module in rows if isinstance(module, list)]
    result = {"versions": {n: md.version(n) for n in ("torch", "thop", "fvcore", "pthflops")},
              "params": {"blocks": [[sum(p.numel() for p in c.parameters()) for c in block] for block in blocks],
                         "arch0": sum(p.numel() for p in Network(rows, [0] * 8).parameters())},
              "counts": {}}
    for resolution in RESOLUTIONS:
        inputs = candidate_inputs(rows, resolution)
        whole_input = torch.zeros(1, 3, resolution, resolution)
        for fuse_bn in (False, True):
            key = "%d%s" % (resolution, " fused" if fuse_bn else "")
            per_block = [[counts(c, torch.zeros(inputs[b]), fuse_bn) for c in block] for b, block in enumerate(blocks)]
            whole = counts(Network(rows, [0] * 8), whole_input, fuse_bn)
            entry = {}
            for rule in ("mac_thop", "mac_fvcore", "mac_pthflops"):
                table = [[c[rule] for c in block] for block in per_block]
                fails = isinstance(whole[rule], str) or any(isinstance(v, str) for b in table for v in b)
                constant = None if fails else whole[rule] - sum(block[0] for block in table)
                entry[rule] = {"constant": constant, "blocks": table, "whole_arch0": whole[rule]}
            result["counts"][key] = entry
            print(key, {rule: entry[rule]["constant"] for rule in entry}, file=sys.stderr)
    ACTIVATION[0] = nn.SiLU
    v6 = Network(build(ROWS_V6), [])
    result["yolov5s"] = {"params": sum(p.numel() for p in v6.parameters())}
    for resolution in (320, 640):
        for fuse_bn in (False, True):
            key = "%d%s" % (resolution, " fused" if fuse_bn else "")
            result["yolov5s"][key] = counts(Network(build(ROWS_V6), []), torch.zeros(1, 3, resolution, resolution),
                                            fuse_bn)
    print("yolov5s", result["yolov5s"], file=sys.stderr)
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
