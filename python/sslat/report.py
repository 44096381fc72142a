"""sslat.report: a latency table as one self-contained HTML page, the page
`sslat report` writes (the C library renders it)."""
import ctypes
import json
import os
from typing import Any, Dict, Optional, Sequence, Union

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
