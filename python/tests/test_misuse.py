"""What the reliability probe did to the Python package: copies, frees, threads,
out-of-range numbers, special files. None of it may crash the interpreter or
destroy a file; every case is a clear Python exception or works.

test.sh --sanitize runs this file with the ASan runtime preloaded, so a
use-after-free or double free in the library fails it."""
import copy
import json
import math
import os
import pickle
import threading

import pytest

import sslat
from conftest import EXAMPLES, TINY_SPACE


def mac_table(space):
    return sslat.initialize_latency("mac", space)


def test_a_copied_container_owns_its_own_table():
    original = sslat.SearchSpaceLatencyContainer("mac", 1.5, [[1.0, 2.0], [0.5]])
    shallow, deep = copy.copy(original), copy.deepcopy(original)
    del original  # freeing one copy leaves the others whole (was a double free)
    assert shallow.operations_latencies == [[1.0, 2.0], [0.5]]
    assert deep.constant_latency == 1.5
    again = pickle.loads(pickle.dumps(shallow))
    assert again.save_to_bytes() == shallow.save_to_bytes()


def test_a_copied_space_keeps_its_input_arch_and_latency(tiny_space):
    table = mac_table(tiny_space)
    tiny_space.current_arch = [2, 1]
    twin = copy.copy(tiny_space)
    del tiny_space
    assert twin.current_arch == [2, 1] and twin.best_arch == [1, 0]
    assert sslat.min_latency(twin) == sslat.min_latency(table)
    restored = pickle.loads(pickle.dumps(twin))
    assert restored.hash == twin.hash and sslat.max_latency(restored) == sslat.max_latency(table)


def test_use_after_del_is_an_error_not_a_crash(tiny_space):
    table = mac_table(tiny_space)
    table.__del__()
    table.__del__()  # twice is harmless
    with pytest.raises(ValueError, match="freed"):
        sslat.min_latency(table)
    with pytest.raises(ValueError, match="freed"):
        table.latency_type
    tiny_space.__del__()
    with pytest.raises(ValueError, match="freed"):
        tiny_space.block_count


def test_a_pickled_space_is_the_space_that_was_pickled(tmp_path, monkeypatch):
    """Probe D3: unpickling reloaded whatever the (relative) path named now."""
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    (here / "sp.json").write_bytes((EXAMPLES / "proxylessnas.json").read_bytes())
    (there / "sp.json").write_bytes((EXAMPLES / "fbnet.json").read_bytes())
    monkeypatch.chdir(here)
    space = sslat.SearchSpace("sp.json")
    data = pickle.dumps(space)
    monkeypatch.chdir(there)  # a worker in another folder
    restored = pickle.loads(data)
    assert (restored.name, restored.hash) == (space.name, space.hash)
    # an edited file does not change the loaded space, its copies or its text either
    monkeypatch.chdir(here)
    (here / "sp.json").write_bytes((EXAMPLES / "fbnet.json").read_bytes())
    assert copy.copy(space).hash == space.hash
    assert pickle.loads(pickle.dumps(space)).hash == space.hash
    assert json.loads(space.to_json())["name"] == "proxylessnas"


def test_two_object_calls_in_two_threads_never_deadlock():
    """Probe D4: budget_maximize(space, table) and attach_latency(space, table)
    locked in opposite orders and hung. Several pairs, so that some have their
    objects' and handles' orders differ; every thread must finish in time."""
    pairs = []
    for _ in range(8):
        space = sslat.SearchSpace(EXAMPLES / "proxylessnas.json")
        pairs.append((space, sslat.initialize_latency("mac", space)))
    done = []

    def run(call):
        for _ in range(20):
            call()
        done.append(call)

    threads = []
    for space, table in pairs:
        for call in (lambda s=space, t=table: sslat.budget_maximize(s, t, 400.0),
                     lambda s=space, t=table: sslat.attach_latency(s, t),
                     lambda s=space, t=table: sslat.budget_maximize(t, s, 400.0),
                     lambda s=space: copy.copy(s)):
            threads.append(threading.Thread(target=run, args=(call,), daemon=True))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(done) == len(threads), "%d of %d threads hung" % (len(threads) - len(done), len(threads))


