"""Search over a whole space: the k best architectures under a latency budget,
and the Pareto front of latency against a second table (MACs, or any
per-candidate score of the same space)."""
import ctypes
from typing import List, NamedTuple

from . import _native
from ._native import lib
from .latency import Source, _two_tables


class ArchitecturePoint(NamedTuple):
    """One architecture: its candidate indices, totals and candidate labels."""
    arch: List[int]
    latency: float
    value: float
    labels: List[str]


class ParetoFront(NamedTuple):
    """Points fastest first; front_size counts the computed front (points may
    be fewer: pareto_front(points=N)); slack is 0.0 when the front is exact,
    else the latency bound of a front thinned on a grid (front_size then
    counts the thinned front)."""
    points: List[ArchitecturePoint]
    front_size: int
    slack: float

    @property
    def slack_exceeds_span(self) -> bool:
        """The slack is wider than the front's own span: its two ends (the
        fastest architecture, the best-valued) hold, its shape between does not."""
        return bool(self.points) and self.slack > self.points[-1].latency - self.points[0].latency


def _labels(table, arch):
    return [_native.text(lib.sslat_container_candidate_label(table, b, c)) or "candidate %d" % c
            for b, c in enumerate(arch)]


def budget_top(latency: Source, value: Source, budget: float, k: int = 10,
               bins: int = 0) -> List[ArchitecturePoint]:
    """The k architectures with the largest value totals whose latency is at most
    budget, best first (the knapsack of budget_maximize keeping k per cell;
    each answer's grid slack is budget_maximize's)."""
    k = _native.int32(k, "k", 1)
    with _two_tables(latency, value) as (table, values):
        n = lib.sslat_container_block_count(table)
        width = max(n, 1)
        rows = min(k, 1000)  # the C limit: a larger k is refused before anything is written
        archs = (ctypes.c_int32 * (width * rows))()
        results = (_native.BudgetResult * rows)()
        found = ctypes.c_int32()
        _native.call(lib.sslat_budget_top, table, values, float(budget), _native.int32(bins, "bins", 0), k,
                     archs, width, results, ctypes.byref(found))
        return [ArchitecturePoint(list(archs[r * width:r * width + n]), results[r].latency, results[r].value,
                                  _labels(table, archs[r * width:r * width + n]))
                for r in range(found.value)]


def pareto_front(latency: Source, value: Source, points: int = 0) -> ParetoFront:
    """The architectures no other beats on both latency (lower) and value's
    total (higher), fastest first. points=0: the whole front; N >= 2: at most N
    of its points, the best within each of N budgets spread evenly in latency."""
    front = ctypes.c_void_p()
    with _two_tables(latency, value) as (table, values):
        _native.call(lib.sslat_pareto_compute, table, values, _native.int32(points, "points", 0),
                     ctypes.byref(front))
        try:
            n = lib.sslat_container_block_count(table)
            arch = (ctypes.c_int32 * max(n, 1))()
            lat, val = ctypes.c_double(), ctypes.c_double()
            result = []
            for i in range(lib.sslat_pareto_size(front)):
                _native.call(lib.sslat_pareto_point, front, i, arch, max(n, 1), ctypes.byref(lat),
                             ctypes.byref(val))
                result.append(ArchitecturePoint(list(arch[:n]), lat.value, val.value, _labels(table, arch[:n])))
            return ParetoFront(result, lib.sslat_pareto_front_size(front), lib.sslat_pareto_slack(front))
        finally:
            lib.sslat_pareto_free(front)
