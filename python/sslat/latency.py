"""The reference (enot.latency) functions, and the statistics beyond them.

Every statistic takes `arg`: a SearchSpace with a latency attached
(initialize_latency) or a SearchSpaceLatencyContainer.
"""
import contextlib
import ctypes
import json
import math
import random
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _native
from ._native import lib
from .container import SearchSpaceLatencyContainer
from .space import SearchSpace

# What a statistic reads: a space with a latency attached, or a container.
Source = Union[SearchSpace, SearchSpaceLatencyContainer]

# kwargs of initialize_latency that map one to one onto sslat_latency_options
_FLOAT_OPTIONS = ("target_noise", "max_seconds")
_TEXT_OPTIONS = ("dtype", "layout")


def available_calculators() -> List[str]:
    """The latency types that can run in this build on this machine, best last."""
    names = ctypes.POINTER(ctypes.c_char_p)()
    count = lib.sslat_available_calculators(ctypes.byref(names))
    return [_native.text(names[i]) for i in range(count)]


def _shape_of(inputs):
    """A shape tuple from a shape, anything with .shape (a tensor, an array), or
    ENOT's tuple of one tensor `(x,)`."""
    if isinstance(inputs, (tuple, list)) and inputs and len(getattr(inputs[0], "shape", ())) > 0:  # not a numpy int
        if len(inputs) != 1:
            raise ValueError("inputs holds %d tensors; an sslat space has a single input" % len(inputs))
        inputs = inputs[0]
    shape = getattr(inputs, "shape", inputs)
    try:
        dims = tuple(shape)
    except TypeError:
        raise TypeError("inputs must be a shape (N, C, H, W), a tensor, or a tuple of one tensor, "
                        "not %s" % type(inputs).__name__) from None
    try:  # whole numbers only: 32.9 is not truncated to 32
        shape = tuple(_native.whole(d, "an inputs dimension") for d in dims)
    except TypeError:
        raise ValueError("inputs must be a shape of whole numbers (N, C, H, W), got %r" % (dims,)) from None
    if len(shape) != 4 or min(shape) < 1:
        raise ValueError("inputs must be a positive 4-d shape (N, C, H, W), got %s" % (shape,))
    for d in shape:
        _native.int32(d, "an inputs dimension", 1)
    return shape


# PyTorch module classes (ENOT's ignore_modules) → sslat's op kinds and activations.
_TORCH_MODULES = {
    "conv2d": "conv2d", "batchnorm1d": "batchnorm", "batchnorm2d": "batchnorm",
    "relu": "relu", "relu6": "relu6", "hardswish": "hswish", "hardsigmoid": "hsigmoid",
    "sigmoid": "sigmoid", "silu": "silu", "gelu": "gelu", "tanh": "tanh",
    "adaptiveavgpool2d": "global_avgpool", "avgpool2d": "avgpool", "maxpool2d": "maxpool",
    "linear": "linear", "flatten": "flatten", "identity": "identity",
    "channelshuffle": "channel_shuffle", "upsample": "upsample",
}


def _ignore_text(value):
    """ignore / ignore_modules as the C list: sslat names, PyTorch classes or their names."""
    if value is None or isinstance(value, str):
        value = [] if not value else value.split(",")
    names = []
    for item in value:
        name = str(getattr(item, "__name__", item)).strip()
        names.append(_TORCH_MODULES.get(name.lower(), name.lower()))
    return ",".join(names)


def _latency_options(kwargs):
    options = _native.LatencyOptions(size=ctypes.sizeof(_native.LatencyOptions))
    keep = []  # the encoded strings must outlive the call
    kwargs = dict(kwargs)
    if "warmup_iterations" in kwargs:
        warmup = _native.int32(kwargs.pop("warmup_iterations"), "warmup_iterations", 0)
        options.warmup_iterations = warmup if warmup > 0 else _native.NO_WARMUP  # 0 means none
    if "run_iterations" in kwargs:
        options.run_iterations = _native.int32(kwargs.pop("run_iterations"), "run_iterations", 1)
    if "threads" in kwargs:
        options.threads = _native.int32(kwargs.pop("threads"), "threads", 0)
    for name in _FLOAT_OPTIONS:
        if name in kwargs:
            value = float(kwargs.pop(name))
            if not math.isfinite(value) or value < 0:
                raise ValueError("%s must be a finite number >= 0, got %r" % (name, value))
            setattr(options, name, value)
    for name in _TEXT_OPTIONS:
        if name in kwargs:
            keep.append(_native.encode(kwargs.pop(name), name))
            setattr(options, name, keep[-1])
    if "seed" in kwargs:
        seed = kwargs.pop("seed")
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
            raise ValueError("seed must be an integer in [0, 2**64), got %r" % (seed,))
        options.seed = seed
    mode = kwargs.pop("mode", None)
    eager = kwargs.pop("eager", None)
    if mode not in (None, "fused", "eager"):
        raise ValueError("mode is 'fused' or 'eager', not %r" % (mode,))
    options.eager = 1 if (eager or mode == "eager") else 0
    options.cold = 1 if kwargs.pop("cold", False) else 0
    options.fuse_bn = 1 if kwargs.pop("fuse_bn", False) else 0
    if "context" in kwargs:
        options.context_architectures = _native.int32(kwargs.pop("context"), "context", 0)
    if "device" in kwargs:
        device = kwargs.pop("device")
        keep.append(_native.encode(device if isinstance(device, (str, int)) else str(device), "device"))
        options.device = keep[-1]
    for name in ("ignore", "ignore_modules"):
        if name in kwargs:
            ignore = _ignore_text(kwargs.pop(name))
            if ignore:
                keep.append(_native.encode(ignore, name))
                options.ignore = keep[-1]
    if kwargs:
        raise TypeError("initialize_latency got unexpected keyword arguments: %s"
                        % ", ".join(sorted(kwargs)))
    return options, keep


