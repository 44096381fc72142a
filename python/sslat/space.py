"""SearchSpace: a search-space file (or its dict) loaded into the library."""
import ctypes
import json
import os
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

from . import _native
from ._native import lib

if TYPE_CHECKING:
    from .container import SearchSpaceLatencyContainer


class SearchSpace:
    """A loaded search space: the constant part and NAS blocks of candidates.

    SearchSpace(source) takes a path (str or os.PathLike) to a JSON file, or a
    dict in the file's structure (docs/space-format.md). batch / height / width
    override the file's input. SearchSpace.default() is the built-in space.

    `current_arch` is the architecture current_latency() uses when given no
    arch: the file's "arch" at first, settable to any list of indices.
    """

    def __init__(self, source: Union[str, "os.PathLike[str]", Dict[str, Any]], batch: Optional[int] = None,
                 height: Optional[int] = None, width: Optional[int] = None):
        if isinstance(source, dict):
            source = ("text", json.dumps(source), "<dict>")
        elif isinstance(source, (str, os.PathLike)):
            source = ("file", os.fspath(source), None)
        else:
            raise TypeError("SearchSpace takes a file path or a dict in the space-file "
                            "structure, not %s" % type(source).__name__)
        self._open(source, batch, height, width)

    @classmethod
    def default(cls, batch: Optional[int] = None, height: Optional[int] = None,
                width: Optional[int] = None) -> "SearchSpace":
        """The built-in MobileNetV2-style space."""
        space = cls.__new__(cls)
        space._open(("default", None, None), batch, height, width)
        return space

    def _open(self, source, batch, height, width):
        self._source = source
        self._handle = None
        self._load(batch or 0, height or 0, width or 0)
        self.current_arch = self.arch

    @classmethod
    def from_json(cls, text: str, batch: Optional[int] = None, height: Optional[int] = None,
                  width: Optional[int] = None) -> "SearchSpace":
        return cls(json.loads(text), batch, height, width)

    def _load(self, batch, height, width):
        options = _native.SpaceOptions(batch, height, width)
        handle = ctypes.c_void_p()
        kind, value, name = self._source
        if kind == "file":
            _native.call(lib.sslat_space_load_file, _native.encode(value), ctypes.byref(options),
                         ctypes.byref(handle))
        elif kind == "text":
            data = value.encode("utf-8")
            _native.call(lib.sslat_space_load_string, data, len(data), _native.encode(name),
                         ctypes.byref(options), ctypes.byref(handle))
        else:
            _native.call(lib.sslat_space_load_default, ctypes.byref(options), ctypes.byref(handle))
        self._free()
        self._handle = handle

    def _reshape(self, batch, height, width):
        """Reload with another input (initialize_latency's inputs); drops the latency."""
        self._load(batch, height, width)

    def _free(self):
        if self._handle:
            lib.sslat_space_free(self._handle)
            self._handle = None

    def __del__(self):
        self._free()

    def __repr__(self):
        return "SearchSpace(%r, input=%s, blocks=%d, architectures=%d)" % (
            self.name, "x".join(map(str, self.input_shape)), self.block_count,
            self.architecture_count)

    # ---- properties --------------------------------------------------------

    @property
    def name(self) -> str:
        return _native.text(lib.sslat_space_name(self._handle))

    @property
    def hash(self) -> int:
        """Canonical 64-bit hash of every subgraph with its input shape."""
        return lib.sslat_space_hash(self._handle)

    @property
    def input_shape(self) -> Tuple[int, int, int, int]:
        """(N, C, H, W)."""
        shape = (ctypes.c_int32 * 4)()
        lib.sslat_space_input_shape(self._handle, shape)
        return tuple(shape)

    @property
    def block_count(self) -> int:
        return lib.sslat_space_block_count(self._handle)

    @property
    def candidate_counts(self) -> List[int]:
        return [lib.sslat_space_candidate_count(self._handle, b) for b in range(self.block_count)]

    @property
    def block_names(self) -> List[str]:
        return [_native.text(lib.sslat_space_block_name(self._handle, b))
                for b in range(self.block_count)]

    @property
    def candidate_labels(self) -> List[List[str]]:
        return [[_native.text(lib.sslat_space_candidate_label(self._handle, b, c))
                 for c in range(n)] for b, n in enumerate(self.candidate_counts)]

    @property
    def architecture_count(self) -> int:
        """The exact number of architectures (a Python int: it exceeds 2**64)."""
        size = lib.sslat_space_architecture_count_string(self._handle, None, 0)
        buffer = ctypes.create_string_buffer(size + 1)
        lib.sslat_space_architecture_count_string(self._handle, buffer, size + 1)
        return int(buffer.value)

    @property
    def arch(self) -> Optional[List[int]]:
        """The file's "arch" (a list of candidate indices), or None."""
        n = self.block_count
        values = (ctypes.c_int32 * max(n, 1))()
        length = lib.sslat_space_arch(self._handle, values, n)
        return list(values[:length]) if length > 0 else None

    @property
    def latency(self) -> Optional["SearchSpaceLatencyContainer"]:
        """A copy of the attached latency container, or None."""
        from .container import SearchSpaceLatencyContainer
        attached = lib.sslat_space_latency(self._handle)
        return SearchSpaceLatencyContainer._copy_of(attached) if attached else None

    # ---- export -------------------------------------------------------------

    def to_onnx(self, arch: Optional[List[int]] = None, path: Union[str, "os.PathLike[str]"] = "model.onnx",
                seed: Optional[int] = None) -> str:
        """Write one architecture as an ONNX model (opset 17, fp32) and return the path.

        arch is one candidate index per NAS block (default: current_arch). The
        weights are the seeded values the timed calculators run (seed: None =
        theirs); the input shape is the space's, overrides included. The file
        is written atomically; see docs/onnx.md.
        """
        chosen = self.current_arch if arch is None else list(arch)
        if chosen is None:
            if self.block_count:
                raise ValueError("to_onnx: space %r has %d NAS blocks and no arch: pass arch"
                                 % (self.name, self.block_count))
            chosen = []
        values = (ctypes.c_int32 * max(len(chosen), 1))(*chosen)
        options = _native.OnnxOptions(seed or 0)
        _native.call(lib.sslat_space_export_onnx, self._handle, values, len(chosen), ctypes.byref(options),
                     _native.encode(os.fspath(path)))
        return os.fspath(path)
