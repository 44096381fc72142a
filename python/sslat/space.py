"""SearchSpace: a search-space file (or its dict) loaded into the library."""
import ctypes
import json
import os
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

from . import _native
from ._native import lib

if TYPE_CHECKING:
    from .container import SearchSpaceLatencyContainer


class SearchSpace(_native.HandleOwner):
    """A loaded search space: the constant part and NAS blocks of candidates.

    SearchSpace(source) takes a path (str or os.PathLike) to a JSON file, or a
    dict in the file's structure (docs/space-format.md). batch / height / width
    override the file's input. SearchSpace.default() is the built-in space.

    `current_arch` is the architecture current_latency() uses when given no
    arch, `best_arch` the one best_arch_latency() uses: both the file's "arch"
    at first (None when it has none), settable to any list of indices.
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
        self.best_arch = self.arch

    @classmethod
    def from_json(cls, text: str, batch: Optional[int] = None, height: Optional[int] = None,
                  width: Optional[int] = None) -> "SearchSpace":
        return cls(json.loads(text), batch, height, width)

    def _load(self, batch, height, width):
        options = _native.SpaceOptions(_native.int32(batch, "batch", 0), _native.int32(height, "height", 0),
                                       _native.int32(width, "width", 0))
        handle = ctypes.c_void_p()
        kind, value, name = self._source
        if kind == "file":
            data = _read_bounded(value)
            if data is None:  # unreadable or too large: the library says why, as for any file
                _native.call(lib.sslat_space_load_file, _native.encode(value, "path"), ctypes.byref(options),
                             ctypes.byref(handle))
                lib.sslat_space_free(handle)  # readable after all (it changed meanwhile): not what was read
                raise OSError("%s: could not be read" % value)
            # the bytes loaded are the space from now on: a copy, a pickle or
            # to_json() gives this space, whatever happens to the file later
            self._source = kind, value, name = ("text", data, value)
        if kind == "text":
            data = value if isinstance(value, bytes) else value.encode("utf-8")
            _native.call(lib.sslat_space_load_string, data, len(data), _native.encode(name),
                         ctypes.byref(options), ctypes.byref(handle))
        else:
            _native.call(lib.sslat_space_load_default, ctypes.byref(options), ctypes.byref(handle))
        old, self._handle = getattr(self, "_handle", None), _native.Handle(handle, lib.sslat_space_free, "SearchSpace")
        if old is not None:
            old.release(successor=self._handle)  # a reader holding the old handle goes on with this one
        self._overrides = (batch, height, width)

    def _reshape(self, batch, height, width):
        """Reload with another input (initialize_latency's inputs); drops the latency."""
        self._load(batch, height, width)

    def _free(self):
        handle = getattr(self, "_handle", None)
        if handle is not None:
            handle.release()

    def __del__(self):
        self._free()

    # A copy is a second space loaded from the same source with the same input,
    # current_arch and attached latency: each copy owns its own handle.
    def __copy__(self):
        copy = SearchSpace.__new__(SearchSpace)
        copy._source = self._source
        copy._handle = None
        copy._load(*self._overrides)  # from the text self was loaded from, not the file as it is now
        copy.current_arch = None if self.current_arch is None else list(self.current_arch)
        copy.best_arch = None if self.best_arch is None else list(self.best_arch)
        latency = self.latency
        if latency is not None:
            with _native.using(copy._handle, latency._handle) as (space, table):
                _native.call(lib.sslat_attach_latency, space, table)
        return copy

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __reduce__(self):
        latency = self.latency
        return (_restore, (self._source, self._overrides, self.current_arch, self.best_arch,
                           None if latency is None else latency.save_to_bytes()))

    def __repr__(self):
        return "SearchSpace(%r, input=%s, blocks=%d, architectures=%d)" % (
            self.name, "x".join(map(str, self.input_shape)), self.block_count,
            self.architecture_count)

    # ---- properties --------------------------------------------------------

    @property
    def name(self) -> str:
        return self._text(lib.sslat_space_name)

    @property
    def hash(self) -> int:
        """Canonical 64-bit hash of every subgraph with its input shape."""
        return self._get(lib.sslat_space_hash)

    @property
    def input_shape(self) -> Tuple[int, int, int, int]:
        """(N, C, H, W)."""
        shape = (ctypes.c_int32 * 4)()
        self._get(lib.sslat_space_input_shape, shape)
        return tuple(shape)

    @property
    def block_count(self) -> int:
        return self._get(lib.sslat_space_block_count)

    @property
    def candidate_counts(self) -> List[int]:
        return [self._get(lib.sslat_space_candidate_count, b) for b in range(self.block_count)]

    @property
    def block_names(self) -> List[str]:
        return [self._text(lib.sslat_space_block_name, b)
                for b in range(self.block_count)]

    @property
    def candidate_labels(self) -> List[List[str]]:
        return [[self._text(lib.sslat_space_candidate_label, b, c)
                 for c in range(n)] for b, n in enumerate(self.candidate_counts)]

    @property
    def architecture_count(self) -> int:
        """The exact number of architectures (a Python int: it exceeds 2**64)."""
        size = self._get(lib.sslat_space_architecture_count_string, None, 0)
        buffer = ctypes.create_string_buffer(size + 1)
        self._get(lib.sslat_space_architecture_count_string, buffer, size + 1)
        return int(buffer.value)

    @property
    def arch(self) -> Optional[List[int]]:
        """The file's "arch" (a list of candidate indices), or None."""
        n = self.block_count
        values = (ctypes.c_int32 * max(n, 1))()
        length = self._get(lib.sslat_space_arch, values, n)
        return list(values[:length]) if length > 0 else None

    @property
    def latency(self) -> Optional["SearchSpaceLatencyContainer"]:
        """A copy of the attached latency container, or None."""
        from .container import SearchSpaceLatencyContainer
        with self._handle.use() as pointer:
            attached = lib.sslat_space_latency(pointer)
            return SearchSpaceLatencyContainer._copy_of(attached) if attached else None

    # ---- export -------------------------------------------------------------

    def _arch_values(self, arch):
        """arch (default: current_arch, or every block's first candidate) and it as a C array."""
        if arch is None:
            arch = self.current_arch or [0] * self.block_count
        values = (ctypes.c_int32 * max(len(arch), 1))(*[_native.int32(a, "arch[%d]" % i, 0) for i, a in enumerate(arch)])
        return arch, values

    def param_count(self, arch: Optional[List[int]] = None) -> int:
        """Learnable parameters of one architecture (default: current_arch, or
        every block's first candidate when there is none)."""
        arch, values = self._arch_values(arch)
        count = ctypes.c_int64()
        with self._handle.use() as space:
            _native.call(lib.sslat_space_param_count, space, values, len(arch), ctypes.byref(count))
        return count.value

    def architecture_graph(self, arch: Optional[List[int]] = None) -> Dict[str, Any]:
        """One architecture as one graph of primitive ops (arch default: as
        param_count): {"hash", "input", "nodes"}; see sslat_space_architecture_json."""
        arch, values = self._arch_values(arch)
        text = ctypes.c_void_p()
        with self._handle.use() as space:
            _native.call(lib.sslat_space_architecture_json, space, values, len(arch), ctypes.byref(text))
        try:
            return json.loads(ctypes.string_at(text.value).decode("utf-8"))
        finally:
            lib.sslat_free(text)

    def to_json(self) -> str:
        """The space-file text this space was loaded from (indented)."""
        kind, value, _ = self._source
        if kind == "text":
            text = value.decode("utf-8") if isinstance(value, bytes) else value
        else:
            text = lib.sslat_default_space_json().decode("utf-8")
        return json.dumps(json.loads(text), indent=1)

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
        values = (ctypes.c_int32 * max(len(chosen), 1))(*[_native.int32(i, "arch[%d]" % k)
                                                           for k, i in enumerate(chosen)])
        options = _native.OnnxOptions(_native.seed64(seed))
        with self._handle.use() as pointer:
            _native.call(lib.sslat_space_export_onnx, pointer, values, len(chosen), ctypes.byref(options),
                         _native.encode(os.fspath(path), "path"))
        return os.fspath(path)


MAX_FILE_BYTES = 16 * 1024 * 1024  # SSLAT_MAX_FILE_BYTES (base/limits.h)


def _read_bounded(path):
    """The file's bytes, or None when it cannot be read or passes the library's limit."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except (OSError, ValueError):
        return None
    return data if len(data) <= MAX_FILE_BYTES else None


def _restore(source, overrides, current_arch, best_arch, latency_bytes):
    """Rebuild a pickled SearchSpace (see SearchSpace.__reduce__)."""
    space = SearchSpace.__new__(SearchSpace)
    space._source = source
    space._handle = None
    space._load(*overrides)
    space.current_arch = current_arch
    space.best_arch = best_arch
    if latency_bytes is not None:
        from .container import SearchSpaceLatencyContainer
        latency = SearchSpaceLatencyContainer.load_from_bytes(latency_bytes)
        with _native.using(space._handle, latency._handle) as (pointer, table):
            _native.call(lib.sslat_attach_latency, pointer, table)
    return space