def test_freeing_while_another_thread_computes_waits_for_it(tiny_space):
    table = mac_table(tiny_space)
    results, errors = [], []

    def compute():
        for _ in range(300):
            try:
                results.append(sslat.latency_quantile(table, 0.5))
                results.append(sslat.median_latency(tiny_space, n=50, seed=1))
            except ValueError as error:  # after the free: said, not crashed
                errors.append(str(error))

    worker = threading.Thread(target=compute)
    worker.start()
    table.__del__()
    sslat.reset_latency(tiny_space)
    worker.join()
    assert all("freed" in e or "no latency attached" in e for e in errors)


def test_wrong_objects_are_type_errors(tiny_space):
    table = mac_table(tiny_space)
    with pytest.raises(TypeError):
        sslat.reset_latency(table)
    with pytest.raises(TypeError):
        sslat.attach_latency(table, tiny_space)
    with pytest.raises(TypeError):
        sslat.attach_latency(tiny_space, "table.sslat")


def test_numbers_out_of_range_are_refused_not_wrapped(tiny_space):
    mac_table(tiny_space)
    with pytest.raises(ValueError, match="arch\\[0\\]"):
        sslat.current_latency(tiny_space, [2**32, 0])  # was read as arch 0
    with pytest.raises(ValueError):
        sslat.current_latency(tiny_space, [-1, 0])
    with pytest.raises(ValueError, match="target_noise"):
        sslat.initialize_latency("mac", tiny_space, target_noise=math.nan)
    with pytest.raises(ValueError, match="seed"):
        sslat.sample_latencies(tiny_space, n=3, seed=-1)
    with pytest.raises(ValueError, match="batch"):
        sslat.SearchSpace(TINY_SPACE, batch=2**31)
    with pytest.raises(ValueError, match="run_iterations"):
        sslat.initialize_latency("mac", tiny_space, run_iterations=0)
    with pytest.raises(ValueError, match="warmup_iterations"):
        sslat.initialize_latency("mac", tiny_space, warmup_iterations=-5)


def test_strings_with_nul_are_refused_not_cut(tmp_path, tiny_space):
    table = mac_table(tiny_space)
    with pytest.raises(ValueError, match="NUL"):
        sslat.initialize_latency("mac\0_thop", tiny_space)
    with pytest.raises(ValueError, match="NUL"):
        table.save_to_file(str(tmp_path / "a.sslat") + "\0.pkl")
    with pytest.raises(ValueError, match="NUL"):
        sslat.SearchSpaceLatencyContainer("mac\0x", 0.0, [[1.0]])


def test_load_from_file_reads_at_most_its_limit(tmp_path):
    huge = tmp_path / "huge.sslat"
    with open(huge, "wb") as file:
        file.truncate(300 << 20)  # sparse: 300 MiB of zeros, no disk used
    with pytest.raises(sslat.SslatError, match="huge.sslat") as caught:
        sslat.SearchSpaceLatencyContainer.load_from_file(huge)
    assert caught.value.status_name == "limit"


def test_every_format_is_read_from_a_file_and_errors_name_it(tmp_path, tiny_space):
    table = mac_table(tiny_space)
    for name in ("t.sslat", "t.json", "t.pkl"):
        table.save_to_file(tmp_path / name)
        back = sslat.SearchSpaceLatencyContainer.load_from_file(tmp_path / name)
        assert back.operations_latencies == table.operations_latencies
    (tmp_path / "bad.pkl").write_bytes(b"\x80\x02junk")
    with pytest.raises(sslat.SslatError, match="bad.pkl"):
        sslat.SearchSpaceLatencyContainer.load_from_file(tmp_path / "bad.pkl")


