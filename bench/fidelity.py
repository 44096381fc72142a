#!/usr/bin/env python3
"""Does a table predict the runtime a user deploys? For each space and each
reference runtime, measured in one run on this machine:

    [taskset -c C] python3 bench/fidelity.py -c cpu --references onnxruntime [--spaces mobilenet_v2_space,proxylessnas]
                              [--context 100] [-k 100] [--runs 10] [-o bench/results/fidelity-cpu-DATE.md]
                              [--json raw.json] [-- extra measure options, e.g. --threads 1 | --dtype fp16]

1. the isolated table (sslat measure, the calculator's own figures);
2. the table fitted to the reference (--context N --reference R);
3. both validated against the reference on K + 2 held-out architectures
   (validate -k K: argmin, argmax and K latency strata; the fitted table's
   validation leaves its N context architectures out), with the bootstrap 95 %
   intervals of Kendall's tau and Spearman's rho and the MAC count's tau on the
   same architectures;
4. the isolated table's validation run again right after: the reference
   against itself, the bound any table can reach against it on this machine.
On a machine whose cores differ in speed (a VM's vCPUs often do), pin the whole
run to one core (taskset -c C): a 1-thread table and its reference then run on
the same core, instead of on whichever core each process lands.
Each row is then read against the targets of docs/calculators.md ("Which
runtime a table predicts"): >= 95 % within ±10 %, >= 80 % within ±5 %,
tau >= 0.92 with its interval's lower end >= 0.88, and the table's tau above
the MAC count's. The raw `validate --json` of every row goes to --json.
"""
import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from cpu_trust import kendall_tau, write_lines  # noqa: E402 (the bench's one tau and writer)
EXAMPLES = os.path.join(ROOT, "examples")


def run(command):
    started = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    return result, time.perf_counter() - started


def metadata(sslat, path):
    result, _ = run([sslat, "export", path, "--json"])
    return json.loads(result.stdout)["metadata"] if result.returncode == 0 else {}


def machine(sslat, table, calculator):
    m = metadata(sslat, table)
    load = os.getloadavg()
    if calculator == "cuda":
        return "%s (%s), driver %s, cuDNN %s; host %s" % (m.get("device.name", "GPU ?"), m.get("device.sm", "sm ?"),
                                                         m.get("software.driver", "?"), m.get("software.cudnn", "?"),
                                                         platform.node() or "?")
    cpus = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    return "%s, %s cores, ISA %s, %s thread(s), oneDNN %s, this run on CPUs %s, load average %.2f at the start" % (
        m.get("host.cpu", "?"), m.get("host.cores", "?"), m.get("host.isa", "?"), m.get("host.threads", "?"),
        m.get("software.onednn", "?"), ",".join(map(str, cpus)) or "?", load[0])


def steal_and_total():
    """The machine's CPU ticks so far: (steal, all), from /proc/stat (zeros where it is not Linux)."""
    try:
        with open("/proc/stat") as stat:
            ticks = [int(v) for v in stat.readline().split()[1:]]
        return (ticks[7] if len(ticks) > 7 else 0), sum(ticks)
    except OSError:
        return 0, 0


def verdict(sslat, table):
    """The table's own quality verdict and the machine's speed change over its run (cpu tables)."""
    m = metadata(sslat, table)
    if "quality.verdict" not in m:
        return ""
    drift = m.get("host.calibration_ms", "")
    ratio = drift[drift.find("ratio ") + 6:].rstrip(")") if "ratio " in drift else "?"
    return "; quality %s, calibration end/start %s" % (m["quality.verdict"], ratio)


def interval(figure):
    value, (low, high) = figure["value"], figure["ci95"]
    if value is None:
        return "-"
    return "%.3f [%.3f, %.3f]" % (value, low, high)


def targets(report):
    """Which of the targets the row meets, in words."""
    missed = []
    if report["within_10"] < 0.95:
        missed.append("±10 %% %.0f %% < 95 %%" % (100 * report["within_10"]))
    if report["within_5"] < 0.80:
        missed.append("±5 %% %.0f %% < 80 %%" % (100 * report["within_5"]))
    tau, (low, _) = report["kendall_tau_interval"]["value"], report["kendall_tau_interval"]["ci95"]
    if tau < 0.92 or low < 0.88:
        missed.append("τ %.3f (lower %.3f) < 0.92 (0.88)" % (tau, low))
    against = report.get("table_against_macs", "unknown")
    if against != "better":
        missed.append("not above the MAC count (%s)" % against)
    return "all met" if not missed else "not met: " + "; ".join(missed)


