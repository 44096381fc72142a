"""Pareto front and the k best under a budget: Python, the CLI and enumeration agree."""
import csv
import io
import itertools
import json
import random
import subprocess

import pytest

import sslat
from conftest import EXAMPLES

PROXYLESS = EXAMPLES / "proxylessnas.json"


def random_tables(seed, blocks=5, integers=False):
    rng = random.Random(seed)
    draw = (lambda: float(rng.randint(0, 6))) if integers else (lambda: rng.uniform(0.01, 5.0))
    counts = [rng.randint(1, 4) for _ in range(blocks)]
    lat = sslat.SearchSpaceLatencyContainer("cpu", 0.5, [[draw() for _ in range(n)] for n in counts])
    val = sslat.SearchSpaceLatencyContainer("mac", 2.0, [[draw() for _ in range(n)] for n in counts])
    return lat, val


def totals(table, arch):
    total = table.constant_latency  # summed as sslat sums: constant first, block by block
    for block, candidate in zip(table.operations_latencies, arch):
        total += block[candidate]
    return total


def enumerated_front(lat, val):
    points = sorted(((totals(lat, a), totals(val, a)) for a in
                     itertools.product(*[range(n) for n in lat.candidate_counts])),
                    key=lambda p: (p[0], -p[1]))
    front = []
    for point in points:
        if not front or point[1] > front[-1][1]:
            front.append(point)
    return front


@pytest.mark.parametrize("seed", range(12))
def test_the_front_is_the_enumerated_one(seed):
    lat, val = random_tables(seed, integers=seed % 2 == 0)
    front = sslat.pareto_front(lat, val)
    expected = enumerated_front(lat, val)
    assert front.slack == 0.0 and front.front_size == len(expected)
    assert [(p.latency, p.value) for p in front.points] == expected
    for point in front.points:
        assert totals(lat, point.arch) == point.latency and totals(val, point.arch) == point.value
        assert point.labels == ["candidate %d" % c for c in point.arch]  # an unlabelled table


def test_the_k_best_under_a_budget_are_the_enumerated_ones():
    lat, val = random_tables(5, blocks=4, integers=True)
    archs = list(itertools.product(*[range(n) for n in lat.candidate_counts]))
    fastest = min(totals(lat, a) for a in archs)
    budget = fastest + 6
    fitting = sorted((totals(val, a) for a in archs if totals(lat, a) <= budget), reverse=True)
    # a grid step of exactly 1 on integer latencies: exact
    top = sslat.budget_top(lat, val, budget, k=5, bins=6)
    assert [p.value for p in top] == pytest.approx(fitting[:5])
    assert len({tuple(p.arch) for p in top}) == len(top)
    assert all(p.latency <= budget for p in top)
    assert top[0].value == sslat.budget_maximize(lat, val, budget, bins=6)[2]


def test_bad_arguments_are_refused_by_name():
    lat, val = random_tables(1)
    with pytest.raises(sslat.InvalidArgumentError, match="at least 2"):
        sslat.pareto_front(lat, val, points=1)
    with pytest.raises(sslat.InvalidArgumentError, match="1 to 1000"):
        sslat.budget_top(lat, val, 100.0, k=1001)
    other, _ = random_tables(2, blocks=3)
    with pytest.raises(sslat.SpaceError, match="blocks"):
        sslat.pareto_front(lat, other)


def run(command, *args, expect=0):
    result = subprocess.run([command, *map(str, args)], capture_output=True, text=True)
    assert result.returncode == expect, result.stderr
    return result


def test_cli_front_and_top_agree_with_python_as_text_json_and_csv(tmp_path, sslat_command):
    mac, thop = tmp_path / "mac.sslat", tmp_path / "thop.sslat"
    # two analytic tables of one space stand in for latency and value: no timing needed
    run(sslat_command, "measure", "-c", "mac", PROXYLESS, "-o", mac)
    run(sslat_command, "measure", "-c", "mac_fvcore", PROXYLESS, "-o", thop)
    lat = sslat.SearchSpaceLatencyContainer.load_from_file(mac)
    val = sslat.SearchSpaceLatencyContainer.load_from_file(thop)
    front = sslat.pareto_front(lat, val, points=7)
    data = json.loads(run(sslat_command, "pareto", mac, thop, "--points", "7", "--json").stdout)
    assert data["front_size"] == front.front_size and data["exact"] is True
    assert [p["arch"] for p in data["points"]] == [p.arch for p in front.points]
    assert [p["labels"] for p in data["points"]] == [p.labels for p in front.points]
    assert data["latency_meaning"] == "MMAC for the whole batch of 1"  # a MAC table as "latency"
    rows = list(csv.DictReader(io.StringIO(run(sslat_command, "pareto", mac, thop, "--points", "7",
                                               "--csv").stdout)))
    assert [float(r["latency_MMAC"]) for r in rows] == [p.latency for p in front.points]
    assert [r["labels"].split(";") for r in rows] == [p.labels for p in front.points]
    text = run(sslat_command, "pareto", mac, thop, "--points", "7").stdout
    assert "exact: %d points on the front" % front.front_size in text
    assert front.points[-1].labels[0] in text  # labels printed, not only indices

    limit = (front.points[0].latency + front.points[-1].latency) / 2
    top = sslat.budget_top(lat, val, limit, k=4)
    data = json.loads(run(sslat_command, "budget", mac, "--limit", limit, "--maximize", thop, "--top", "4",
                          "--json").stdout)
    assert [p["arch"] for p in data["top"]] == [p.arch for p in top]
    assert data["best"]["arch"] == top[0].arch
    rows = list(csv.DictReader(io.StringIO(run(sslat_command, "budget", mac, "--limit", limit, "--maximize",
                                               thop, "--top", "4", "--csv").stdout)))
    assert [r["arch"] for r in rows] == [";".join(map(str, p.arch)) for p in top]
    assert "note:" not in run(sslat_command, "budget", mac, "--limit", limit, "--maximize", thop, "--top", "4").stdout
    # a thousand per grid cell do not fit the knapsack's memory at 32768 steps: said
    assert "the grid has fewer than its 32768 steps" in run(sslat_command, "budget", mac, "--limit", limit,
                                                             "--maximize", thop, "--top", "1000").stdout
    result = run(sslat_command, "budget", mac, "--limit", limit, "--top", "4", expect=2)
    assert "--maximize" in result.stderr
    result = run(sslat_command, "pareto", mac, EXAMPLES / "ofa_mobilenet_v3.json", expect=2)
    assert "ofa_mobilenet_v3.json" in result.stderr
