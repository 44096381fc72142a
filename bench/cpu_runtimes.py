#!/usr/bin/env python3
"""Which runtime a cpu table predicts, and how far off it is: the figures of
docs/calculators.md, measured in one run on this machine (ratios, never
asserted).

    python3 bench/cpu_runtimes.py [--sslat build/sslat] [--threads 1] [-k 20] [--runs 30]
                                  [--torch-python PY] [-o bench/results/cpu-DATE.md]

1. wall time of the default cpu table (the README's main command);
2. the default table's mean against the same table under ONEDNN_MAX_CPU_ISA=AVX2
   (the reference-kernel regression was 20x on avx512_core);
3. fused <= eager per candidate, for the MobileNetV2, ProxylessNAS and OFA spaces;
4. the MobileNetV2 space at batch 1: the table against whole networks timed by
   sslat itself, ONNX Runtime (CPU provider) and PyTorch eager (when
   --torch-python has torch), each twice to show the run-to-run spread.
The ONNX Runtime runner uses the project's environment (build/python-venv).
"""
import argparse
import csv
import datetime
import io
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_trust import write_lines  # noqa: E402 (the benches' one report writer)

SPACES = ["mobilenet_v2_space", "proxylessnas", "ofa_mobilenet_v3"]


def run(command, env=None, check=True):
    result = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, **(env or {})))
    if check and result.returncode != 0:
        sys.exit("failed: %s\n%s" % (" ".join(command), result.stderr))
    return result


def table(sslat, space, path, threads, extra=(), env=None):
    started = time.perf_counter()
    run([sslat, "measure", "-c", "cpu", space, "--threads", str(threads), "-o", path, *extra], env=env)
    return time.perf_counter() - started


def mean_of(sslat, path):
    return json.loads(run([sslat, "stats", path, "--json"]).stdout)["mean"]


def entries(sslat, path):
    text = run([sslat, "export", path, "--csv"]).stdout
    return {(row["block"], row["candidate"]): (row["label"], float(row["value"]))
            for row in csv.DictReader(io.StringIO(text))}


def metadata(sslat, path, key):
    return json.loads(run([sslat, "export", path, "--json"]).stdout)["metadata"].get(key, "")


def validate(sslat, space, path, reference, k, runs, python=None, extra=()):
    env = {"SSLAT_PYTHON": python} if python else None
    result = run([sslat, "validate", "-c", "cpu", space, path, "-k", str(k), "--runs", str(runs), "--reference",
                  reference, "--json", *extra], env=env, check=False)
    if result.returncode != 0:
        return None, result.stderr.strip().splitlines()[-1] if result.stderr.strip() else "exit %d" % result.returncode
    return json.loads(result.stdout), None


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sslat", default="build/sslat")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("-k", type=int, default=20)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--torch-python", help="a Python with torch (the project's environment has none)")
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    sslat, examples = args.sslat, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples")
    lines = []
    say = lines.append
    with tempfile.TemporaryDirectory(prefix="sslat-bench-") as work:
        default = os.path.join(work, "default.sslat")
        wall_default = table(sslat, os.path.join(examples, "mobilenet_v2_space.json"), default, 0)
        cpu = metadata(sslat, default, "host.cpu")
        isa = metadata(sslat, default, "host.isa")
        say("# cpu tables against independent runtimes (%s)" % datetime.date.today().isoformat())
        say("")
        say("Machine: %s, %d cores, oneDNN %s on %s; %s; commit %s." % (
            cpu, os.cpu_count(), metadata(sslat, default, "software.onednn"), isa, platform.platform(),
            run(["git", "rev-parse", "--short", "HEAD"], check=False).stdout.strip() or "?"))
        say("")
        say("## 1. Wall time of the default table")
        say("")
        say("`sslat measure -c cpu` on the built-in MobileNetV2 space, every core: **%.1f s** "
            "(the issue found 22.7 s when residual blocks ran on reference kernels)." % wall_default)
        say("")
        say("## 2. Default ISA against AVX2")
        avx2 = os.path.join(work, "avx2.sslat")
        one = os.path.join(work, "one.sslat")
        table(sslat, os.path.join(examples, "mobilenet_v2_space.json"), one, args.threads)
        table(sslat, os.path.join(examples, "mobilenet_v2_space.json"), avx2, args.threads,
              env={"ONEDNN_MAX_CPU_ISA": "AVX2"})
        say("")
        say("Mean of the table / mean under `ONEDNN_MAX_CPU_ISA=AVX2` (%d thread): **%.3f** "
            "(target <= 1.1; this CPU's best ISA is %s%s). Reference kernels (cpu.reference): %s; cpu.impl.units: %s." % (
                args.threads, mean_of(sslat, one) / mean_of(sslat, avx2), isa,
                ", so the two are the same kernels" if isa == "avx2" else "",
                metadata(sslat, one, "cpu.reference"), metadata(sslat, one, "cpu.impl.units")))
        say("")
        say("## 3. Fused <= eager per candidate")
        say("")
        say("%d thread, %d runs per unit." % (args.threads, args.runs))
        say("")
        say("| space | candidates | fused <= eager | fused <= 1.05 x eager | fused / eager (median) |")
        say("|---|---|---|---|---|")
        for name in SPACES:
            path = os.path.join(examples, name + ".json")
            fused, eager = os.path.join(work, name + ".fused"), os.path.join(work, name + ".eager")
            table(sslat, path, fused, args.threads, ("--runs", str(args.runs)))
            table(sslat, path, eager, args.threads, ("--mode", "eager", "--runs", str(args.runs)))
            a, b = entries(sslat, fused), entries(sslat, eager)
            pairs = [(a[key][1], b[key][1]) for key in a if a[key][1] > 0 and b[key][1] > 0]
            ratios = sorted(f / e for f, e in pairs)
            say("| %s | %d | %.0f%% | %.0f%% | %.3f |" % (
                name, len(pairs), 100 * sum(f <= e for f, e in pairs) / len(pairs),
                100 * sum(f <= 1.05 * e for f, e in pairs) / len(pairs), ratios[len(ratios) // 2]))
        say("")
        say("## 4. MobileNetV2 space, batch 1: the table against whole networks")
        say("")
        mb = os.path.join(examples, "mobilenet_v2_space.json")
        validated = os.path.join(work, "validated.sslat")
        table(sslat, mb, validated, args.threads, ("--runs", str(args.runs)))
        say("Table: %d thread, %d runs per unit; %d random architectures plus the argmin and argmax; "
            "each reference twice (a and b), %d runs each in the table's schedule." % (args.threads, args.runs, args.k, args.runs))
        say("")
        say("| measured by | run | MAPE | within ±10 % | bias (table vs it) | Kendall τ |")
        say("|---|---|---|---|---|---|")
        for reference, python, extra in (("sslat", None, ()), ("onnxruntime", None, ()),
                                         ("torch", args.torch_python, ()),
                                         ("torch", args.torch_python, ("--channels-last",))):
            for attempt in "ab":
                if reference == "torch" and not python:
                    say("| torch%s | - | not run: no --torch-python | | | |" % " ".join(("",) + extra))
                    break
                report, why = validate(sslat, mb, validated, reference, args.k, args.runs, python, extra)
                if not report:
                    say("| %s | %s | failed: %s | | | |" % (reference, attempt, why))
                    continue
                say("| %s | %s | %.1f %% | %.0f %% | %+.1f %% | %.3f |" % (
                    report["runtime"], attempt, 100 * report["mape"], 100 * report["within_10"],
                    100 * report["bias"], report["kendall_tau"]))
    write_lines(lines, args.output)


if __name__ == "__main__":
    main()