def _default_base_samples(inputs, keyword_inputs):
    """ENOT's default: the batch of the first input."""
    return _shape_of(inputs)[0]


class _Shape:
    """A stand-in with .shape for get_base_samples when inputs was a bare shape."""

    def __init__(self, shape):
        self.shape = shape


def _rescaled(table, factor, samples):
    """table with every figure multiplied by factor, base_samples recorded."""
    data = json.loads(table.to_json())

    def scale(stats):
        for key in ("median", "mean", "stddev", "min", "max"):
            stats[key] = stats[key] * factor

    data["constant_latency"] *= factor
    scale(data["constant_stats"])
    data["operations_latencies"] = [[v * factor for v in row] for row in data["operations_latencies"]]
    for row in data["operations_stats"]:
        for stats in row:
            scale(stats)
    data["metadata"]["base_samples"] = str(samples)
    return SearchSpaceLatencyContainer.load_from_bytes(json.dumps(data).encode("utf-8"))


def initialize_latency(latency_type: str, search_space: SearchSpace, inputs: Any = None,
                       keyword_inputs: Optional[Dict[str, Any]] = None,
                       get_base_samples: Optional[Callable[[Any, Dict[str, Any]], int]] = None,
                       **kwargs: Any) -> SearchSpaceLatencyContainer:
    """Compute a latency table of latency_type for search_space, attach it to the
    space and return a copy.

    inputs (a shape, a tensor, or ENOT's tuple of one tensor) sets the space's
    input batch and resolution (the channel count must match; the space keeps
    that input: copy.copy(space) first to keep the original). As in ENOT, every
    figure is the whole batch's divided by get_base_samples(inputs,
    keyword_inputs) — by default the batch of the input — so tables are per
    sample; get_base_samples=lambda inputs, keyword_inputs: 1 gives per-batch
    figures.
    kwargs: warmup_iterations (0 = none), run_iterations (>= 1), threads, mode
    ('fused'/'eager') or eager, target_noise, max_seconds, seed, dtype, layout,
    device, cold (timed: the cold-cache table; default hot), ignore / ignore_modules (sslat op kinds or PyTorch classes),
    fuse_bn (MAC rules: count with every BN folded into its conv, as ENOT's
    published tables were made), context=N (timed: refit the table to N whole
    architectures timed end to end).

    search_space may also be a PyTorch model with choice containers
    (sslat.torch.Choice or ENOT's SearchVariantsContainer): it becomes a
    space by sslat.torch.to_space(model, inputs), kept on the model, so the
    statistics functions take the model too."""
    if _is_torch_module(search_space):
        from . import torch as sslat_torch  # needs torch, as the model does
        if inputs is None:
            raise ValueError("initialize_latency: a PyTorch model needs its inputs (a tensor or a 1-tuple)")
        model = search_space
        search_space = sslat_torch.to_space(model, inputs)
        model._sslat_space = search_space
    elif not isinstance(search_space, SearchSpace):
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
    if get_base_samples is not None and not callable(get_base_samples):
        raise TypeError("get_base_samples is a callable (inputs, keyword_inputs) -> number of samples")
    if inputs is None:
        base_inputs = _Shape(tuple(search_space.input_shape))
    elif hasattr(inputs, "shape") or (isinstance(inputs, (tuple, list)) and inputs
                                      and hasattr(inputs[0], "shape")):
        base_inputs = inputs  # what ENOT hands its get_base_samples
    else:
        base_inputs = _Shape(tuple(inputs))
    samples = (get_base_samples or _default_base_samples)(base_inputs, keyword_inputs or {})
    samples = _native.int32(samples, "get_base_samples(...)", 1)
    table = ctypes.c_void_p()
    with search_space._handle.use() as space:
        _native.call(lib.sslat_initialize_latency, _native.encode(latency_type, "latency_type"), space,
                     None, ctypes.byref(options), ctypes.byref(table))
        result = SearchSpaceLatencyContainer._copy_of(table)
        # the library's timed entries are per sample already, its MAC counts per batch:
        # bring both to (whole batch) / samples
        batch = search_space.input_shape[0]
        factor = (batch if result.unit == "ms" else 1) / samples
        if factor != 1:
            result = _rescaled(result, factor, samples)
            with result._handle.use() as scaled:
                _native.call(lib.sslat_attach_latency, space, scaled)
    del keep
    return result


