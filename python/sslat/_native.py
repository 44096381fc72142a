"""The C library through ctypes: finding it, its structs and its prototypes.

Nothing here is public; the rest of the package calls `lib` and `check`.
"""
import contextlib
import ctypes
import ctypes.util
import os
import threading

from .errors import error_for

LIBRARY_NAME = "libsslat.so"


def _candidates():
    """Where the library is looked for, in order, with how it was found."""
    override = os.environ.get("SSLAT_LIBRARY")
    if override:
        return [(override, "SSLAT_LIBRARY")]
    here = os.path.dirname(os.path.abspath(__file__))
    found = [(os.path.join(here, LIBRARY_NAME), "next to the package")]
    system = ctypes.util.find_library("sslat")
    if system:
        found.append((system, "the system's library path"))
    return found


def _load():
    tried = []
    for path, how in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as error:
            tried.append("%s (%s): %s" % (path, how, error))
            if how == "SSLAT_LIBRARY":
                break  # an explicit choice is not second-guessed
    raise ImportError(
        "sslat: cannot load the C library; tried " + "; ".join(tried) +
        ". Install the package with pip from the repository root (`pip install .` builds "
        "the library into it), or set SSLAT_LIBRARY to a libsslat.so.")


lib, library_path = _load()


class Error(ctypes.Structure):
    _fields_ = [("status", ctypes.c_int), ("message", ctypes.c_char * 512)]


class SpaceOptions(ctypes.Structure):
    _fields_ = [("batch", ctypes.c_int32), ("height", ctypes.c_int32), ("width", ctypes.c_int32)]


class Entry(ctypes.Structure):
    _fields_ = [("value", ctypes.c_double), ("median", ctypes.c_double), ("mean", ctypes.c_double),
                ("stddev", ctypes.c_double), ("min", ctypes.c_double), ("max", ctypes.c_double),
                ("samples", ctypes.c_uint32)]


class LatencyOptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("ignore", ctypes.c_char_p), ("warmup_iterations", ctypes.c_int32),
                ("run_iterations", ctypes.c_int32), ("threads", ctypes.c_int32),
                ("eager", ctypes.c_int32), ("target_noise", ctypes.c_double),
                ("max_seconds", ctypes.c_double), ("seed", ctypes.c_uint64),
                ("dtype", ctypes.c_char_p), ("layout", ctypes.c_char_p),
                ("device", ctypes.c_char_p), ("cold", ctypes.c_int32), ("fuse_bn", ctypes.c_int32),
                ("context_architectures", ctypes.c_int32)]


class OnnxOptions(ctypes.Structure):
    _fields_ = [("seed", ctypes.c_uint64)]


class DistributionOptions(ctypes.Structure):
    _fields_ = [("bins", ctypes.c_int32)]


class ReportOptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("table_name", ctypes.c_char_p), ("space", ctypes.c_void_p), ("mac", ctypes.c_void_p),
                ("value", ctypes.c_void_p), ("arch", ctypes.POINTER(ctypes.c_int32)),
                ("arch_length", ctypes.c_int32), ("validation_json", ctypes.c_char_p),
                ("validation_name", ctypes.c_char_p), ("samples", ctypes.c_int32), ("seed", ctypes.c_uint64)]


class PlotReference(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("latency", ctypes.c_double), ("value", ctypes.c_double)]


class PlotOptions(ctypes.Structure):
    _fields_ = [("size", ctypes.c_uint32), ("labels", ctypes.POINTER(ctypes.c_char_p)),
                ("references", ctypes.POINTER(PlotReference)), ("reference_count", ctypes.c_size_t),
                ("chosen", ctypes.POINTER(ctypes.c_int32)), ("chosen_length", ctypes.c_int32),
                ("numbered", ctypes.c_int32), ("width_pt", ctypes.c_int32), ("height_pt", ctypes.c_int32)]


class BudgetResult(ctypes.Structure):
    _fields_ = [("latency", ctypes.c_double), ("value", ctypes.c_double),
                ("grid_slack", ctypes.c_double)]


P = ctypes.c_void_p
PP = ctypes.POINTER(ctypes.c_void_p)
ERR = ctypes.POINTER(Error)
I32 = ctypes.c_int32
I32P = ctypes.POINTER(ctypes.c_int32)
DBL = ctypes.c_double
DBLP = ctypes.POINTER(ctypes.c_double)
STR = ctypes.c_char_p
SIZE = ctypes.c_size_t
U64 = ctypes.c_uint64
BYTESP = ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8))
SIZEP = ctypes.POINTER(ctypes.c_size_t)
ST = ctypes.c_int

