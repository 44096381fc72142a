"""sslat: latency lookup tables for NAS search spaces (the C library through ctypes).

The names and signatures follow enot.latency (the reference API):

    import sslat
    space = sslat.SearchSpace("examples/ofa_mobilenet_v3.json")
    table = sslat.initialize_latency("mac", space)
    sslat.min_latency(space), sslat.median_latency(space, n=1000)
    table.save_to_file("ofa.sslat")          # or "ofa.pkl" for an ENOT pickle
"""
from ._native import library_path, lib as _lib
from .container import SearchSpaceLatencyContainer
from .errors import (DeviceError, InterruptedRunError, InvalidArgumentError, IoError, LimitError,
                     NoDeviceError, OutOfMemoryError, ParseError, SpaceError, SslatError,
                     UnsupportedError)
from .latency import (argmax_arch, argmin_arch, attach_latency, available_calculators,
                      best_arch_latency, budget_maximize, count_under_budget, current_latency,
                      initialize_latency, latency_cdf, latency_quantile, max_latency,
                      mean_latency, median_latency, min_latency, reset_latency,
                      sample_latencies, value_table)
from .report import plot, report
from .search import ArchitecturePoint, ParetoFront, budget_top, pareto_front
from .space import SearchSpace

__version__: str = _lib.sslat_version().decode()

__all__ = [
    "SearchSpace", "SearchSpaceLatencyContainer", "SslatError", "InvalidArgumentError", "IoError",
    "ParseError", "SpaceError", "LimitError", "OutOfMemoryError", "UnsupportedError",
    "NoDeviceError", "InterruptedRunError", "DeviceError", "available_calculators",
    "initialize_latency", "attach_latency", "reset_latency", "min_latency", "max_latency",
    "mean_latency", "median_latency", "sample_latencies", "current_latency",
    "best_arch_latency", "argmin_arch", "argmax_arch", "latency_quantile", "latency_cdf",
    "count_under_budget", "budget_maximize", "budget_top", "pareto_front", "ArchitecturePoint",
    "ParetoFront", "report", "plot", "library_path", "value_table",
]