def attach_latency(search_space: SearchSpace, container: SearchSpaceLatencyContainer) -> None:
    """Attach a copy of a container (its space hash must match the space)."""
    if not isinstance(search_space, SearchSpace):
        raise TypeError("attach_latency: search_space must be a SearchSpace, not %s"
                        % type(search_space).__name__)
    if not isinstance(container, SearchSpaceLatencyContainer):
        raise TypeError("attach_latency: container must be a SearchSpaceLatencyContainer, not %s"
                        % type(container).__name__)
    with _native.using(search_space._handle, container._handle) as (space, table):
        _native.call(lib.sslat_attach_latency, space, table)


def value_table(values: Sequence[Sequence[float]], name: str, unit: str = "", constant: float = 0.0,
                space: Optional[SearchSpace] = None) -> SearchSpaceLatencyContainer:
    """A value table: your own per-candidate values (an accuracy predictor's
    additive terms, energy, memory...) named `name` in `unit`, one list per
    block of one value per candidate, plus the constant part; with `space`,
    bound to it by its hash (its blocks, candidates and labels checked) like
    any table. pareto_front, budget_top, report and plot label their axes and
    columns with the name and unit. Values are finite and >= 0 (shift signed
    terms by a constant per block: no ranking changes)."""
    if not isinstance(name, str) or not isinstance(unit, str):
        raise TypeError("value_table: name and unit are strings")
    table = SearchSpaceLatencyContainer("value", constant, values)
    with table._handle.use() as pointer:
        _native.call(lib.sslat_container_name_values, pointer, _native.encode(name, "name"),
                     _native.encode(unit, "unit"))
    if space is not None:
        if not isinstance(space, SearchSpace):
            raise TypeError("value_table: space must be a SearchSpace, not %s" % type(space).__name__)
        with _native.using(space._handle, table._handle) as (space_pointer, table_pointer):
            _native.call(lib.sslat_container_bind_space, table_pointer, space_pointer)
    return table


def reset_latency(search_space: SearchSpace) -> None:
    """Drop the latency attached to search_space."""
    if not isinstance(search_space, SearchSpace):
        raise TypeError("reset_latency takes a SearchSpace, not %s" % type(search_space).__name__)
    with search_space._handle.use() as space:
        lib.sslat_reset_latency(space)


def _is_torch_module(value) -> bool:
    """An nn.Module, told without importing torch (the package works without it)."""
    return any(c.__name__ == "Module" and c.__module__ == "torch.nn.modules.module" for c in type(value).__mro__)


def _space_of_model(arg):
    """The space initialize_latency made for a PyTorch model, or arg itself."""
    if _is_torch_module(arg):
        space = getattr(arg, "_sslat_space", None)
        if space is None:
            raise ValueError("this PyTorch model has no latency: call initialize_latency(type, model, inputs) first")
        return space
    return arg


def _handle_of(arg):
    """The handle of a statistic's source: a space or a container."""
    if isinstance(arg, (SearchSpace, SearchSpaceLatencyContainer)):
        return arg._handle
    raise TypeError("expected a SearchSpace or a SearchSpaceLatencyContainer, not %s" % type(arg).__name__)


def _latency_pointer(arg, pointer):
    """The container behind arg, from the pointer its held handle gave."""
    if isinstance(arg, SearchSpace):
        table = lib.sslat_space_latency(pointer)
        if not table:
            raise ValueError("search space '%s' has no latency attached: call initialize_latency "
                             "or attach_latency first" % arg.name)
        return table
    return pointer


@contextlib.contextmanager
def _table(arg):
    """The container pointer behind arg, held (locked) for the duration of the call."""
    arg = _space_of_model(arg)
    with _handle_of(arg).use() as pointer:
        yield _latency_pointer(arg, pointer)


def _scalar(function, arg, *args):
    result = ctypes.c_double()
    with _table(arg) as table:
        _native.call(function, table, *args, ctypes.byref(result))
    return result.value