_PROTOTYPES = {
    "sslat_version": (STR, []),
    "sslat_version_number": (I32, []),
    "sslat_status_string": (STR, [ctypes.c_int]),
    "sslat_free": (None, [P]),
    # spaces
    "sslat_space_load_file": (ST, [STR, ctypes.POINTER(SpaceOptions), PP, ERR]),
    "sslat_space_load_string": (ST, [STR, SIZE, STR, ctypes.POINTER(SpaceOptions), PP, ERR]),
    "sslat_space_load_default": (ST, [ctypes.POINTER(SpaceOptions), PP, ERR]),
    "sslat_default_space_json": (STR, []),
    "sslat_space_free": (None, [P]),
    "sslat_space_name": (STR, [P]),
    "sslat_space_hash": (U64, [P]),
    "sslat_space_input_shape": (None, [P, I32P]),
    "sslat_space_block_count": (I32, [P]),
    "sslat_space_candidate_count": (I32, [P, I32]),
    "sslat_space_block_name": (STR, [P, I32]),
    "sslat_space_candidate_label": (STR, [P, I32, I32]),
    "sslat_space_architecture_count_string": (SIZE, [P, STR, SIZE]),
    "sslat_space_arch": (I32, [P, I32P, I32]),
    "sslat_space_param_count": (ST, [P, I32P, I32, ctypes.POINTER(ctypes.c_int64), ERR]),
    "sslat_space_architecture_json": (ST, [P, I32P, I32, ctypes.POINTER(ctypes.c_void_p), ERR]),
    "sslat_parameter_values": (None, [U64, I32, I32, ctypes.c_int64, ctypes.POINTER(ctypes.c_float), SIZE]),
    "sslat_space_export_onnx": (ST, [P, I32P, I32, ctypes.POINTER(OnnxOptions), STR, ERR]),
    "sslat_available_calculators": (I32, [ctypes.POINTER(ctypes.POINTER(STR))]),
    # containers
    "sslat_container_create": (ST, [STR, DBL, DBLP, I32P, I32, PP, ERR]),
    "sslat_container_clone": (ST, [P, PP, ERR]),
    "sslat_container_free": (None, [P]),
    "sslat_container_save_to_bytes": (ST, [P, BYTESP, SIZEP, ERR]),
    "sslat_container_load_from_bytes": (ST, [ctypes.c_char_p, SIZE, PP, ERR]),
    "sslat_container_save_to_file": (ST, [P, STR, ERR]),
    "sslat_container_save_to_file_as": (ST, [P, STR, STR, ERR]),
    "sslat_container_load_from_file": (ST, [STR, PP, ERR]),
    "sslat_container_export_json": (ST, [P, ctypes.POINTER(P), ERR]),
    "sslat_container_import_json": (ST, [ctypes.c_char_p, SIZE, PP, ERR]),
    "sslat_container_export_csv": (ST, [P, ctypes.POINTER(P), ERR]),
    "sslat_container_import_enot": (ST, [ctypes.c_char_p, SIZE, PP, ERR]),
    "sslat_container_export_enot": (ST, [P, BYTESP, SIZEP, ERR]),
    "sslat_container_latency_type": (STR, [P]),
    "sslat_container_unit": (STR, [P]),
    "sslat_container_name_values": (ST, [P, STR, STR, ERR]),
    "sslat_container_value_name": (STR, [P]),
    "sslat_container_bind_space": (ST, [P, P, ERR]),
    "sslat_container_constant_latency": (DBL, [P]),
    "sslat_container_constant_entry": (Entry, [P]),
    "sslat_container_block_count": (I32, [P]),
    "sslat_container_candidate_count": (I32, [P, I32]),
    "sslat_container_latency": (DBL, [P, I32, I32]),
    "sslat_container_entry": (ST, [P, I32, I32, ctypes.POINTER(Entry), ERR]),
    "sslat_container_check_complete": (ST, [P, ERR]),
    "sslat_container_entry_is_failed": (ctypes.c_int, [P, I32, I32]),
    "sslat_container_shard": (ctypes.c_int, [P, I32P, I32P]),
    "sslat_container_block_name": (STR, [P, I32]),
    "sslat_container_candidate_label": (STR, [P, I32, I32]),
    "sslat_container_space_name": (STR, [P]),
    "sslat_container_space_hash": (U64, [P]),
    "sslat_container_input_shape": (None, [P, I32P]),
    "sslat_container_metadata_count": (I32, [P]),
    "sslat_container_metadata_at": (ST, [P, I32, ctypes.POINTER(STR), ctypes.POINTER(STR)]),
    "sslat_container_metadata": (STR, [P, STR]),
    "sslat_container_set_metadata": (ST, [P, STR, STR, ERR]),
    # the reference API
    "sslat_initialize_latency": (ST, [STR, P, ctypes.POINTER(SpaceOptions),
                                      ctypes.POINTER(LatencyOptions), PP, ERR]),
    "sslat_attach_latency": (ST, [P, P, ERR]),
    "sslat_space_latency": (P, [P]),
    "sslat_reset_latency": (None, [P]),
    # statistics
    "sslat_min_latency": (ST, [P, DBLP, ERR]),
    "sslat_max_latency": (ST, [P, DBLP, ERR]),
    "sslat_mean_latency": (ST, [P, DBLP, ERR]),
    "sslat_sample_latencies": (ST, [P, SIZE, U64, DBLP, ERR]),
    "sslat_median_latency": (ST, [P, SIZE, U64, DBLP, ERR]),
    "sslat_current_latency": (ST, [P, I32P, I32, DBLP, ERR]),
    "sslat_best_arch_latency": (ST, [P, P, DBLP, ERR]),
    "sslat_argmin_arch": (ST, [P, I32P, I32, ERR]),
    "sslat_argmax_arch": (ST, [P, I32P, I32, ERR]),
    "sslat_latency_quantile": (ST, [P, DBL, ctypes.POINTER(DistributionOptions), DBLP, DBLP, ERR]),
    "sslat_latency_cdf": (ST, [P, DBL, ctypes.POINTER(DistributionOptions), DBLP, DBLP, ERR]),
    "sslat_count_under_budget": (ST, [P, DBL, ctypes.POINTER(DistributionOptions), DBLP, DBLP,
                                      ERR]),
    "sslat_budget_maximize": (ST, [P, P, DBL, I32, I32P, I32, ctypes.POINTER(BudgetResult), ERR]),
    "sslat_budget_top": (ST, [P, P, DBL, I32, I32, I32P, I32, ctypes.POINTER(BudgetResult), I32P, ERR]),
    "sslat_report_html": (ST, [P, ctypes.POINTER(ReportOptions), PP, ERR]),
    "sslat_plot_fronts": (ST, [ctypes.POINTER(P), ctypes.POINTER(P), SIZE, ctypes.POINTER(PlotOptions), STR, ERR]),
    "sslat_pareto_compute": (ST, [P, P, I32, PP, ERR]),
    "sslat_pareto_free": (None, [P]),
    "sslat_pareto_size": (I32, [P]),
    "sslat_pareto_front_size": (ctypes.c_int64, [P]),
    "sslat_pareto_slack": (DBL, [P]),
    "sslat_pareto_point": (ST, [P, I32, I32P, I32, DBLP, DBLP, ERR]),
    "sslat_struct_size": (SIZE, [STR]),
}

