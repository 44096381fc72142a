"""The reference (enot.latency) functions, and the statistics beyond them.

Every statistic takes `arg`: a SearchSpace with a latency attached
(initialize_latency) or a SearchSpaceLatencyContainer.
"""
import ctypes
import random
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _native
from ._native import lib
from .container import SearchSpaceLatencyContainer
from .space import SearchSpace

# What a statistic reads: a space with a latency attached, or a container.
Source = Union[SearchSpace, SearchSpaceLatencyContainer]

# kwargs of initialize_latency that map one to one onto sslat_latency_options
_INT_OPTIONS = ("warmup_iterations", "run_iterations", "threads")
_FLOAT_OPTIONS = ("target_noise", "max_seconds")
_TEXT_OPTIONS = ("dtype", "layout")


def available_calculators() -> List[str]:
    """The latency types that can run in this build on this machine, best last."""
    names = ctypes.POINTER(ctypes.c_char_p)()
    count = lib.sslat_available_calculators(ctypes.byref(names))
    return [_native.text(names[i]) for i in range(count)]


def _shape_of(inputs):
    """A shape tuple from a tuple / list or anything with .shape (a tensor, an array)."""
    shape = getattr(inputs, "shape", inputs)
    try:
        shape = tuple(int(d) for d in shape)
    except TypeError:
        raise TypeError("inputs must be a shape (N, C, H, W) or have .shape, not %s"
                        % type(inputs).__name__) from None
    if len(shape) != 4 or min(shape) < 1:
        raise ValueError("inputs must be a positive 4-d shape (N, C, H, W), got %s" % (shape,))
    return shape


def _ignore_text(value):
    if value is None or isinstance(value, str):
        return value
    return ",".join(str(getattr(v, "__name__", v)).lower() for v in value)


def _latency_options(kwargs):
    options = _native.LatencyOptions()
    keep = []  # the encoded strings must outlive the call
    kwargs = dict(kwargs)
    for name in _INT_OPTIONS:
        if name in kwargs:
            setattr(options, name, int(kwargs.pop(name)))
    for name in _FLOAT_OPTIONS:
        if name in kwargs:
            setattr(options, name, float(kwargs.pop(name)))
    for name in _TEXT_OPTIONS:
        if name in kwargs:
            keep.append(_native.encode(kwargs.pop(name)))
            setattr(options, name, keep[-1])
    if "seed" in kwargs:
        options.seed = int(kwargs.pop("seed"))
    mode = kwargs.pop("mode", None)
    eager = kwargs.pop("eager", None)
    if mode not in (None, "fused", "eager"):
        raise ValueError("mode is 'fused' or 'eager', not %r" % (mode,))
    options.eager = 1 if (eager or mode == "eager") else 0
    options.cold = 1 if kwargs.pop("cold", False) else 0
    if "device" in kwargs:
        device = kwargs.pop("device")
        keep.append(_native.encode(device if isinstance(device, (str, int)) else str(device)))
        options.device = keep[-1]
    for name in ("ignore", "ignore_modules"):
        if name in kwargs:
            ignore = _ignore_text(kwargs.pop(name))
            if ignore:
                keep.append(_native.encode(ignore))
                options.ignore = keep[-1]
    if kwargs.pop("get_base_samples", False):
        raise ValueError("get_base_samples: sslat keeps each entry's statistics (container.entry()), "
                         "not its raw samples")
    if kwargs:
        raise TypeError("initialize_latency got unexpected keyword arguments: %s"
                        % ", ".join(sorted(kwargs)))
    return options, keep


def initialize_latency(latency_type: str, search_space: SearchSpace, inputs: Any = None,
                       keyword_inputs: Optional[Dict[str, Any]] = None,
                       **kwargs: Any) -> SearchSpaceLatencyContainer:
    """Compute a latency table of latency_type for search_space, attach it to the
    space and return a copy. inputs (a shape or a tensor) overrides the space's
    input batch and resolution (the channel count must match). kwargs:
    warmup_iterations, run_iterations, threads, mode ('fused'/'eager') or eager,
    target_noise, max_seconds, seed, dtype, layout, device, cold, ignore / ignore_modules."""
    if not isinstance(search_space, SearchSpace):
        search_space = SearchSpace(search_space)
    if keyword_inputs:
        raise ValueError("keyword_inputs: an sslat space has a single input; pass its shape as inputs")
    if inputs is not None:
        n, c, h, w = _shape_of(inputs)
        current = search_space.input_shape
        if c != current[1]:
            raise ValueError("inputs have %d channels, the space's input has %d" % (c, current[1]))
        if (n, h, w) != (current[0], current[2], current[3]):
            search_space._reshape(n, h, w)
    options, keep = _latency_options(kwargs)
    pointer = ctypes.c_void_p()
    _native.call(lib.sslat_initialize_latency, _native.encode(latency_type), search_space._handle,
                 None, ctypes.byref(options), ctypes.byref(pointer))
    del keep
    return SearchSpaceLatencyContainer._copy_of(pointer)


def attach_latency(search_space: SearchSpace, container: SearchSpaceLatencyContainer) -> None:
    """Attach a copy of a container (its space hash must match the space)."""
    _native.call(lib.sslat_attach_latency, search_space._handle, container._handle)


def reset_latency(search_space: SearchSpace) -> None:
    """Drop the latency attached to search_space."""
    lib.sslat_reset_latency(search_space._handle)


