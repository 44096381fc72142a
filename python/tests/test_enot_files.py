"""ENOT latency pickles written by Python: loaded by sslat, statistics equal
Python's own, and sslat's exports load back in Python with identical values."""
import io
import itertools
import pathlib
import pickle
import random
import statistics
import struct
import subprocess

import numpy
import pytest

import sslat


def enot_dict(numpy_scalars, seed=5):
    rng = random.Random(seed)
    table = [[rng.uniform(0.01, 2.0) for _ in range(rng.randint(2, 5))] for _ in range(5)]
    constant = 0.123456789012345
    if numpy_scalars:  # ENOT stores the constant as a numpy float64; entries may be too
        constant = numpy.float64(constant)
        table = [[numpy.float64(v) for v in block] for block in table]
    return {"latency_type": "mmac.thop", "constant_latency": constant,
            "operations_latencies": table}


def python_statistics(d):
    table = [[float(v) for v in block] for block in d["operations_latencies"]]
    constant = float(d["constant_latency"])
    every = [constant + sum(b[i] for b, i in zip(table, arch))
             for arch in itertools.product(*(range(len(b)) for b in table))]
    return constant, table, every


@pytest.mark.parametrize("protocol", [2, 3, 4])
@pytest.mark.parametrize("numpy_scalars", [False, True])
def test_python_pickle_loads_and_statistics_equal_python(tmp_path, protocol, numpy_scalars):
    d = enot_dict(numpy_scalars)
    path = tmp_path / "latency.pkl"
    with open(path, "wb") as file:
        pickle.dump(d, file, protocol=protocol)
    container = sslat.SearchSpaceLatencyContainer.load_from_file(path)
    constant, table, every = python_statistics(d)
    assert container.latency_type == "mac_thop"  # ENOT's name for thop's count
    assert container.metadata["enot.latency_type"] == "mmac.thop"
    assert container.constant_latency == constant  # bit-exact
    assert container.operations_latencies == table
    # the sums are done in the same order (constant, then block after block) as Python's
    assert sslat.min_latency(container) == pytest.approx(min(every), rel=1e-15)
    assert sslat.max_latency(container) == pytest.approx(max(every), rel=1e-15)
    assert sslat.mean_latency(container) == pytest.approx(statistics.fmean(every), rel=1e-13)
    for arch in ([0] * len(table), [len(b) - 1 for b in table], [1, 0, 1, 0, 1]):
        expected = constant + sum(b[i] for b, i in zip(table, arch))
        assert sslat.current_latency(container, arch) == pytest.approx(expected, rel=1e-15)
    assert sslat.SearchSpaceLatencyContainer.load_from_bytes(pickle.dumps(d, protocol)) \
        .operations_latencies == table


def test_exported_pickle_loads_in_python_with_identical_values():
    d = enot_dict(numpy_scalars=True)
    container = sslat.SearchSpaceLatencyContainer.load_from_bytes(pickle.dumps(d, 4))
    back = pickle.loads(container.save_to_bytes("enot"))
    assert back["latency_type"] == "mmac.thop"
    assert set(back) == {"latency_type", "constant_latency", "operations_latencies"}
    assert type(back["constant_latency"]) is float
    assert back["constant_latency"] == float(d["constant_latency"])
    assert back["operations_latencies"] == [[float(v) for v in b] for b in d["operations_latencies"]]


def test_command_line_import_and_export(tmp_path, sslat_command):
    d = enot_dict(numpy_scalars=True, seed=9)
    source = tmp_path / "enot.pkl"
    source.write_bytes(pickle.dumps(d, protocol=3))
    table = tmp_path / "table.sslat"
    subprocess.run([sslat_command, "import-enot", str(source), "-o", str(table)], check=True)
    exported = tmp_path / "again.pkl"
    subprocess.run([sslat_command, "export", str(table), "--enot", "-o", str(exported)], check=True)
    with open(exported, "rb") as file:
        back = pickle.load(file)
    assert back["latency_type"] == d["latency_type"]
    assert back["constant_latency"] == float(d["constant_latency"])
    assert back["operations_latencies"] == [[float(v) for v in b] for b in d["operations_latencies"]]
    stats = subprocess.run([sslat_command, "stats", str(table), "--json"], check=True,
                           capture_output=True, text=True).stdout
    assert "min" in stats


def test_enot_type_names_work_in_initialize_latency_and_unknown_types_are_refused():
    from conftest import TINY_SPACE
    space = sslat.SearchSpace(TINY_SPACE)
    enot_named = sslat.initialize_latency("mmac.thop", space)
    assert enot_named.latency_type == "mac_thop"
    assert enot_named.operations_latencies == sslat.initialize_latency("mac_thop", space).operations_latencies
    with pytest.raises(sslat.SslatError, match="unknown latency type 'pytorch_gpu'"):
        sslat.SearchSpaceLatencyContainer.load_from_bytes(pickle.dumps(
            {"latency_type": "pytorch_gpu", "constant_latency": 1.0, "operations_latencies": [[1.0]]}))


