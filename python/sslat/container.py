"""SearchSpaceLatencyContainer: one latency table (constant part + per-candidate values)."""
import ctypes
import math
import os
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

from . import _native
from ._native import lib
from .errors import InvalidArgumentError, SslatError

SSLAT_MAGIC = b"\x89SSLAT"
PICKLE_PROTO = 0x80  # every pickle of protocol 2 or later starts with PROTO


class SearchSpaceLatencyContainer(_native.HandleOwner):
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
        _native.int32(len(blocks), "the number of blocks")
        counts = (ctypes.c_int32 * max(len(blocks), 1))(*[len(b) for b in blocks])
        flat = [value for block in blocks for value in block]
        values = (ctypes.c_double * max(len(flat), 1))(*flat)
        handle = ctypes.c_void_p()
        _native.call(lib.sslat_container_create, _native.encode(latency_type, "latency_type"),
                     float(constant_latency), values, counts, len(blocks), ctypes.byref(handle))
        self._own(handle)

    def _own(self, handle):
        self._handle = _native.Handle(handle, lib.sslat_container_free, "SearchSpaceLatencyContainer")

    @classmethod
    def _wrap(cls, handle):
        """Own a container handle the library created."""
        container = cls.__new__(cls)
        container._own(handle)
        return container

    @classmethod
    def _copy_of(cls, pointer):
        handle = ctypes.c_void_p()
        _native.call(lib.sslat_container_clone, pointer, ctypes.byref(handle))
        return cls._wrap(handle)

    def __del__(self):
        handle = getattr(self, "_handle", None)
        if handle is not None:
            handle.release()

    # copies are real copies (each owns its table); pickling goes through the binary format
    def __copy__(self):
        with self._handle.use() as pointer:
            return self._copy_of(pointer)

    def __deepcopy__(self, memo):
        return self.__copy__()

    def __reduce__(self):
        return (SearchSpaceLatencyContainer.load_from_bytes, (self.save_to_bytes(),))

    def __repr__(self):
        try:
            constant = "constant=%g %s" % (self.constant_latency, self.unit)
        except SslatError:  # a table with no figures still prints
            constant = "no figures"
        return "SearchSpaceLatencyContainer(%r, %s, blocks=%d)" % (self.latency_type, constant, self.block_count)

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
        """Read a binary container, its JSON export or an ENOT pickle (at most 256 MiB;
        errors name the file)."""
        handle = ctypes.c_void_p()
        _native.call(lib.sslat_container_load_from_file, _native.encode(os.fspath(path), "path"),
                     ctypes.byref(handle))
        return cls._wrap(handle)

    def save_to_bytes(self, format: str = "sslat") -> bytes:
        """The container as bytes: "sslat" (binary), "enot" (pickle) or "json"."""
        if format == "json":
            return self.to_json().encode("utf-8")
        data = ctypes.POINTER(ctypes.c_uint8)()
        size = ctypes.c_size_t()
        if format == "sslat":
            function = lib.sslat_container_save_to_bytes
        elif format == "enot":
            function = lib.sslat_container_export_enot
        else:
            raise ValueError("format is 'sslat', 'enot' or 'json', not %r" % (format,))
        with self._handle.use() as pointer:
            _native.call(function, pointer, ctypes.byref(data), ctypes.byref(size))
        return _native.take_bytes(data, size)

    def save_to_file(self, path: Union[str, "os.PathLike[str]"], format: Optional[str] = None) -> None:
        """Write with the library's rules (atomic for a regular file, a symlink written
        through, a FIFO or device written directly). format defaults from the suffix:
        .pkl / .pickle → enot, .json → json, anything else → the sslat binary container."""
        path = os.fspath(path)
        if format is None:
            suffix = os.path.splitext(path)[1].lower()
            format = {".pkl": "enot", ".pickle": "enot", ".json": "json"}.get(suffix, "sslat")
        if format not in ("sslat", "enot", "json"):
            raise ValueError("format is 'sslat', 'enot' or 'json', not %r" % (format,))
        with self._handle.use() as pointer:
            _native.call(lib.sslat_container_save_to_file_as, pointer, _native.encode(path, "path"),
                         format.encode())

    def report(self, path: Optional[Union[str, "os.PathLike[str]"]] = None, **options: Any) -> str:
        """This table's report page (HTML); see sslat.report for the options."""
        from .report import report
        return report(self, path, **options)

    def to_json(self) -> str:
        text = ctypes.c_void_p()
        with self._handle.use() as pointer:
            _native.call(lib.sslat_container_export_json, pointer, ctypes.byref(text))
        return _native.take_text(text)

    def to_csv(self) -> str:
        text = ctypes.c_void_p()
        with self._handle.use() as pointer:
            _native.call(lib.sslat_container_export_csv, pointer, ctypes.byref(text))
        return _native.take_text(text)

    # ---- the reference's properties ----------------------------------------

    @property
    def latency_type(self) -> str:
        return self._text(lib.sslat_container_latency_type)

    # A table whose values are not all figures (docs/python.md, "Incomplete
    # tables"): a stand-in device's table or one shard's part raises on every
    # read of its values; an incomplete table (measure --keep-going) keeps
    # ENOT's shape, with NaN where an entry failed, and entry() of a failed
    # entry raises.

    def _failed_reads_as_nan(self) -> bool:
        """False when every value is a figure, True for an incomplete table;
        raises the library's reason for a table with no figures to read."""
        with self._handle.use() as pointer:
            try:
                _native.call(lib.sslat_container_check_complete, pointer)
                return False
            except SslatError:
                incomplete = (lib.sslat_container_metadata(pointer, b"standin") is None and
                              not lib.sslat_container_shard(pointer, None, None) and
                              bool(lib.sslat_container_metadata(pointer, b"quality.failed_entries")))
                if not incomplete:
                    raise
                return True

    def _value(self, block: int, candidate: int, incomplete: bool) -> float:
        if incomplete and self._get(lib.sslat_container_entry_is_failed, block, candidate):
            return math.nan
        if block < 0:
            return self._get(lib.sslat_container_constant_latency)
        return self._get(lib.sslat_container_latency, block, candidate)

    @property
    def constant_latency(self) -> float:
        """The constant part; NaN when one of its layers failed (an incomplete table)."""
        return self._value(-1, 0, self._failed_reads_as_nan())

    @property
    def operations_latencies(self) -> List[List[float]]:
        """One list per NAS block of its candidates' values; NaN for a failed entry
        of an incomplete table (a NaN never fits a budget or wins a comparison)."""
        incomplete = self._failed_reads_as_nan()
        return [[self._value(b, c, incomplete) for c in range(n)]
                for b, n in enumerate(self.candidate_counts)]

    # ---- beyond the reference ----------------------------------------------

    @property
    def unit(self) -> str:
        return self._text(lib.sslat_container_unit)

    @property
    def value_name(self) -> str:
        """What the figures are called: a value table's name ("top1"), else the latency type."""
        return self._text(lib.sslat_container_value_name)

    @property
    def block_count(self) -> int:
        return self._get(lib.sslat_container_block_count)

    @property
    def candidate_counts(self) -> List[int]:
        return [self._get(lib.sslat_container_candidate_count, b)
                for b in range(self.block_count)]

    @property
    def space_name(self) -> str:
        return self._text(lib.sslat_container_space_name)

    @property
    def space_hash(self) -> int:
        return self._get(lib.sslat_container_space_hash)

    @property
    def input_shape(self) -> Tuple[int, int, int, int]:
        shape = (ctypes.c_int32 * 4)()
        self._get(lib.sslat_container_input_shape, shape)
        return tuple(shape)

    @property
    def block_names(self) -> List[str]:
        return [self._text(lib.sslat_container_block_name, b)
                for b in range(self.block_count)]

    @property
    def candidate_labels(self) -> List[List[str]]:
        return [[self._text(lib.sslat_container_candidate_label, b, c)
                 for c in range(n)] for b, n in enumerate(self.candidate_counts)]

    @property
    def metadata(self) -> Dict[str, str]:
        """Every metadata pair (device, versions, options, …) as a dict of strings."""
        result = {}
        key, value = ctypes.c_char_p(), ctypes.c_char_p()
        with self._handle.use() as pointer:
            for index in range(lib.sslat_container_metadata_count(pointer)):
                if lib.sslat_container_metadata_at(pointer, index, ctypes.byref(key),
                                                   ctypes.byref(value)) == 0:
                    result[_native.text(key.value)] = _native.text(value.value)
        return result

    def entry(self, block: int, candidate: int) -> Dict[str, float]:
        """Statistics of one entry: value, median, mean, stddev, min, max, samples.
        Raises for a failed entry of an incomplete table, and for every entry of a
        table with no figures (a stand-in device's, a shard's part)."""
        self._require_figure(_native.int32(block, "block"), _native.int32(candidate, "candidate"))
        entry = _native.Entry()
        with self._handle.use() as pointer:
            _native.call(lib.sslat_container_entry, pointer, _native.int32(block, "block"),
                         _native.int32(candidate, "candidate"), ctypes.byref(entry))
        return {name: getattr(entry, name) for name, _ in _native.Entry._fields_}

    def _require_figure(self, block: int, candidate: int) -> None:
        if self._failed_reads_as_nan() and self._get(lib.sslat_container_entry_is_failed, block, candidate):
            where = "the constant part" if block < 0 else "block %d candidate %d" % (block, candidate)
            raise InvalidArgumentError(1, "invalid argument",
                                       "%s failed in the run that made the table (an incomplete table: "
                                       "metadata quality.failed_entries): it has no latency" % where)

    @property
    def constant_entry(self) -> Dict[str, float]:
        self._require_figure(-1, 0)
        entry = self._get(lib.sslat_container_constant_entry)
        return {name: getattr(entry, name) for name, _ in _native.Entry._fields_}
