"""SearchSpaceLatencyContainer: one latency table (constant part + per-candidate values)."""
import ctypes
import os
from typing import Dict, List, Optional, Sequence, Tuple, Union

from . import _native
from ._native import lib

SSLAT_MAGIC = b"\x89SSLAT"
PICKLE_PROTO = 0x80  # every pickle of protocol 2 or later starts with PROTO


class SearchSpaceLatencyContainer:
    """The reference's container: SearchSpaceLatencyContainer(latency_type,
    constant_latency, operations_latencies), where operations_latencies is a list
    (one per NAS block) of lists (one value per candidate).

    Files and bytes are sslat containers (docs/format.md); load_from_* also read
    ENOT latency pickles and sslat JSON exports, told apart by their first bytes.
    save_to_file writes an ENOT pickle for a .pkl path and JSON for a .json path.
    """

    def __init__(self, latency_type: str, constant_latency: float,
                 operations_latencies: Sequence[Sequence[float]]):
        blocks = [list(map(float, block)) for block in operations_latencies]
        counts = (ctypes.c_int32 * max(len(blocks), 1))(*[len(b) for b in blocks])
        flat = [value for block in blocks for value in block]
        values = (ctypes.c_double * max(len(flat), 1))(*flat)
        handle = ctypes.c_void_p()
        _native.call(lib.sslat_container_create, _native.encode(latency_type),
                     float(constant_latency), values, counts, len(blocks), ctypes.byref(handle))
        self._handle = handle

    @classmethod
    def _wrap(cls, handle):
        """Own a container handle the library created."""
        container = cls.__new__(cls)
        container._handle = handle
        return container

    @classmethod
    def _copy_of(cls, pointer):
        handle = ctypes.c_void_p()
        _native.call(lib.sslat_container_clone, pointer, ctypes.byref(handle))
        return cls._wrap(handle)

    def __del__(self):
        if getattr(self, "_handle", None):
            lib.sslat_container_free(self._handle)
            self._handle = None

    def __repr__(self):
        return "SearchSpaceLatencyContainer(%r, constant=%g %s, blocks=%d)" % (
            self.latency_type, self.constant_latency, self.unit, self.block_count)

    # ---- loading and saving ------------------------------------------------

    @classmethod
    def load_from_bytes(cls, data: bytes) -> "SearchSpaceLatencyContainer":
        data = bytes(data)
        handle = ctypes.c_void_p()
        if data[:1] == bytes([PICKLE_PROTO]):
            _native.call(lib.sslat_container_import_enot, data, len(data), ctypes.byref(handle))
        elif data.lstrip()[:1] == b"{":
            _native.call(lib.sslat_container_import_json, data, len(data), ctypes.byref(handle))
        else:
            _native.call(lib.sslat_container_load_from_bytes, data, len(data),
                         ctypes.byref(handle))
        return cls._wrap(handle)

    @classmethod
    def load_from_file(cls, path: Union[str, "os.PathLike[str]"]) -> "SearchSpaceLatencyContainer":
        path = os.fspath(path)
        with open(path, "rb") as file:
            head = file.read(len(SSLAT_MAGIC))
        if head == SSLAT_MAGIC:
            handle = ctypes.c_void_p()  # the library's reader names the file in its errors
            _native.call(lib.sslat_container_load_from_file, _native.encode(path),
                         ctypes.byref(handle))
            return cls._wrap(handle)
        with open(path, "rb") as file:
            return cls.load_from_bytes(file.read())

    def save_to_bytes(self, format: str = "sslat") -> bytes:
        """The container as bytes: "sslat" (binary), "enot" (pickle) or "json"."""
        if format == "json":
            return self.to_json().encode("utf-8")
        data = ctypes.POINTER(ctypes.c_uint8)()
        size = ctypes.c_size_t()
        if format == "sslat":
            _native.call(lib.sslat_container_save_to_bytes, self._handle, ctypes.byref(data),
                         ctypes.byref(size))
        elif format == "enot":
            _native.call(lib.sslat_container_export_enot, self._handle, ctypes.byref(data),
                         ctypes.byref(size))
        else:
            raise ValueError("format is 'sslat', 'enot' or 'json', not %r" % (format,))
        return _native.take_bytes(data, size)

    def save_to_file(self, path: Union[str, "os.PathLike[str]"], format: Optional[str] = None) -> None:
        """Write atomically. format defaults from the suffix: .pkl → enot, .json → json,
        anything else → the sslat binary container."""
        path = os.fspath(path)
        if format is None:
            suffix = os.path.splitext(path)[1].lower()
            format = {".pkl": "enot", ".pickle": "enot", ".json": "json"}.get(suffix, "sslat")
        if format == "sslat":
            _native.call(lib.sslat_container_save_to_file, self._handle, _native.encode(path))
            return
        data = self.save_to_bytes(format)
        temporary = "%s.tmp.%d" % (path, os.getpid())
        try:
            with open(temporary, "wb") as file:
                file.write(data)
                file.flush()
                os.fsync(file.fileno())
            os.replace(temporary, path)
        finally:
            if os.path.exists(temporary):
                os.remove(temporary)

    def to_json(self) -> str:
        pointer = ctypes.c_void_p()
        _native.call(lib.sslat_container_export_json, self._handle, ctypes.byref(pointer))
        return _native.take_text(pointer)

    def to_csv(self) -> str:
        pointer = ctypes.c_void_p()
        _native.call(lib.sslat_container_export_csv, self._handle, ctypes.byref(pointer))
        return _native.take_text(pointer)

    # ---- the reference's properties ----------------------------------------

    @property
    def latency_type(self) -> str:
        return _native.text(lib.sslat_container_latency_type(self._handle))

    @property
    def constant_latency(self) -> float:
        return lib.sslat_container_constant_latency(self._handle)

    @property
    def operations_latencies(self) -> List[List[float]]:
        return [[lib.sslat_container_latency(self._handle, b, c) for c in range(n)]
                for b, n in enumerate(self.candidate_counts)]

    # ---- beyond the reference ----------------------------------------------

    @property
    def unit(self) -> str:
        return _native.text(lib.sslat_container_unit(self._handle))

    @property
    def block_count(self) -> int:
        return lib.sslat_container_block_count(self._handle)

    @property
    def candidate_counts(self) -> List[int]:
        return [lib.sslat_container_candidate_count(self._handle, b)
                for b in range(self.block_count)]

    @property
    def space_name(self) -> str:
        return _native.text(lib.sslat_container_space_name(self._handle))

    @property
    def space_hash(self) -> int:
        return lib.sslat_container_space_hash(self._handle)

    @property
    def input_shape(self) -> Tuple[int, int, int, int]:
        shape = (ctypes.c_int32 * 4)()
        lib.sslat_container_input_shape(self._handle, shape)
        return tuple(shape)

    @property
    def block_names(self) -> List[str]:
        return [_native.text(lib.sslat_container_block_name(self._handle, b))
                for b in range(self.block_count)]

    @property
    def candidate_labels(self) -> List[List[str]]:
        return [[_native.text(lib.sslat_container_candidate_label(self._handle, b, c))
                 for c in range(n)] for b, n in enumerate(self.candidate_counts)]

    @property
    def metadata(self) -> Dict[str, str]:
        """Every metadata pair (device, versions, options, …) as a dict of strings."""
        result = {}
        key, value = ctypes.c_char_p(), ctypes.c_char_p()
        for index in range(lib.sslat_container_metadata_count(self._handle)):
            if lib.sslat_container_metadata_at(self._handle, index, ctypes.byref(key),
                                               ctypes.byref(value)) == 0:
                result[_native.text(key.value)] = _native.text(value.value)
        return result

    def entry(self, block: int, candidate: int) -> Dict[str, float]:
        """Statistics of one entry: value, median, mean, stddev, min, max, samples."""
        entry = _native.Entry()
        _native.call(lib.sslat_container_entry, self._handle, block, candidate,
                     ctypes.byref(entry))
        return {name: getattr(entry, name) for name, _ in _native.Entry._fields_}

    @property
    def constant_entry(self) -> Dict[str, float]:
        entry = lib.sslat_container_constant_entry(self._handle)
        return {name: getattr(entry, name) for name, _ in _native.Entry._fields_}