def test_save_to_file_writes_through_links_and_into_fifos(tmp_path, tiny_space):
    table = mac_table(tiny_space)
    target = tmp_path / "real.pkl"
    link = tmp_path / "link.pkl"
    target.write_bytes(b"old")
    os.symlink(target, link)
    table.save_to_file(link)
    assert os.path.islink(link)  # the link stays a link; its target has the table
    assert sslat.SearchSpaceLatencyContainer.load_from_file(target).latency_type == "mmac"  # ENOT's name

    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    received = []
    reader = threading.Thread(target=lambda: received.append(open(fifo, "rb").read()))
    reader.start()
    table.save_to_file(fifo)
    reader.join(timeout=30)
    assert os.path.exists(fifo) and not os.path.isfile(fifo)  # still a FIFO, not replaced
    assert received and received[0].startswith(b"{")

    with pytest.raises(sslat.SslatError, match="directory"):
        table.save_to_file(tmp_path)
    leftovers = [p for p in os.listdir(tmp_path) if "tmp" in p]
    assert leftovers == []


# ---- an ENOT user's first hour ------------------------------------------------

class BatchNorm2d:  # stand-ins for torch.nn classes: only __name__ is read
    pass


class Hardswish:
    pass


def test_enot_calls_work_as_documented(tiny_space):
    numpy = pytest.importorskip("numpy")
    x = numpy.zeros((1, 3, 32, 32), dtype=numpy.float32)
    table = sslat.initialize_latency("mmac.thop", tiny_space, (x,))  # ENOT's tuple of one tensor
    assert table.latency_type == "mac_thop"
    by_class = sslat.initialize_latency("mac", tiny_space, ignore_modules=[BatchNorm2d, "ReLU6"])
    by_name = sslat.initialize_latency("mac", tiny_space, ignore_modules=["batchnorm", "relu6"])
    assert by_class.operations_latencies == by_name.operations_latencies
    assert sslat.current_latency(tiny_space, [[2], [1]]) == sslat.current_latency(tiny_space, [2, 1])
    sslat.initialize_latency("mac", tiny_space, warmup_iterations=0, run_iterations=1)


def test_best_arch_latency_on_a_space_without_arch():
    space = sslat.SearchSpace(EXAMPLES / "ofa_mobilenet_v3.json")
    mac_table(space)
    with pytest.raises(ValueError, match="best_arch"):
        sslat.best_arch_latency(space)
    space.best_arch = [1] * space.block_count
    assert sslat.best_arch_latency(space) == sslat.current_latency(space, [1] * space.block_count)


def test_per_sample_by_default_as_enot(tiny_space):
    per_batch = sslat.initialize_latency("mac", tiny_space, inputs=(4, 3, 32, 32),
                                         get_base_samples=lambda inputs, keyword_inputs: 1)
    per_sample = sslat.initialize_latency("mac", tiny_space, inputs=(4, 3, 32, 32))
    assert sslat.max_latency(per_sample) == pytest.approx(sslat.max_latency(per_batch) / 4, rel=1e-12)
    halves = sslat.initialize_latency("mac", tiny_space, inputs=(4, 3, 32, 32),
                                      get_base_samples=lambda inputs, keyword_inputs: 2)
    assert sslat.max_latency(halves) == pytest.approx(sslat.max_latency(per_batch) / 2, rel=1e-12)


def test_seeds_outside_64_bits_are_refused_not_wrapped(tmp_path, tiny_space):
    """Probe (Low): to_onnx(seed=-1) was seed 2**64 - 1 and seed=2**64 the default."""
    arch = [0] * tiny_space.block_count
    for seed in (-1, 2**64, 1.5, "7"):
        with pytest.raises((ValueError, TypeError)):
            tiny_space.to_onnx(arch, tmp_path / "x.onnx", seed=seed)
    assert not (tmp_path / "x.onnx").exists()
    try:
        tiny_space.to_onnx(arch, tmp_path / "ok.onnx", seed=2**64 - 1)
    except sslat.SslatError as error:  # a build without ONNX export says so
        assert "ONNX" in str(error)


