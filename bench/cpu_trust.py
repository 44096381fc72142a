#!/usr/bin/env python3
"""Can a user trust a cpu table? The figures of docs/calculators.md
("Which latency a cpu table predicts"), measured side by side in one run on
this machine (ratios and figures, never asserted):

    build/python-venv/bin/python bench/cpu_trust.py [--sslat build/sslat] [-o bench/results/cpu-trust-DATE.md]
                                                  [--spaces mobilenet_v2_space,proxylessnas,...] [--context 100]

1. wall time of the default table of the MobileNetV2 example (1 thread) against
   the same command under ONEDNN_MAX_CPU_ISA=AVX2 and against a PyTorch loop
   over the same candidates (every candidate of every layer, eager, 10 warmup +
   10 runs, median: the 20-line loop a NAS user writes), and the reference-
   kernel executions in ONEDNN_VERBOSE's output of the default run;
2. interference: the default command (every core) and --threads 1, quiet and
   with one busy loop of this script's own on the machine (bounded, killed by
   pid): the quality verdict and the table's mean against the quiet one;
3. which latency: for each space, the hot (default) and cold tables against ONNX
   Runtime back to back and interleaved, and the table fitted to ONNX Runtime
   (--context N --reference onnxruntime) on held-out architectures.
The Python running it needs torch for (1)'s loop (the project's environment
build/python-venv has it after scripts/test.sh); ONNX Runtime is found by sslat.
"""
import argparse
import datetime
import importlib.util
import json
import os
import platform
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
EXAMPLES = os.path.join(ROOT, "examples")


def run(command, env=None, check=True):
    result = subprocess.run(command, capture_output=True, text=True, env=dict(os.environ, **(env or {})))
    if check and result.returncode not in (0, 6):  # 6: --strict on a disturbed table, written all the same
        sys.exit("failed: %s\n%s" % (" ".join(command), result.stderr))
    return result


def timed(command, env=None):
    started = time.perf_counter()
    result = run(command, env)
    return time.perf_counter() - started, result


def metadata(sslat, path):
    return json.loads(run([sslat, "export", path, "--json"]).stdout)["metadata"]


def mean_of(sslat, path):
    return json.loads(run([sslat, "stats", path, "--json"]).stdout)["mean"]


def validate(sslat, space, table, reference, k, runs, seed, extra=()):
    result = run([sslat, "validate", "-c", "cpu", space, table, "-k", str(k), "--runs", str(runs), "--seed",
                  str(seed), "--reference", reference, "--json", *extra], check=False)
    if result.returncode != 0:
        return None
    return json.loads(result.stdout)


def write_lines(lines, output):
    """The report: to stdout for "-", else into the file output."""
    text = "\n".join(lines) + "\n"
    if output == "-":
        sys.stdout.write(text)
    else:
        with open(output, "w") as out:
            out.write(text)


def kendall_tau(x, y):
    """tau-a over pairs (no ties in timings)."""
    agree = disagree = 0
    for i in range(len(x)):
        for j in range(i + 1, len(x)):
            s = (x[i] - x[j]) * (y[i] - y[j])
            agree += s > 0
            disagree += s < 0
    pairs = len(x) * (len(x) - 1) / 2
    return (agree - disagree) / pairs if pairs else float("nan")


def torch_loop(space_path, sslat):
    """Every candidate of every layer as a torch module (the IR the reference
    runner builds from), timed back to back: 10 warmup, 10 runs, median."""
    try:
        import torch
    except ImportError:
        return None, "torch is not installed for %s" % sys.executable
    # the one IR -> PyTorch interpreter, by path (the sslat package would load libsslat)
    spec = importlib.util.spec_from_file_location("sslat_ir_torch", os.path.join(ROOT, "python", "sslat", "_ir_torch.py"))
    ir_torch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(ir_torch)
    Architecture = ir_torch.interpreter(torch)
    torch.set_num_threads(1)
    ir = json.loads(run([sslat, "show", space_path, "--ir"]).stdout)
    started = time.perf_counter()
    modules = 0
    with torch.inference_mode():
        for layer in ir["layers"]:
            for candidate in layer["candidates"]:
                if not candidate["nodes"]:
                    continue
                module = Architecture(candidate).eval()
                x = torch.rand(*candidate["input"])
                for _ in range(10):
                    module(x)
                samples = []
                for _ in range(10):
                    t0 = time.perf_counter()
                    module(x)
                    samples.append(time.perf_counter() - t0)
                statistics.median(samples)
                modules += 1
    return time.perf_counter() - started, "%d modules" % modules


