"""Every function of the reference API, on a MAC calculator and on the cpu one."""
import itertools
import os
import statistics

import pytest

import sslat
from conftest import EXAMPLES, TINY_SPACE


def brute_force(container):
    """Every architecture's latency, by enumeration (for small spaces)."""
    table = container.operations_latencies
    return [container.constant_latency + sum(block[i] for block, i in zip(table, arch))
            for arch in itertools.product(*(range(len(block)) for block in table))]


def test_available_calculators_lists_the_mac_rules_and_cpu():
    names = sslat.available_calculators()
    assert names[:4] == ["mac", "mac_thop", "mac_fvcore", "mac_pthflops"]
    assert "cpu" in names


def test_space_from_file_reports_its_shape_and_exact_architecture_count():
    space = sslat.SearchSpace(EXAMPLES / "ofa_mobilenet_v3.json")
    assert space.input_shape == (1, 3, 224, 224)
    assert space.block_count == 20
    assert space.architecture_count == 9**10 * 10**10
    assert len(space.candidate_labels) == 20 and len(space.block_names) == 20


def test_space_from_dict_and_overridden_input():
    space = sslat.SearchSpace(TINY_SPACE, batch=4, height=64, width=64)
    assert space.input_shape == (4, 3, 64, 64)
    assert space.candidate_counts == [3, 2]
    assert space.arch == [1, 0] and space.current_arch == [1, 0]


@pytest.mark.parametrize("latency_type", ["mac", "mac_thop", "mac_fvcore", "mac_pthflops"])
def test_mac_table_statistics_equal_enumeration(latency_type, tiny_space):
    container = sslat.initialize_latency(latency_type, tiny_space)
    assert container.latency_type == latency_type and container.unit == "MMAC"
    every = brute_force(container)
    for arg in (tiny_space, container):  # a space with its latency, or the container itself
        assert sslat.min_latency(arg) == pytest.approx(min(every), rel=1e-12)
        assert sslat.max_latency(arg) == pytest.approx(max(every), rel=1e-12)
        assert sslat.mean_latency(arg) == pytest.approx(statistics.fmean(every), rel=1e-12)
    samples = sslat.sample_latencies(tiny_space, n=500, seed=7)
    assert len(samples) == 500
    assert all(any(abs(s - e) < 1e-9 for e in every) for s in samples)
    assert samples == sslat.sample_latencies(container, n=500, seed=7)  # reproducible
    assert sslat.median_latency(tiny_space, n=501, seed=3) == pytest.approx(
        statistics.median(sslat.sample_latencies(tiny_space, n=501, seed=3)))
    table = container.operations_latencies
    arch = [2, 1]
    expected = container.constant_latency + table[0][2] + table[1][1]
    assert sslat.current_latency(container, arch) == pytest.approx(expected)
    tiny_space.current_arch = arch
    assert sslat.current_latency(tiny_space) == pytest.approx(expected)
    assert sslat.best_arch_latency(tiny_space) == pytest.approx(
        container.constant_latency + table[0][1] + table[1][0])
    assert sslat.current_latency(tiny_space, sslat.argmin_arch(tiny_space)) == pytest.approx(min(every))
    assert sslat.current_latency(tiny_space, sslat.argmax_arch(tiny_space)) == pytest.approx(max(every))


def test_ignore_modules_drops_op_kinds_from_the_count(tiny_space):
    full = sslat.initialize_latency("mac_thop", tiny_space)
    without_bn = sslat.initialize_latency("mac_thop", tiny_space, ignore_modules=["batchnorm"])
    assert without_bn.metadata["calculator.ignore"] == "batchnorm"
    assert sslat.min_latency(without_bn) < sslat.min_latency(full)


def test_inputs_shape_or_tensor_like_override_the_space_input(tiny_space):
    class TensorLike:
        shape = (8, 3, 64, 64)

    base = sslat.initialize_latency("mac", tiny_space)
    bigger = sslat.initialize_latency("mac", tiny_space, inputs=TensorLike(),
                                      get_base_samples=lambda inputs, keyword_inputs: 1)
    assert tiny_space.input_shape == (8, 3, 64, 64)
    assert bigger.input_shape == (8, 3, 64, 64)
    # MACs scale with batch x pixels: 8 x 4 = 32 (the fc layer after gap scales with batch only)
    ratio = sslat.min_latency(bigger) / sslat.min_latency(base)
    assert 8 < ratio <= 32
    # ENOT's default: per sample (divided by the input's batch), so only the pixels count
    per_sample = sslat.initialize_latency("mac", tiny_space, inputs=TensorLike())
    assert per_sample.metadata["base_samples"] == "8"
    assert sslat.min_latency(per_sample) == pytest.approx(sslat.min_latency(bigger) / 8, rel=1e-12)
    assert sslat.min_latency(tiny_space) == sslat.min_latency(per_sample)  # the attached one too
    with pytest.raises(ValueError, match="channels"):
        sslat.initialize_latency("mac", tiny_space, inputs=(1, 4, 32, 32))
    with pytest.raises(ValueError, match="4-d"):
        sslat.initialize_latency("mac", tiny_space, inputs=(3, 32, 32))


