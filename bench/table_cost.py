#!/usr/bin/env python3
"""What a cpu table of one space costs next to another's, per MAC measured:
the same command (sslat measure -c cpu, extra options after --) on each
space, alternating, R rounds. A table is made of its distinct subgraphs (one
per hash), so its cost is read as wall seconds per GMAC of those subgraphs
(torchvision's rule: convolutions, linear layers and attention's products).

    [taskset -c C] python3 bench/table_cost.py [--spaces autoformer_tiny,proxylessnas] [--rounds 3]
                                               [-o FILE] [-- --threads 1]

The first space is compared with each of the others: the ratio of its seconds
per GMAC to theirs, median over the rounds with the rounds' spread.
"""
import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))


def distinct_gmacs(sslat_command, path):
    """GMACs of the distinct subgraphs a table of the space measures (constant layers and candidates, by hash)."""
    import sslat
    ir = json.loads(subprocess.run([sslat_command, "show", path, "--ir"], capture_output=True, text=True,
                                   check=True).stdout)
    table = sslat.initialize_latency("mac", sslat.SearchSpace(path))
    seen, total = set(), 0.0
    constant_hashes = [c["hash"] for layer in ir["layers"] if layer["block"] < 0 for c in layer["candidates"]]
    if len(set(constant_hashes)) == len(constant_hashes):  # each constant layer its own subgraph: the constant is theirs
        seen.update(constant_hashes)
        total += table.constant_latency
    else:
        raise SystemExit("%s: repeated constant layers; this bench counts them once each only when they differ" % path)
    for layer in ir["layers"]:
        if layer["block"] < 0:
            continue
        for index, candidate in enumerate(layer["candidates"]):
            if candidate["hash"] not in seen:
                seen.add(candidate["hash"])
                total += table.operations_latencies[layer["block"]][index]
    batch = ir["input"][0]
    return total * batch / 1e3, len(seen)  # per-sample MMACs → whole batch, in GMACs


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--sslat", default=os.path.join(ROOT, "build", "sslat"))
    parser.add_argument("--spaces", default="autoformer_tiny,proxylessnas")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("-o", "--output", default="-")
    parser.add_argument("extra", nargs="*")
    args = parser.parse_args()
    names = args.spaces.split(",")
    paths = [os.path.join(ROOT, "examples", name + ".json") for name in names]
    work = {name: distinct_gmacs(args.sslat, path) for name, path in zip(names, paths)}
    seconds = {name: [] for name in names}
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(args.rounds):
            for name, path in zip(names, paths):
                table = os.path.join(folder, name + ".sslat")
                if os.path.exists(table):
                    os.remove(table)
                started = time.perf_counter()
                subprocess.run([args.sslat, "measure", path, "-c", "cpu", "-o", table] + args.extra, check=True,
                               capture_output=True)
                seconds[name].append(time.perf_counter() - started)
        meta = json.loads(subprocess.run([args.sslat, "export", os.path.join(folder, names[0] + ".sslat"), "--json"],
                                         capture_output=True, text=True, check=True).stdout)["metadata"]
    cpus = ",".join(map(str, sorted(os.sched_getaffinity(0)))) if hasattr(os, "sched_getaffinity") else "?"
    lines = ["# What a cpu table costs per GMAC measured (%s)" % datetime.date.today().isoformat(), "",
             "    %s bench/table_cost.py --spaces %s --rounds %d -- %s" % (os.path.basename(sys.executable), args.spaces,
                                                                          args.rounds, " ".join(args.extra)), "",
             "Machine: %s, %s cores, ISA %s, %s thread(s), oneDNN %s; this run on CPUs %s, load average %.2f at "
             "the start, %.2f at the end. The command itself is what is timed (wall seconds, loading and writing "
             "included)." % (meta.get("host.cpu", "?"), meta.get("host.cores", "?"), meta.get("host.isa", "?"),
                             meta.get("host.threads", "?"), meta.get("software.onednn", "?"), cpus, load,
                             os.getloadavg()[0]), "",
             "| space | distinct subgraphs | their GMACs | seconds per round | median s | s per GMAC |",
             "|---|---|---|---|---|---|"]
    per_gmac = {}
    for name in names:
        gmacs, units = work[name]
        per_gmac[name] = [s / gmacs for s in seconds[name]]
        lines.append("| %s | %d | %.2f | %s | %.2f | %.3f |" % (name, units, gmacs,
                     ", ".join("%.2f" % s for s in seconds[name]), statistics.median(seconds[name]),
                     statistics.median(per_gmac[name])))
    lines += ["", "| ratio (s per GMAC) | median | rounds |", "|---|---|---|"]
    for other in names[1:]:
        ratios = [a / b for a, b in zip(per_gmac[names[0]], per_gmac[other])]
        lines.append("| %s / %s | %.2f | %s |" % (names[0], other, statistics.median(ratios),
                                                  ", ".join("%.2f" % r for r in ratios)))
    text = "\n".join(lines) + "\n"
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as out:
            out.write(text)


if __name__ == "__main__":
    main()
