#!/usr/bin/env python3
"""Figures of bench/gpu_check.sh from its files (standard library only).

    gpu_compare.py spread A.csv B.csv          two runs' entries >= 20 us: spread
    gpu_compare.py torch OURS.csv TORCH.csv [COLUMN]  per-op ratio ours / PyTorch (torch_ms, or
                                               torch_plain_ms of --compare-regimes), the extremes named
    gpu_compare.py validation V.json           MAPE, within 5 % / 10 %, tau

OURS / A / B are `sslat export --csv` files; each prints one line of key=value.
"""
import csv
import json
import statistics
import sys


def entries(path):
    with open(path) as file:
        return {(row["block_name"], row["label"]): float(row["value"]) for row in csv.DictReader(file)}


def spread(a_path, b_path, floor_ms=0.020):
    a, b = entries(a_path), entries(b_path)
    diffs = [abs(a[k] - b[k]) / ((a[k] + b[k]) / 2) for k in a if k in b and min(a[k], b[k]) >= floor_ms]
    if not diffs:
        return "entries=0"
    diffs.sort()
    within = sum(d <= 0.01 for d in diffs) / len(diffs)
    return "entries=%d median_spread=%.2f%% p90_spread=%.2f%% within_1%%=%.0f%%" % (
        len(diffs), 100 * statistics.median(diffs), 100 * diffs[int(0.9 * (len(diffs) - 1))], 100 * within)


def torch_ratio(ours_path, torch_path, column="torch_ms"):
    ours = entries(ours_path)
    with open(torch_path) as file:
        theirs = {(row["layer"], row["label"]): float(row[column]) for row in csv.DictReader(file)}
    both = [k for k in ours if k in theirs]
    # a candidate that launches nothing is 0 on both sides; one side 0 alone is a mismatch to look at
    zero_one_side = [k for k in both if (ours[k] > 0) != (theirs[k] > 0)]
    pairs = sorted((ours[k] / theirs[k], k) for k in both if theirs[k] > 0 and ours[k] > 0)
    if not pairs:
        return "ops=0"
    ratios = [r for r, _ in pairs]
    named = lambda chosen: ", ".join("%s:%s %.2f" % (k[0], k[1], r) for r, k in chosen)
    return ("ops=%d median_ratio=%.3f p10=%.3f p90=%.3f faster_share=%.0f%% zero_on_one_side=%d%s\n"
            "    lowest: %s\n    highest: %s") % (
        len(ratios), statistics.median(ratios), ratios[int(0.1 * (len(ratios) - 1))],
        ratios[int(0.9 * (len(ratios) - 1))], 100 * sum(r <= 1 for r in ratios) / len(ratios), len(zero_one_side),
        (" (" + ", ".join("%s:%s" % k for k in zero_one_side[:4]) + ")") if zero_one_side else "",
        named(pairs[:3]), named(pairs[-3:]))


def validation(path):
    with open(path) as file:
        v = json.load(file)
    text = "archs=%d mape=%.2f%% within_5%%=%.0f%% within_10%%=%.0f%% bias=%+.2f%% tau=%.3f" % (
        len(v["architectures"]), 100 * v["mape"], 100 * v["within_5"], 100 * v["within_10"], 100 * v["bias"],
        v["kendall_tau"])
    if "kendall_tau_interval" in v:  # validate's intervals and the MAC count beside it
        low, high = v["kendall_tau_interval"]["ci95"]
        mac = v["mac"]["kendall_tau"]["value"]
        text += " tau95=[%.3f,%.3f] rho=%.3f mac_tau=%s worse_than_macs=%s" % (
            low, high, v["spearman_rho"], "-" if mac is None else "%.3f" % mac, v["table_ranks_worse_than_macs"])
    if "compile_s" in v:
        text += " compile_s=%.1f" % v["compile_s"]["total"]
    return text


if __name__ == "__main__":
    verb, files = sys.argv[1], sys.argv[2:]
    print({"spread": spread, "torch": torch_ratio, "validation": validation}[verb](*files))