def test_reset_latency_detaches_and_statistics_then_say_why(tiny_space):
    sslat.initialize_latency("mac", tiny_space)
    assert tiny_space.latency is not None
    sslat.reset_latency(tiny_space)
    assert tiny_space.latency is None
    with pytest.raises(ValueError, match="no latency attached"):
        sslat.min_latency(tiny_space)


def test_attach_latency_checks_the_space(tiny_space):
    other = sslat.SearchSpace(EXAMPLES / "proxylessnas.json")
    table = sslat.initialize_latency("mac", other)
    with pytest.raises(sslat.SslatError) as caught:
        sslat.attach_latency(tiny_space, table)
    assert caught.value.status_name == "space" and "proxylessnas" in str(caught.value)
    sslat.attach_latency(other, table)
    assert sslat.min_latency(other) == sslat.min_latency(table)


def test_container_constructor_properties_and_round_trips(tmp_path):
    container = sslat.SearchSpaceLatencyContainer("mac", 1.5, [[1.0, 2.0], [0.25, 0.5, 0.75]])
    assert container.latency_type == "mac"
    assert container.constant_latency == 1.5
    assert container.operations_latencies == [[1.0, 2.0], [0.25, 0.5, 0.75]]
    assert sslat.min_latency(container) == 2.75 and sslat.max_latency(container) == 4.25
    data = container.save_to_bytes()
    again = sslat.SearchSpaceLatencyContainer.load_from_bytes(data)
    assert again.operations_latencies == container.operations_latencies
    assert again.save_to_bytes() == data  # bit-exact
    for name in ("table.sslat", "table.json", "table.pkl"):
        path = tmp_path / name
        container.save_to_file(path)
        loaded = sslat.SearchSpaceLatencyContainer.load_from_file(path)
        assert loaded.constant_latency == 1.5
        assert loaded.operations_latencies == container.operations_latencies
    assert (tmp_path / "table.sslat").read_bytes() == data
    rows = container.to_csv().splitlines()
    assert rows[0].startswith("block,block_name,candidate,label,value")
    assert [row.split(",")[4] for row in rows[-5:]] == ["1", "2", "0.25", "0.5", "0.75"]


def test_corrupt_bytes_and_files_raise_the_library_message(tmp_path):
    container = sslat.SearchSpaceLatencyContainer("mac", 1.0, [[1.0, 2.0]])
    data = bytearray(container.save_to_bytes())
    data[-1] ^= 0x01
    with pytest.raises(sslat.SslatError) as caught:
        sslat.SearchSpaceLatencyContainer.load_from_bytes(bytes(data))
    assert "checksum" in str(caught.value).lower() or "crc" in str(caught.value).lower()
    bad = tmp_path / "bad.sslat"
    bad.write_bytes(bytes(data[:20]))
    with pytest.raises(sslat.SslatError, match="bad.sslat"):
        sslat.SearchSpaceLatencyContainer.load_from_file(bad)
    with pytest.raises(sslat.SslatError) as caught:
        sslat.SearchSpace({"sslat": 1, "input": {"shape": [3, 8, 8]}, "layers": ["bogus"]})
    assert "layers[0]" in str(caught.value) and caught.value.status_name == "space"
    with pytest.raises(sslat.SslatError) as caught:
        sslat.SearchSpace(tmp_path / "missing.json")
    assert caught.value.status_name == "io" and "missing.json" in str(caught.value)


def test_bad_arguments_are_python_exceptions(tiny_space):
    with pytest.raises(sslat.SslatError, match="unknown latency type"):
        sslat.initialize_latency("nope", tiny_space)
    with pytest.raises(TypeError, match="unexpected keyword"):
        sslat.initialize_latency("mac", tiny_space, warmup=3)
    with pytest.raises(ValueError, match="keyword_inputs"):
        sslat.initialize_latency("mac", tiny_space, keyword_inputs={"x": 1})
    with pytest.raises(sslat.SslatError, match="dtype"):
        sslat.initialize_latency("mac", tiny_space, dtype="fp8")
    with pytest.raises(sslat.SslatError, match="layout"):
        sslat.initialize_latency("mac", tiny_space, layout="chwn")
    with pytest.raises(sslat.SslatError, match="device"):
        sslat.initialize_latency("mac", tiny_space, device="gpu0")
    with pytest.raises(ValueError, match="mode"):
        sslat.initialize_latency("mac", tiny_space, mode="lazy")
    with pytest.raises(TypeError, match="get_base_samples"):
        sslat.initialize_latency("mac", tiny_space, get_base_samples=True)
    sslat.initialize_latency("mac", tiny_space)
    with pytest.raises(sslat.SslatError):
        sslat.current_latency(tiny_space, [0])  # wrong length
    with pytest.raises(sslat.SslatError):
        sslat.current_latency(tiny_space, [5, 0])  # out of range
    with pytest.raises(TypeError):
        sslat.min_latency("not a table")


