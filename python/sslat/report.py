"""sslat.report: a latency table as one self-contained HTML page, the page
`sslat report` writes (the C library renders it)."""
import ctypes
import json
import os
from typing import Any, Dict, Optional, Sequence, Tuple, Union

from . import _native
from ._native import lib
from .container import SearchSpaceLatencyContainer
from .latency import Source, _latency_pointer, _space_of_model
from .space import SearchSpace

PathLike = Union[str, "os.PathLike[str]"]


def _validation_text(validation):
    """validate's JSON as text: from a dict, or read from a file of `sslat validate --json`."""
    if validation is None:
        return None, None
    if isinstance(validation, dict):
        return json.dumps(validation), "validation"
    with open(validation, "r", encoding="utf-8") as stream:
        return stream.read(), os.fspath(validation)


def report(table: Source, path: Optional[PathLike] = None, *, space: Optional[SearchSpace] = None,
           mac: Optional[Source] = None, value: Optional[Source] = None, arch: Optional[Sequence[int]] = None,
           validation: Union[None, Dict[str, Any], PathLike] = None, samples: int = 0, seed: int = 1,
           name: Optional[str] = None) -> str:
    """The report page of `table` (a container, or a space with a latency
    attached, which is then also the report's space). mac: a MAC table of the
    same space (MACs vs latency); value: the Pareto front's second table
    (default: mac); arch: the current architecture (default: the space's
    "arch"); validation: the output of `sslat validate --json` (a dict or a
    file). Returns the HTML and writes it to path when one is given."""
    table, mac, value = _space_of_model(table), _space_of_model(mac), _space_of_model(value)
    if space is None and isinstance(table, SearchSpace):
        space = table
    text, source = _validation_text(validation)
    options = _native.ReportOptions(size=ctypes.sizeof(_native.ReportOptions))
    options.table_name = _native.encode(name, "name")
    options.validation_json = _native.encode(text, "validation")
    options.validation_name = _native.encode(source, "validation")
    options.samples = _native.int32(samples, "samples", 0)
    options.seed = _native.seed64(seed)
    if arch is not None:
        arch = [_native.int32(a, "arch[%d]" % i) for i, a in enumerate(arch)]
        options.arch = (ctypes.c_int32 * max(len(arch), 1))(*arch)
        options.arch_length = len(arch)
    for what, arg in (("table", table), ("mac", mac), ("value", value)):
        if arg is not None and not isinstance(arg, (SearchSpace, SearchSpaceLatencyContainer)):
            raise TypeError("%s: expected a SearchSpace or a SearchSpaceLatencyContainer, not %s"
                            % (what, type(arg).__name__))
    if space is not None and not isinstance(space, SearchSpace):
        raise TypeError("space: expected a SearchSpace, not %s" % type(space).__name__)
    html = ctypes.c_void_p()
    present = [o for o in (table, space, mac, value) if o is not None]
    # each object held once, in the one lock order of every call that holds several
    with _native.using(*[o._handle for o in present]) as pointers:
        held = dict(zip(map(id, present), pointers))
        options.space = held[id(space)] if space is not None else None
        options.mac = _latency_pointer(mac, held[id(mac)]) if mac is not None else None
        options.value = _latency_pointer(value, held[id(value)]) if value is not None else None
        _native.call(lib.sslat_report_html, _latency_pointer(table, held[id(table)]), ctypes.byref(options),
                     ctypes.byref(html))
    page = _native.take_text(html)
    if path is not None:  # whole or not at all: written beside, then renamed over
        temporary = "%s.%d.tmp" % (os.fspath(path), os.getpid())
        try:
            with open(temporary, "w", encoding="utf-8") as stream:
                stream.write(page)
            os.replace(temporary, path)
        finally:
            if os.path.exists(temporary):
                os.unlink(temporary)
    return page


Front = Tuple[Source, Source]
Reference = Union[Tuple[str, Sequence[int]], Tuple[str, float, float]]