def test_reading_a_space_while_another_thread_gives_it_new_inputs_never_sees_it_freed():
    """Probe (Low): a reader racing initialize_latency(space, inputs=...) got
    'this SearchSpace was freed' for a live space (the reload swaps its handle)."""
    space = sslat.SearchSpace(EXAMPLES / "proxylessnas.json")
    errors, stop = [], threading.Event()

    def read():
        while not stop.is_set():
            try:
                space.block_count
                space.input_shape
            except ValueError as error:
                errors.append(str(error))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    for i in range(40):
        sslat.initialize_latency("mac", space, (1, 3, 160 + 32 * (i % 3), 160 + 32 * (i % 3)))
    stop.set()
    reader.join(timeout=30)
    assert errors == []


def test_an_input_shape_of_fractions_is_refused_not_truncated():
    """Probe turn 4: (1, 3, 32.9, 32) became 32x32, (1, 3.5, 64, 64) three channels."""
    space = sslat.SearchSpace(EXAMPLES / "proxylessnas.json")
    for shape in ((1, 3, 32.9, 32), (1, 3.5, 64, 64), (1.7, 3, 32, 32)):
        with pytest.raises(ValueError, match="whole numbers"):
            sslat.initialize_latency("mac", space, shape)
    numpy = pytest.importorskip("numpy")
    sslat.initialize_latency("mac", space, (numpy.int64(2), 3, 96, 96))
    assert space.input_shape == (2, 3, 96, 96)


def marked_table(**marks):
    """A small table whose JSON export carries the given metadata marks (what
    measure --keep-going or the stand-in device writes), imported back."""
    table = sslat.SearchSpaceLatencyContainer("cpu", 0.5, [[1.0, 2.0, 3.0], [0.25, 0.75]])
    exported = json.loads(table.to_json())
    exported["metadata"].update(marks)
    return sslat.SearchSpaceLatencyContainer.load_from_bytes(json.dumps(exported).encode())


def test_failed_entries_of_an_incomplete_table_read_as_nan_never_as_zero():
    table = marked_table(**{"quality.failed_entries": "0:1,constant", "quality.failed_units": "2"})
    values = table.operations_latencies
    assert [len(block) for block in values] == [3, 2]  # ENOT's shape is kept
    assert math.isnan(values[0][1]) and values[0][0] == 1.0 and values[1] == [0.25, 0.75]
    assert math.isnan(table.constant_latency)
    assert table.entry(0, 0)["value"] == 1.0
    with pytest.raises(ValueError, match="block 0 candidate 1 failed"):
        table.entry(0, 1)
    with pytest.raises(ValueError, match="the constant part failed"):
        table.constant_entry
    # the values cannot be laundered into a complete-looking table
    with pytest.raises(ValueError, match=r"operations_latencies\[0\]\[1\]: value is nan"):
        sslat.SearchSpaceLatencyContainer("cpu", 0.5, values)
    with pytest.raises(ValueError, match="constant_latency: value is nan"):
        sslat.SearchSpaceLatencyContainer("cpu", table.constant_latency, [[1.0]])


def test_a_stand_in_table_has_no_values_to_read():
    table = marked_table(standin="scripted engines")
    for read in (lambda: table.operations_latencies, lambda: table.constant_latency,
                 lambda: table.entry(0, 0), lambda: table.constant_entry):
        with pytest.raises(ValueError, match="stand-in device"):
            read()
    # its exports stay readable, and keep the mark; it prints
    assert json.loads(table.to_json())["metadata"]["standin"] == "scripted engines"
    assert "no figures" in repr(table)


def test_a_failed_entries_list_that_does_not_parse_counts_every_entry_as_failed():
    for hand_edited in ("garbage", " 0:1", "0:1 ", "0:x", "1:"):
        table = marked_table(**{"quality.failed_entries": hand_edited})
        assert all(math.isnan(v) for block in table.operations_latencies for v in block), hand_edited
        assert math.isnan(table.constant_latency)


def test_negative_and_infinite_latencies_are_refused_when_building_a_table():
    for bad in (-1.0, math.inf, -math.inf):
        with pytest.raises(ValueError, match="must be finite and >= 0"):
            sslat.SearchSpaceLatencyContainer("mac", 0.0, [[1.0, bad]])
    assert sslat.SearchSpaceLatencyContainer("mac", -0.0, [[0.0]]).operations_latencies == [[0.0]]