def _table(arg):
    """The container pointer behind arg."""
    if isinstance(arg, SearchSpaceLatencyContainer):
        return arg._handle
    if isinstance(arg, SearchSpace):
        pointer = lib.sslat_space_latency(arg._handle)
        if not pointer:
            raise ValueError("search space '%s' has no latency attached: call initialize_latency "
                             "or attach_latency first" % arg.name)
        return pointer
    raise TypeError("expected a SearchSpace or a SearchSpaceLatencyContainer, not %s"
                    % type(arg).__name__)


def _scalar(function, arg, *args):
    result = ctypes.c_double()
    _native.call(function, _table(arg), *args, ctypes.byref(result))
    return result.value


def _seed(seed):
    return random.getrandbits(64) if seed is None else int(seed) & (2**64 - 1)


def min_latency(arg: Source) -> float:
    """constant + Σ per-block minimum."""
    return _scalar(lib.sslat_min_latency, arg)


def max_latency(arg: Source) -> float:
    return _scalar(lib.sslat_max_latency, arg)


def mean_latency(arg: Source) -> float:
    """constant + Σ per-block mean: the mean over all architectures."""
    return _scalar(lib.sslat_mean_latency, arg)


def sample_latencies(arg: Source, n: int = 100, seed: Optional[int] = None) -> List[float]:
    """Latencies of n uniformly random architectures (seed makes them reproducible)."""
    if n < 0:
        raise ValueError("n must be >= 0")
    values = (ctypes.c_double * max(n, 1))()
    if n:
        _native.call(lib.sslat_sample_latencies, _table(arg), n, _seed(seed), values)
    return list(values[:n])


def median_latency(arg: Source, n: int = 100, seed: Optional[int] = None) -> float:
    """Median of sample_latencies(arg, n, seed)."""
    if n < 1:
        raise ValueError("n must be >= 1")
    return _scalar(lib.sslat_median_latency, arg, n, _seed(seed))


def _arch_array(arch):
    values = [int(i) for i in arch]
    return (ctypes.c_int32 * max(len(values), 1))(*values), len(values)


def current_latency(arg: Source, arch: Optional[Sequence[int]] = None) -> float:
    """Latency of one architecture: arch, or the space's current_arch."""
    if arch is None:
        arch = getattr(arg, "current_arch", None)
        if arch is None:
            raise ValueError("current_latency needs an arch (a list of candidate indices) "
                             "when the argument has no current_arch")
    values, length = _arch_array(arch)
    return _scalar(lib.sslat_current_latency, arg, values, length)


def best_arch_latency(search_space: SearchSpace) -> float:
    """Latency of the space's "arch" (the file's chosen architecture)."""
    if not isinstance(search_space, SearchSpace):
        raise TypeError("best_arch_latency takes a SearchSpace")
    return _scalar(lib.sslat_best_arch_latency, search_space, search_space._handle)


def _arch_of(function, arg):
    table = _table(arg)
    n = lib.sslat_container_block_count(table)
    values = (ctypes.c_int32 * max(n, 1))()
    _native.call(function, table, values, n)
    return list(values[:n])


def argmin_arch(arg: Source) -> List[int]:
    """The fastest architecture."""
    return _arch_of(lib.sslat_argmin_arch, arg)


def argmax_arch(arg: Source) -> List[int]:
    return _arch_of(lib.sslat_argmax_arch, arg)


def latency_quantile(arg: Source, p: float, bins: int = 0) -> Tuple[float, float]:
    """(estimate, bound): the exact p-quantile of a uniformly random architecture's
    latency lies within estimate ± bound."""
    estimate, bound = ctypes.c_double(), ctypes.c_double()
    options = _native.DistributionOptions(bins)
    _native.call(lib.sslat_latency_quantile, _table(arg), float(p), ctypes.byref(options),
                 ctypes.byref(estimate), ctypes.byref(bound))
    return estimate.value, bound.value


def _bracket(function, arg, budget, bins):
    low, high = ctypes.c_double(), ctypes.c_double()
    options = _native.DistributionOptions(bins)
    _native.call(function, _table(arg), float(budget), ctypes.byref(options), ctypes.byref(low),
                 ctypes.byref(high))
    return low.value, high.value


def latency_cdf(arg: Source, budget: float, bins: int = 0) -> Tuple[float, float]:
    """(low, high) bracketing P(latency <= budget)."""
    return _bracket(lib.sslat_latency_cdf, arg, budget, bins)


def count_under_budget(arg: Source, budget: float, bins: int = 0) -> Tuple[float, float]:
    """(low, high) bracketing the number of architectures with latency <= budget."""
    return _bracket(lib.sslat_count_under_budget, arg, budget, bins)


def budget_maximize(latency: Source, value: Source, budget: float,
                    bins: int = 0) -> Tuple[List[int], float, float, float]:
    """The architecture maximising value's total with latency <= budget:
    returns (arch, latency, value, grid_slack)."""
    table = _table(latency)
    n = lib.sslat_container_block_count(table)
    arch = (ctypes.c_int32 * max(n, 1))()
    result = _native.BudgetResult()
    _native.call(lib.sslat_budget_maximize, table, _table(value), float(budget), int(bins), arch, n,
                 ctypes.byref(result))
    return list(arch[:n]), result.latency, result.value, result.grid_slack
