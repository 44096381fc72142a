#!/usr/bin/env python3
"""How the Pareto front and budget --top behave on tables far larger than a
real space's (docs/calculators.md, "Pareto front"): random tables of uniform
[0, 1) latencies and values, generated from a seed, each timed once per
repeat on this machine (figures, never asserted):

    PYTHONPATH=python SSLAT_LIBRARY=build/libsslat.so python3 bench/pareto_scale.py \
        [--shapes 256x256,256x256m,4096x16,...]  (m: each block sorted, every candidate on its front) [--repeats 3] [-o bench/results/pareto-scale-DATE.md]

Per shape: the wall time of sslat.pareto_front (whole front, then thinned) and
of budget_top k=1 and k=1000 at the middle of the latency range, the front's
size and stated slack, the front's first point against the fastest
architecture (the fast end must be kept), and whether the slack is wider than
the front's span; the k=1000 list's best against budget k=1's.
"""
import argparse
import datetime
import os
import platform
import random
import re
import statistics
import sys
import time

import sslat

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from cpu_trust import write_lines  # noqa: E402


def random_tables(blocks, candidates, seed, monotone):
    """monotone: each block's latencies and values both sorted, so every
    candidate is on its block's own front (as in a real supernet, where a wider
    or larger-kernel candidate is slower and more accurate): the hard case."""
    rng = random.Random(seed)
    lat = [[rng.random() for _ in range(candidates)] for _ in range(blocks)]
    val = [[rng.random() for _ in range(candidates)] for _ in range(blocks)]
    if monotone:
        lat, val = [sorted(b) for b in lat], [sorted(b) for b in val]
    return (sslat.SearchSpaceLatencyContainer("cpu", 0.0, lat),
            sslat.SearchSpaceLatencyContainer("mac", 0.0, val), lat)


def timed(function, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return result, times


def spread(times):
    return "%.2f s (min %.2f, max %.2f)" % (statistics.median(times), min(times), max(times))


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", default="256x256,256x256m,4096x16,4096x16m,1000x8m,1500x2")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=9)
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    load = os.getloadavg()
    lines = ["# Pareto front and budget --top on large random tables", "",
             "Machine: %s, %d CPUs online (the library is single-threaded here), load average %.2f at the start; "
             "sslat %s; %s UTC. Timed: sslat's own front and knapsack (no other runtime computes them); "
             "checked against the fastest architecture (sslat.min_latency) and budget k=1." % (
                 cpu_model(), os.cpu_count(), load[0], sslat.__version__,
                 datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M")), "",
             "| table | front (whole) | front points | slack / span | first point / fastest | "
             "budget k=1 | budget k=1000 | top-k best / k=1 value |", "|---|---|---|---|---|---|---|---|"]
    for shape in args.shapes.split(","):
        monotone = shape.endswith("m")
        blocks, candidates = (int(x) for x in shape.rstrip("m").split("x"))
        lat, val, raw = random_tables(blocks, candidates, args.seed, monotone)
        front, front_times = timed(lambda: sslat.pareto_front(lat, val), args.repeats)
        fastest = sslat.min_latency(lat)
        first, last = front.points[0].latency, front.points[-1].latency
        span = last - first
        limit = fastest + 0.5 * (sum(max(b) for b in raw) - fastest)
        one, one_times = timed(lambda: sslat.budget_top(lat, val, limit, k=1), args.repeats)
        k = 1000
        try:
            sslat.budget_top(lat, val, limit, k=k)
        except sslat.LimitError as refusal:  # too many answers for the grid: the largest k it names
            k = int(re.search(r"at most (\d+)", str(refusal)).group(1))
        many, many_times = timed(lambda: sslat.budget_top(lat, val, limit, k=k), args.repeats)
        lines.append("| %d x %d%s | %s | %d of %d | %.3g / %.3g%s | %.6g / %.6g | %s | %s | %.6g / %.6g |" % (
            blocks, candidates, " sorted" if monotone else "", spread(front_times), len(front.points), front.front_size, front.slack, span,
            " (wider: not meaningful)" if front.slack > span else "", first, fastest, spread(one_times),
            ("k=%d (1000 refused): " % k if k < 1000 else "") + spread(many_times), many[0].value, one[0].value))
        print(lines[-1], file=sys.stderr)
    lines += ["", "Load average at the end: %.2f." % os.getloadavg()[0]]
    write_lines(lines, args.output)


if __name__ == "__main__":
    main()