for _name, (_restype, _argtypes) in _PROTOTYPES.items():
    try:
        _function = getattr(lib, _name)
    except AttributeError:
        raise ImportError("sslat: %s has no function %s: it is another library, or an sslat built from another "
                          "version than this package; install the package and the library from one checkout "
                          "(or unset SSLAT_LIBRARY)" % (library_path, _name)) from None
    _function.restype = _restype
    _function.argtypes = _argtypes

# The structs above copy sslat.h's by hand: the library says how it laid them
# out, and a library of another layout is refused here, not misread later.
MIRRORS = {"sslat_error": Error, "sslat_space_options": SpaceOptions, "sslat_entry": Entry,
           "sslat_onnx_options": OnnxOptions, "sslat_latency_options": LatencyOptions,
           "sslat_distribution_options": DistributionOptions, "sslat_budget_result": BudgetResult,
           "sslat_report_options": ReportOptions, "sslat_plot_options": PlotOptions,
           "sslat_plot_reference": PlotReference}


def struct_mismatches(mirrors=MIRRORS):
    """(name, Python's size, the library's size) of every mirror that differs."""
    sizes = [(name, ctypes.sizeof(mirror), lib.sslat_struct_size(name.encode())) for name, mirror in mirrors.items()]
    return [size for size in sizes if size[1] != size[2]]