def _seed(seed):
    if seed is None:
        return random.getrandbits(64)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ValueError("seed must be an integer in [0, 2**64), got %r" % (seed,))
    return seed


def _count(n, low):
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError("n must be an integer, not %s" % type(n).__name__)
    if not low <= n <= 10**9:
        raise ValueError("n must be in [%d, 10**9], got %d" % (low, n))
    return n


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
    n = _count(n, 0)
    values = (ctypes.c_double * max(n, 1))()
    if n:
        with _table(arg) as table:
            _native.call(lib.sslat_sample_latencies, table, n, _seed(seed), values)
    return list(values[:n])


def median_latency(arg: Source, n: int = 100, seed: Optional[int] = None) -> float:
    """Median of sample_latencies(arg, n, seed)."""
    return _scalar(lib.sslat_median_latency, arg, _count(n, 1), _seed(seed))


def _arch_array(arch):
    """One candidate index per block, as int32; ENOT's nested form [[i], [j], …] too."""
    values = []
    for block, item in enumerate(arch):
        if isinstance(item, (list, tuple)):
            if len(item) != 1:
                raise ValueError("arch[%d] is %r: one candidate index per block" % (block, item))
            item = item[0]
        values.append(_native.int32(item, "arch[%d]" % block, 0))
    return (ctypes.c_int32 * max(len(values), 1))(*values), len(values)


def current_latency(arg: Source, arch: Optional[Sequence[int]] = None) -> float:
    """Latency of one architecture: arch, or the space's current_arch."""
    arg = _space_of_model(arg)
    if arch is None:
        arch = getattr(arg, "current_arch", None)
        if arch is None:
            raise ValueError("current_latency needs an arch (a list of candidate indices) "
                             "when the argument has no current_arch")
    values, length = _arch_array(arch)
    return _scalar(lib.sslat_current_latency, arg, values, length)


def best_arch_latency(search_space: SearchSpace) -> float:
    """Latency of the space's best architecture: space.best_arch (the file's
    "arch" until you set it to the architecture your search found)."""
    search_space = _space_of_model(search_space)
    if not isinstance(search_space, SearchSpace):
        raise TypeError("best_arch_latency takes a SearchSpace")
    if search_space.best_arch is None:
        raise ValueError("best_arch_latency: space %r has no \"arch\" in its file; set "
                         "space.best_arch to the architecture your search found (a list of candidate "
                         "indices)" % search_space.name)
    return current_latency(search_space, search_space.best_arch)


def _arch_of(function, arg):
    with _table(arg) as table:
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
    options = _native.DistributionOptions(_native.int32(bins, "bins", 0))
    with _table(arg) as table:
        _native.call(lib.sslat_latency_quantile, table, float(p), ctypes.byref(options),
                     ctypes.byref(estimate), ctypes.byref(bound))
    return estimate.value, bound.value


def _bracket(function, arg, budget, bins):
    low, high = ctypes.c_double(), ctypes.c_double()
    options = _native.DistributionOptions(_native.int32(bins, "bins", 0))
    with _table(arg) as table:
        _native.call(function, table, float(budget), ctypes.byref(options), ctypes.byref(low),
                     ctypes.byref(high))
    return low.value, high.value


def latency_cdf(arg: Source, budget: float, bins: int = 0) -> Tuple[float, float]:
    """(low, high) bracketing P(latency <= budget)."""
    return _bracket(lib.sslat_latency_cdf, arg, budget, bins)


def count_under_budget(arg: Source, budget: float, bins: int = 0) -> Tuple[float, float]:
    """(low, high) bracketing the number of architectures with latency <= budget."""
    return _bracket(lib.sslat_count_under_budget, arg, budget, bins)


@contextlib.contextmanager
def _two_tables(latency, value):
    """The pointers behind a latency and a value source, both held for the call."""
    latency, value = _space_of_model(latency), _space_of_model(value)
    # in _native.using's one lock order (another order deadlocks against
    # attach_latency(space, table) in another thread)
    with _native.using(_handle_of(latency), _handle_of(value)) as (table, values):
        yield _latency_pointer(latency, table), _latency_pointer(value, values)


def budget_maximize(latency: Source, value: Source, budget: float,
                    bins: int = 0) -> Tuple[List[int], float, float, float]:
    """The architecture maximising value's total with latency <= budget:
    returns (arch, latency, value, grid_slack)."""
    result = _native.BudgetResult()
    with _two_tables(latency, value) as (table, values):
        n = lib.sslat_container_block_count(table)
        arch = (ctypes.c_int32 * max(n, 1))()
        _native.call(lib.sslat_budget_maximize, table, values, float(budget),
                     _native.int32(bins, "bins", 0), arch, n, ctypes.byref(result))
    return list(arch[:n]), result.latency, result.value, result.grid_slack
