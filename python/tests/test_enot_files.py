"""ENOT latency pickles written by Python: loaded by sslat, statistics equal
Python's own, and sslat's exports load back in Python with identical values."""
import itertools
import pickle
import random
import statistics
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