_mismatches = struct_mismatches()
if _mismatches:
    raise ImportError("sslat: %s was built with other struct layouts than this package (%s): install the "
                      "package and the library from one checkout" % (library_path, ", ".join(
                          "%s %d vs %d bytes" % m for m in _mismatches)))


def call(function, *args):
    """Call a library function whose last argument is an sslat_error; raise on failure."""
    error = Error()
    status = function(*args, ctypes.byref(error))
    if status != 0:
        raise error_for(status, lib.sslat_status_string(status).decode(),
                        error.message.decode("utf-8", "replace"))


def text(value):
    """A C string (bytes or None) as Python str (or None)."""
    return None if value is None else value.decode("utf-8", "replace")


def encode(value, what="a string argument"):
    """str → UTF-8 bytes for C; a NUL inside would silently cut the string there."""
    if value is None:
        return None
    data = str(value).encode("utf-8")
    if b"\0" in data:
        raise ValueError("%s contains a NUL character: %r" % (what, value))
    return data


INT32_MAX = 2**31 - 1
NO_WARMUP = -1  # SSLAT_NO_WARMUP: no warmup runs at all


def whole(value, what):
    """value as a Python int (numpy integers and 0-d tensors through __index__); TypeError otherwise."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    try:
        return value.__index__()
    except (AttributeError, TypeError):
        raise TypeError("%s must be an integer, not %s" % (what, type(value).__name__)) from None


def int32(value, what, low=-2**31):
    """An int that C reads as int32_t: refused (not wrapped) outside [low, 2**31 - 1]."""
    value = whole(value, what)
    if not low <= value <= INT32_MAX:
        raise ValueError("%s must be in [%d, %d], got %d" % (what, low, INT32_MAX, value))
    return value


def seed64(value, what="seed"):
    """A seed that C reads as uint64_t: refused (not wrapped) outside [0, 2**64 - 1]; None is 0 (the default)."""
    if value is None:
        return 0
    value = whole(value, what)
    if not 0 <= value <= 2**64 - 1:
        raise ValueError("%s must be in [0, 2**64 - 1] (0: the default), got %d" % (what, value))
    return value


class Handle:
    """One pointer the library allocated, owned once.

    Every C call on it runs inside `with handle.use() as pointer:`, holding the
    object's lock, so a free from another thread (an explicit __del__, a
    reset_latency) waits for the call and a call after the free raises instead
    of passing NULL or a dangling pointer to C.
    """

    def __init__(self, pointer, free, what):
        self._pointer = pointer
        self._free = free
        self._what = what
        self._lock = threading.RLock()
        self._successor = None  # the handle that replaced this one (a space reloaded at another input)

    @contextlib.contextmanager
    def use(self):
        with self._lock:
            if self._pointer:
                yield self._pointer
                return
            successor = self._successor
        if successor is None:
            raise ValueError("this %s was freed (its __del__ ran); it cannot be used" % self._what)
        # a caller that read the object's handle just before it was replaced
        # goes on with the replacement, not with an error for a live object
        with successor.use() as pointer:
            yield pointer

    def release(self, successor=None):
        with self._lock:
            pointer, self._pointer = self._pointer, None
            self._successor = successor
            if pointer:
                self._free(pointer)


class HandleOwner:
    """What a SearchSpace and a container share: C calls on their one Handle."""

    _handle: Handle

    def _get(self, function, *args):
        """function(pointer, *args) under this object's lock."""
        with self._handle.use() as pointer:
            return function(pointer, *args)

    def _text(self, function, *args):
        """A string the object owns, copied while the object is held."""
        with self._handle.use() as pointer:
            return text(function(pointer, *args))


@contextlib.contextmanager
def using(*handles):
    """Several handles at once, locked in a fixed order (no deadlock between two calls)."""
    with contextlib.ExitStack() as stack:
        pointers = {}
        for handle in sorted(set(handles), key=id):
            pointers[id(handle)] = stack.enter_context(handle.use())
        yield [pointers[id(handle)] for handle in handles]


def take_bytes(pointer, size):
    """Copy a buffer the library handed over and free it."""
    try:
        return ctypes.string_at(pointer, size.value)
    finally:
        lib.sslat_free(ctypes.cast(pointer, ctypes.c_void_p))


def take_text(pointer):
    try:
        return ctypes.string_at(pointer).decode("utf-8")
    finally:
        lib.sslat_free(pointer)