def test_pickles_that_would_run_code_are_refused(tmp_path):
    class Evil:
        def __reduce__(self):
            return (print, ("this must never run",))

    with pytest.raises(sslat.SslatError) as caught:
        sslat.SearchSpaceLatencyContainer.load_from_bytes(
            pickle.dumps({"latency_type": "x", "constant_latency": Evil(),
                          "operations_latencies": [[1.0]]}, protocol=2))
    assert "builtins" in str(caught.value) or "print" in str(caught.value)


ENOT_DATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "data" / "enot"
ALLOWED_GLOBALS = {("numpy.core.multiarray", "scalar"), ("numpy._core.multiarray", "scalar"), ("numpy", "dtype"),
                   ("_codecs", "encode")}


class OnlyTheGlobalsSslatReads(pickle.Unpickler):
    """pickle.load with the same globals sslat allows (a mutation never runs code here either)."""

    def find_class(self, module, name):
        if (module, name) not in ALLOWED_GLOBALS:
            raise pickle.UnpicklingError("refused %s.%s" % (module, name))
        return super().find_class(module, name)


def python_reads(data):
    """(constant, table) as pickle.load reads data from a file, or the exception it raises."""
    try:
        d = OnlyTheGlobalsSslatReads(io.BufferedReader(io.BytesIO(data))).load()
        return float(d["constant_latency"]), [[float(x) for x in block] for block in d["operations_latencies"]]
    except Exception as error:  # what pickle, numpy or the dict's shape raise
        return error


def mutate(data, rng):
    b = bytearray(data)
    kind = rng.randrange(5) if b else 2
    if kind == 0:
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif kind == 1:
        b[rng.randrange(len(b))] = rng.randrange(256)
    elif kind == 2:
        b.insert(rng.randrange(len(b) + 1), rng.randrange(256))
    elif kind == 3:
        del b[rng.randrange(len(b))]
    else:
        del b[rng.randrange(len(b) + 1):]
    return bytes(b)


def test_every_mutation_sslat_accepts_pickle_load_reads_with_the_same_values():
    """Differential (probe D11): sslat once accepted pickles pickle.load calls
    truncated (a FRAME longer than the file) or not UTF-8, and numpy dtype
    states numpy refuses. pickle is consulted only for what sslat accepted:
    CPython's own unpickler can crash on some mutated protocol-5 pickles."""
    rng = random.Random(11)
    accepted = tried = 0
    for path in sorted(ENOT_DATA.glob("*.pkl")):
        original = path.read_bytes()
        for _ in range(800):
            data = mutate(original, rng)
            if rng.random() < 0.3:
                data = mutate(data, rng)
            tried += 1
            try:
                container = sslat.SearchSpaceLatencyContainer.load_from_bytes(data)
            except (sslat.SslatError, ValueError):
                continue
            accepted += 1
            ours = (container.constant_latency, container.operations_latencies)
            assert repr(python_reads(data)) == repr(ours), "%s mutated: %s" % (path.name, data.hex())
    assert accepted > 100, "too few accepted mutations (%d of %d) to say anything" % (accepted, tried)


def test_a_frame_longer_than_the_file_and_a_str_that_is_not_utf8_are_refused():
    d = pickle.dumps({"latency_type": "mac", "constant_latency": 1.5, "operations_latencies": [[1.0, 2.0]]},
                     protocol=4)
    frame = d[:3] + struct.pack("<Q", struct.unpack_from("<Q", d, 3)[0] + 1) + d[11:]
    assert isinstance(python_reads(frame), pickle.UnpicklingError)
    with pytest.raises(sslat.SslatError, match="FRAME"):
        sslat.SearchSpaceLatencyContainer.load_from_bytes(frame)
    # the numpy scalar's byte order as one byte that is not UTF-8
    numpy_pickle = pickle.dumps({"latency_type": "mac", "constant_latency": numpy.float64(1.5),
                                 "operations_latencies": [[1.0]]}, protocol=4)
    bad = numpy_pickle.replace(b"\x8c\x01<", b"\x8c\x01\xcd", 1)
    assert bad != numpy_pickle and isinstance(python_reads(bad), UnicodeDecodeError)
    with pytest.raises(sslat.SslatError, match="not UTF-8"):
        sslat.SearchSpaceLatencyContainer.load_from_bytes(bad)


def test_the_cdf_bracket_stays_ordered_where_two_sums_round_apart():
    """Found by fuzz_enot: at 64 bins the low end came out one ulp above the high end."""
    container = sslat.SearchSpaceLatencyContainer.load_from_file(ENOT_DATA / "fuzz_cdf_bracket_p4.pkl")
    low, high = sslat.min_latency(container), sslat.max_latency(container)
    for bins in (16, 64, 256):
        for budget in (low, (low + high) / 2, high):
            lo, hi = sslat.latency_cdf(container, budget, bins=bins)
            assert lo <= hi, (bins, budget, lo, hi)