def test_quantiles_cdf_counts_and_budget(tiny_space):
    mac = sslat.initialize_latency("mac", tiny_space)
    every = sorted(brute_force(mac))
    estimate, bound = sslat.latency_quantile(mac, 0.5)
    exact = every[(len(every) + 1) // 2 - 1]  # smallest L with P(<= L) >= 0.5
    assert abs(estimate - exact) <= bound + 1e-9
    budget = every[3]
    low, high = sslat.latency_cdf(mac, budget)
    assert low <= 4 / len(every) <= high
    low, high = sslat.count_under_budget(mac, budget)
    assert low <= 4 <= high
    thop = sslat.SearchSpaceLatencyContainer.load_from_bytes(
        sslat.initialize_latency("mac_thop", tiny_space).save_to_bytes())
    arch, latency, value, slack = sslat.budget_maximize(mac, thop, budget)
    assert latency <= budget and sslat.current_latency(mac, arch) == pytest.approx(latency)
    assert value == pytest.approx(sslat.current_latency(thop, arch))


def test_cpu_calculator_measures_every_candidate(tiny_space):
    container = sslat.initialize_latency("cpu", tiny_space, warmup_iterations=2, run_iterations=3,
                                         threads=1, seed=11)
    assert container.latency_type == "cpu" and container.unit == "ms"
    meta = container.metadata
    assert meta["calculator.run_iterations"] == "3" and meta["dtype"] == "fp32"
    table = container.operations_latencies
    assert all(v > 0 for v in table[0][:2] + table[1])
    assert table[0][2] == 0.0  # skip costs nothing
    entry = container.entry(0, 1)
    assert entry["samples"] >= 3 and entry["min"] <= entry["median"] <= entry["max"]
    assert container.constant_latency > 0
    every = brute_force(container)
    assert sslat.min_latency(tiny_space) == pytest.approx(min(every))
    assert sslat.max_latency(tiny_space) == pytest.approx(max(every))
    assert sslat.mean_latency(tiny_space) == pytest.approx(statistics.fmean(every))
    assert min(every) - 1e-12 <= sslat.median_latency(tiny_space, n=100, seed=1) <= max(every) + 1e-12
    assert len(sslat.sample_latencies(tiny_space, n=10)) == 10
    assert sslat.best_arch_latency(tiny_space) == pytest.approx(
        container.constant_latency + table[0][1] + table[1][0])
    loaded = sslat.SearchSpaceLatencyContainer.load_from_bytes(container.save_to_bytes())
    assert loaded.metadata == meta and loaded.operations_latencies == table
    # hot by default, with a quality verdict whatever the machine's load
    assert meta["calculator.cache"].startswith("hot:")
    assert meta["quality.verdict"] in ("ok", "noisy", "disturbed")


def test_cpu_calculator_measures_cold_on_request(tiny_space):
    container = sslat.initialize_latency("cpu", tiny_space, warmup_iterations=1, run_iterations=3, threads=1,
                                         cold=True)
    assert container.metadata["calculator.cache"].startswith("cold:")
    assert "interleaved" in container.metadata["calculator.schedule"]
    with pytest.raises(sslat.SslatError, match="timed calculators"):
        sslat.initialize_latency("mac", tiny_space, cold=True)


def test_cpu_calculator_refuses_other_dtypes(tiny_space):
    with pytest.raises(sslat.SslatError) as caught:
        sslat.initialize_latency("cpu", tiny_space, dtype="fp16", run_iterations=1)
    assert caught.value.status_name == "unsupported" and "fp16" in str(caught.value)


def test_cuda_without_a_device_is_a_clear_error(tiny_space):
    if "cuda" in sslat.available_calculators():
        pytest.skip("a CUDA device is present")
    with pytest.raises(sslat.SslatError) as caught:
        sslat.initialize_latency("cuda", tiny_space)
    assert "cuda" in str(caught.value)


def test_default_space_is_the_built_in_one():
    space = sslat.SearchSpace.default(batch=2)
    assert space.input_shape[0] == 2 and space.block_count > 0
    assert space.current_arch == space.arch
    assert sslat.min_latency(sslat.initialize_latency("mac", space)) > 0


def test_context_mode_refits_a_timed_table_to_whole_architectures(tiny_space):
    if "cpu" not in sslat.available_calculators():
        pytest.skip("no cpu calculator in this build")
    table = sslat.initialize_latency("cpu", tiny_space, context=6, run_iterations=2, warmup_iterations=1,
                                     threads=1)
    assert table.metadata["context.architectures"] == "6"
    assert float(table.metadata["context.rms_fitted_ms"]) <= float(table.metadata["context.rms_isolated_ms"]) * (1 + 1e-9)
    assert all(table.entry(b, c)["samples"] >= 1 for b, n in enumerate(table.candidate_counts) for c in range(n))
    with pytest.raises(sslat.SslatError, match="context"):
        sslat.initialize_latency("mac", tiny_space, context=6)
    with pytest.raises(sslat.SslatError, match="context mode needs"):
        sslat.initialize_latency("cpu", tiny_space, context=1, run_iterations=2)