def reference_against_itself(name, reference, first, second):
    """One row: the second run's measurements against the first's."""
    a = [row["measured_ms"] for row in first["architectures"]]
    b = [row["measured_ms"] for row in second["architectures"]]
    if len(a) != len(b) or not a:
        return "| %s | %s | the two runs differ in size | | | |" % (name, reference)
    ratios = sorted(y / x for x, y in zip(a, b))
    return "| %s | %s | %d | %.1f %% | %.3f | %.3f |" % (
        name, reference, len(a), 100 * sum(abs(y - x) / x for x, y in zip(a, b)) / len(a), ratios[len(ratios) // 2],
        kendall_tau(a, b))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sslat", default=os.path.join(ROOT, "build", "sslat"))
    parser.add_argument("-c", "--calculator", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--spaces", default="mobilenet_v2_space,proxylessnas")
    parser.add_argument("--references", default="onnxruntime")
    parser.add_argument("--context", type=int, default=100)
    parser.add_argument("-k", type=int, default=100)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--work", default=None, help="folder for the tables (default: a fresh temporary one)")
    parser.add_argument("-o", "--output", default="-")
    parser.add_argument("--json", default=None)
    parser.add_argument("extra", nargs="*", help="more options of measure and validate (after --)")
    args = parser.parse_args()
    sslat = args.sslat
    work = args.work or __import__("tempfile").mkdtemp(prefix="sslat-fidelity-")
    os.makedirs(work, exist_ok=True)
    lines, raw, again_rows = [], [], []
    steal_start, total_start = steal_and_total()

    def say(text=""):
        lines.append(text)
        sys.stderr.write(text + "\n")

    say("# Which runtime a %s table predicts (%s)" % (args.calculator, datetime.date.today().isoformat()))
    say()
    say("    python3 bench/fidelity.py -c %s --spaces %s --references %s --context %d -k %d --runs %d%s" % (
        args.calculator, args.spaces, args.references, args.context, args.k, args.runs,
        " -- " + " ".join(args.extra) if args.extra else ""))
    say()
    header_at = len(lines)
    say("Held out: validate -k %d runs the argmin, the argmax and one architecture in each of %d equal bands of "
        "the table's latency range (seed %d); the fitted table's validation leaves out the %d architectures it was "
        "fitted to. Intervals: bootstrap 95 %%, percentile method. MAC τ: the MAC count (torchvision's rule) on "
        "the same architectures against the same measurements." % (args.k, args.k, args.seed, args.context))
    say()
    say("| space | table | checked against (runtime, regime) | n | MAPE | ±5 % | ±10 % | bias | Kendall τ [95 %] "
        "| Spearman ρ [95 %] | MAC τ [95 %] | targets |")
    say("|---|---|---|---|---|---|---|---|---|---|---|---|")
    described = False
    for name in args.spaces.split(","):
        space = os.path.join(EXAMPLES, name + ".json")
        isolated = os.path.join(work, name + ".sslat")
        result, wall = run([sslat, "measure", "-c", args.calculator, space, "-o", isolated, *args.extra])
        if result.returncode not in (0, 6):
            say("| %s | isolated | measure failed: %s | | | | | | | | | |" % (name, result.stderr.strip()[-200:]))
            continue
        if not described:
            lines.insert(header_at, "Machine: %s." % machine(sslat, isolated, args.calculator))
            lines.insert(header_at + 1, "")
            described = True
        first_runs = {}
        for reference in args.references.split(","):
            fitted = os.path.join(work, "%s.%s.sslat" % (name, reference))
            result, fit_wall = run([sslat, "measure", "-c", args.calculator, space, "--context", str(args.context),
                                    "--reference", reference, "-o", fitted, *args.extra])
            tables = [("isolated (%.0f s%s)" % (wall, verdict(sslat, isolated)), isolated)]
            if result.returncode in (0, 6):
                tables.append(("fitted to %s, %d archs (%.0f s%s)" % (reference, args.context, fit_wall,
                                                                       verdict(sslat, fitted)), fitted))
            else:
                say("| %s | fitted to %s | measure --context failed: %s | | | | | | | | | |" % (
                    name, reference, result.stderr.strip().splitlines()[-1][:200] if result.stderr.strip() else "?"))
            for label, table in tables + [("isolated, again", isolated)]:
                result, _ = run([sslat, "validate", "-c", args.calculator, space, table, "-k", str(args.k), "--runs",
                                 str(args.runs), "--seed", str(args.seed), "--reference", reference, "--json"])
                if result.returncode != 0:
                    say("| %s | %s | %s: validate failed (exit %d): %s | | | | | | | | | |" % (
                        name, label, reference, result.returncode,
                        result.stderr.strip().splitlines()[-1][:200] if result.stderr.strip() else "?"))
                    continue
                report = json.loads(result.stdout)
                raw.append({"space": name, "table": label, "reference": reference, "validate": report})
                if label == "isolated, again" and reference in first_runs:
                    again_rows.append(reference_against_itself(name, reference, first_runs[reference], report))
                    continue
                if table == isolated:
                    first_runs[reference] = report
                say("| %s | %s | %s | %d | %.1f %% | %.0f %% | %.0f %% | %+.1f %% | %s | %s | %s | %s |" % (
                    name, label, report["runtime"].replace("|", "/"), len(report["architectures"]),
                    100 * report["mape"], 100 * report["within_5"], 100 * report["within_10"], 100 * report["bias"],
                    interval(report["kendall_tau_interval"]), interval(report["spearman_rho_interval"]),
                    interval(report["mac"]["kendall_tau"]), targets(report)))
    say()
    say("The reference against itself: the isolated table's validation run again right after, the same "
        "architectures; its second measurements taken as the prediction of its first. What any table can reach "
        "against this reference on this machine is bounded by these figures.")
    say()
    say("| space | reference | n | MAPE | level (median second / first) | Kendall τ |")
    say("|---|---|---|---|---|---|")
    for row in again_rows:
        say(row)
    say()
    steal, total = steal_and_total()
    say("Load average at the end: %.2f (1 min); CPU steal over the run: %.1f %% of all CPU time." % (
        os.getloadavg()[0], 100.0 * (steal - steal_start) / max(1, total - total_start)))
    write_lines(lines, args.output)
    if args.json:
        with open(args.json, "w") as out:
            json.dump(raw, out, indent=1)


if __name__ == "__main__":
    main()