def plot(path: PathLike, fronts: Union[Front, Sequence[Front]], *, labels: Optional[Sequence[str]] = None,
         references: Sequence[Reference] = (), chosen: Optional[Sequence[int]] = None, points: int = 8,
         size: Optional[Tuple[int, int]] = None) -> None:
    """The figure `sslat plot` draws, written to path (.svg or .pdf): the
    Pareto front of each (latency, value) pair — containers, or spaces with a
    latency attached — on one pair of axes, `points` of each numbered on it
    (0: none), a band of ±1 standard deviation of latency where the entries
    were timed, a legend (labels: one per front) for several fronts.
    references: labelled points, each (name, arch) of the first front's space
    or (name, latency, value) of a network outside it; chosen: an
    architecture of the first front's space, marked. size: (width, height) in
    points (default one column of a paper, 252 × 189)."""
    if isinstance(fronts, tuple) and len(fronts) == 2 and not isinstance(fronts[0], (tuple, list)):
        fronts = [fronts]
    fronts = [(_space_of_model(latency), _space_of_model(value)) for latency, value in fronts]
    for k, pair in enumerate(fronts):
        for what, arg in zip(("latency", "value"), pair):
            if not isinstance(arg, (SearchSpace, SearchSpaceLatencyContainer)):
                raise TypeError("front %d's %s: expected a SearchSpace or a SearchSpaceLatencyContainer, not %s"
                                % (k + 1, what, type(arg).__name__))
    options = _native.PlotOptions(size=ctypes.sizeof(_native.PlotOptions))
    if labels is not None:
        if isinstance(labels, str) or len(labels) != len(fronts):
            raise ValueError("labels: one string per front (%d)" % len(fronts))
        encoded = [_native.encode(label, "labels") for label in labels]
        options.labels = (ctypes.c_char_p * len(encoded))(*encoded)
    if isinstance(points, bool) or not isinstance(points, int) or not 0 <= points <= 50:
        raise ValueError("points: 0 (none) to 50 numbered points per front, not %r" % (points,))
    options.numbered = points if points else -1
    if size is not None:
        options.width_pt, options.height_pt = (_native.int32(v, "size") for v in size)
    if chosen is not None:
        chosen = [_native.int32(a, "chosen[%d]" % i) for i, a in enumerate(chosen)]
        options.chosen = (ctypes.c_int32 * max(len(chosen), 1))(*chosen)
        options.chosen_length = len(chosen)
    objects = []
    for latency, value in fronts:
        objects.extend(o for o in (latency, value) if all(o is not p for p in objects))
    with _native.using(*[o._handle for o in objects]) as pointers:
        held = dict(zip(map(id, objects), pointers))
        latency_pointers = [_latency_pointer(l, held[id(l)]) for l, _ in fronts]
        value_pointers = [_latency_pointer(v, held[id(v)]) for _, v in fronts]
        refs = []
        for reference in references:
            name = _native.encode(reference[0], "references")
            if len(reference) == 2:  # (name, arch) of the first front's space: its totals, said so on overlays
                arch = list(reference[1])
                if len(fronts) > 1:
                    name += b" (front 1)"
                refs.append((name, _total(latency_pointers[0], arch), _total(value_pointers[0], arch)))
            elif len(reference) == 3:
                refs.append((name, float(reference[1]), float(reference[2])))
            else:
                raise ValueError("a reference is (name, arch) or (name, latency, value), not %r" % (reference,))
        if refs:
            options.references = (_native.PlotReference * len(refs))(*[_native.PlotReference(*r) for r in refs])
            options.reference_count = len(refs)
        _native.call(lib.sslat_plot_fronts, (ctypes.c_void_p * len(fronts))(*latency_pointers),
                     (ctypes.c_void_p * len(fronts))(*value_pointers), len(fronts), ctypes.byref(options),
                     _native.encode(os.fspath(path), "path"))


def _total(table, arch):
    """An architecture's total in a held table (the library checks the arch)."""
    total = ctypes.c_double()
    arch = [_native.int32(a, "arch") for a in arch]
    _native.call(lib.sslat_current_latency, table, (ctypes.c_int32 * max(len(arch), 1))(*arch), len(arch),
                 ctypes.byref(total))
    return total.value