def busy_loop():
    """One bounded busy process (60 s at most); the caller kills it by pid."""
    return subprocess.Popen([sys.executable, "-c", "import signal, time\nsignal.alarm(60)\nwhile True: pass"])


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sslat", default=os.path.join(ROOT, "build", "sslat"))
    parser.add_argument("--spaces", default="mobilenet_v2_space,proxylessnas,ofa_mobilenet_v3,fbnet")
    parser.add_argument("--context", type=int, default=100)
    parser.add_argument("-k", type=int, default=30)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("-o", "--output", default="-")
    args = parser.parse_args()
    sslat = args.sslat
    lines = []
    say = lines.append
    mb = os.path.join(EXAMPLES, "mobilenet_v2_space.json")
    with tempfile.TemporaryDirectory(prefix="sslat-trust-") as work:
        path = lambda name: os.path.join(work, name)  # noqa: E731
        # 1. wall time
        wall_default, _ = timed([sslat, "measure", "-c", "cpu", mb, "--threads", "1", "-o", path("d.sslat")])
        wall_avx2, _ = timed([sslat, "measure", "-c", "cpu", mb, "--threads", "1", "-o", path("a.sslat")],
                             env={"ONEDNN_MAX_CPU_ISA": "AVX2"})
        verbose = run([sslat, "measure", "-c", "cpu", mb, "--threads", "1", "-o", path("v.sslat")],
                      env={"ONEDNN_VERBOSE": "1"}).stdout
        executions = [line for line in verbose.splitlines() if line.startswith("onednn_verbose,exec,cpu")]
        reference = [line for line in executions if re.search(r",ref[_:a-z]*:", line)]
        meta = metadata(sslat, path("d.sslat"))
        load = open("/proc/loadavg").read().split()[:3]
        say("# Can a user trust a cpu table? (%s)" % datetime.date.today().isoformat())
        say("")
        say("Machine: %s, %d cores, oneDNN %s on **%s**; %s; load average %s at the start; commit %s. "
            "Every figure below is from this one run of `bench/cpu_trust.py`." % (
                meta["host.cpu"], os.cpu_count(), meta["software.onednn"], meta["host.isa"], platform.platform(),
                " ".join(load), run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], check=False).stdout.strip()))
        say("")
        say("## 1. Wall time of the default table (MobileNetV2 example, 1 thread, cache hot)")
        say("")
        say("| run | wall time | ratio to the AVX2-limited run |")
        say("|---|---|---|")
        say("| `sslat measure -c cpu` (%s) | %.2f s | %.2f |" % (meta["host.isa"], wall_default, wall_default / wall_avx2))
        say("| same, `ONEDNN_MAX_CPU_ISA=AVX2` | %.2f s | 1.00 |" % wall_avx2)
        loop_row = len(lines)  # filled in at the end: torch's threads would be "other processes" below
        say("")
        say("oneDNN executions in the default run (`ONEDNN_VERBOSE=1`): %d, of which on a reference kernel: **%d**; "
            "`cpu.reference_runs` = %s; %s." % (len(executions), len(reference), meta.get("cpu.reference_runs", "?"),
                                                 meta.get("cpu.impl.units", "")))
        say("")
        # 2. interference
        say("## 2. A busy machine (MobileNetV2 example; the busy loop is one process spinning)")
        say("")
        say("| threads | machine | wall | verdict | mean of the table | vs quiet |")
        say("|---|---|---|---|---|---|")
        quiet = {}
        for busy in (False, True):
            for threads in ("0", "1"):
                spinner = busy_loop() if busy else None
                try:
                    if spinner:
                        time.sleep(0.5)
                    out = path("i%s%s.sslat" % (threads, busy))
                    wall, _ = timed([sslat, "measure", "-c", "cpu", mb, "--threads", threads, "-o", out])
                finally:
                    if spinner:
                        spinner.send_signal(signal.SIGKILL)
                        spinner.wait()
                m = metadata(sslat, out)
                mean = mean_of(sslat, out)
                if not busy:
                    quiet[threads] = mean
                say("| %s | %s | %.1f s | %s | %.3f ms | %+.1f %% |" % (
                    "every core (%s)" % m["host.threads"] if threads == "0" else threads,
                    "one busy loop" if busy else "quiet", wall, m["quality.verdict"] + (
                        ": " + m["quality.cause"] if m["quality.verdict"] != "ok" else ""), mean,
                    100 * (mean / quiet[threads] - 1)))
        say("")
        # 3. which latency
        say("## 3. Which latency: tables against ONNX Runtime (1 thread)")
        say("")
        say("Held-out architectures: validate's argmin, argmax and %d random ones (seed 11; the context runs are "
            "drawn from another stream), %d runs each. `back to back` = each model warmed up and run %d times in "
            "a row (what a benchmark loop measures); `interleaved` = rounds of one run per model." % (
                args.k, args.runs, args.runs))
        say("")
        say("| space | table | checked against | MAPE | within ±10 % | bias | Kendall τ |")
        say("|---|---|---|---|---|---|---|")
        for name in args.spaces.split(","):
            space = os.path.join(EXAMPLES, name + ".json")
            hot, cold, fitted = path(name + ".hot"), path(name + ".cold"), path(name + ".fit")
            run([sslat, "measure", "-c", "cpu", space, "--threads", "1", "-o", hot])
            run([sslat, "measure", "-c", "cpu", space, "--threads", "1", "--cache", "cold", "-o", cold])
            fit_wall, _ = timed([sslat, "measure", "-c", "cpu", space, "--threads", "1", "--context",
                                 str(args.context), "--reference", "onnxruntime", "-o", fitted])
            rows = (("hot (default)", hot, ()), ("cold", cold, ()),
                    ("hot, fitted to ORT (%d archs, %.0f s)" % (args.context, fit_wall), fitted, ()))
            first = None
            for label, table, extra in rows:
                report = validate(sslat, space, table, "onnxruntime", args.k, args.runs, 11, extra)
                if not report:
                    say("| %s | %s | failed | | | | |" % (name, label))
                    continue
                say("| %s | %s | ORT, %s | %.1f %% | %.0f %% | %+.1f %% | %.3f |" % (
                    name, label, report["schedule"].replace("_", " "), 100 * report["mape"],
                    100 * report["within_10"], 100 * report["bias"], report["kendall_tau"]))
                if table == hot:
                    first = [row["measured_ms"] for row in report["architectures"]]
            # the ceiling: ONNX Runtime against itself, the same architectures measured again
            again = validate(sslat, space, hot, "onnxruntime", args.k, args.runs, 11)
            if first and again:
                second = [row["measured_ms"] for row in again["architectures"]]
                say("| %s | ORT's first run (as a predictor) | ORT, back to back, again | %.1f %% | | | %.3f |" % (
                    name, 100 * statistics.mean(abs(a - b) / b for a, b in zip(first, second)),
                    kendall_tau(first, second)))
        wall_loop, loop_note = torch_loop(mb, sslat)
        if wall_loop is not None:
            lines.insert(loop_row, "| PyTorch eager loop over the same candidates (%s, 10 + 10 runs, import excluded) "
                                   "| %.2f s | %.2f |" % (loop_note, wall_loop, wall_loop / wall_avx2))
        else:
            lines.insert(loop_row, "| PyTorch loop | not run: %s | |" % loop_note)
    write_lines(lines, args.output)


if __name__ == "__main__":
    main()
