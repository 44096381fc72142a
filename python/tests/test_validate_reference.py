"""sslat validate --reference onnxruntime|torch: a cpu table against runtimes
that did not produce it; what a missing or failing runtime looks like."""
import json
import os
import stat
import subprocess
import sys

import pytest

from conftest import TINY_SPACE


def cpu_table(tmp_path, sslat_command, space_json, name):
    """The space written as NAME.json and its cpu table NAME.sslat (1 thread, 3 runs)."""
    space = tmp_path / (name + ".json")
    space.write_text(json.dumps(space_json))
    table = tmp_path / (name + ".sslat")
    result = subprocess.run([sslat_command, "measure", "-c", "cpu", str(space), "--threads", "1", "--runs", "3",
                             "--warmup", "1", "-o", str(table)], capture_output=True, text=True)
    if result.returncode == 3:
        pytest.skip("the cpu calculator cannot run here: " + result.stderr)
    assert result.returncode == 0, result.stderr
    return space, table


@pytest.fixture
def tiny_table(tmp_path, sslat_command):
    return cpu_table(tmp_path, sslat_command, TINY_SPACE, "tiny")


def validate(sslat_command, space, table, *extra, env=None):
    return subprocess.run([sslat_command, "validate", "-c", "cpu", str(space), str(table), "-k", "3", "--runs", "3",
                           "--warmup", "1", "--json", *extra], capture_output=True, text=True,
                          env=dict(os.environ, **(env or {})))


def require_onnxruntime():
    """Skip without onnxruntime, unless the run requires it (SSLAT_REQUIRE_ONNX)."""
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        if os.environ.get("SSLAT_REQUIRE_ONNX"):
            pytest.fail("onnxruntime is required here")
        pytest.skip("onnxruntime is not installed")


def test_onnxruntime_times_the_same_architectures(tiny_table, sslat_command, tmp_path):
    require_onnxruntime()
    space, table = tiny_table
    # the runner uses this interpreter (the one with onnxruntime), as the project's environment would
    result = validate(sslat_command, space, table, "--reference", "onnxruntime", env={"SSLAT_PYTHON": sys.executable})
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["reference"] == "onnxruntime"
    assert report["runtime"].startswith("onnxruntime ") and "CPUExecutionProvider" in report["runtime"]
    assert "1 intra-op threads" in report["runtime"]  # the table's thread count
    # a hot table (the default) is checked against each model back to back
    assert report["runtime"].endswith(", back to back") and report["schedule"] == "back_to_back"
    rows = report["architectures"]
    labels = [row["label"] for row in rows]
    assert labels[:2] == ["min", "max"] and all(label.startswith("stratum ") for label in labels[2:])
    assert len({tuple(row["arch"]) for row in rows}) == len(rows)  # none twice
    assert all(row["mmac"] > 0 for row in rows)  # the MAC count beside each
    assert all(row["measured_ms"] > 0 and row["predicted_ms"] > 0 for row in rows)
    for key in ("mape", "within_5", "within_10", "bias", "kendall_tau", "spearman_rho", "bootstrap_resamples",
                "table_ranks_worse_than_macs"):
        assert key in report
    # under 10 architectures (this space has 6) no interval is given, not a degenerate one
    assert len(rows) < 10 and report["kendall_tau_interval"]["ci95"] == [None, None]
    assert report["table_against_macs"] == "unknown"
    assert report["mac"]["kendall_tau"]["value"] is not None
    assert report["table_predicts"] == "sslat"
    # self-validation still names itself
    own = validate(sslat_command, space, table)
    assert own.returncode == 0, own.stderr
    assert json.loads(own.stdout)["runtime"].startswith("sslat cpu")
    assert json.loads(own.stdout)["schedule"] == "back_to_back"
    # a cold table is checked interleaved, by both
    for reference in ("onnxruntime", "sslat"):
        cold = validate(sslat_command, space, table, "--reference", reference, "--cache", "cold",
                        env={"SSLAT_PYTHON": sys.executable})
        assert cold.returncode == 0, cold.stderr
        assert json.loads(cold.stdout)["schedule"] == "interleaved"
        assert json.loads(cold.stdout)["runtime"].endswith(", interleaved")
    # the report says who measured
    path = tmp_path / "v.json"
    path.write_text(result.stdout)
    page = tmp_path / "r.html"
    subprocess.run([sslat_command, "report", str(table), "--validation", str(path), "-o", str(page)], check=True)
    assert "Measured by onnxruntime " in page.read_text()


def test_torch_runs_where_installed_and_says_what_to_install_elsewhere(tiny_table, sslat_command):
    space, table = tiny_table
    result = validate(sslat_command, space, table, "--reference", "torch", env={"SSLAT_PYTHON": sys.executable})
    try:
        import torch  # noqa: F401
    except ImportError:
        assert result.returncode == 3, result.stderr
        assert "pip install torch" in result.stderr
        assert result.stdout == ""
        return
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["runtime"].startswith("torch ")


def test_torch_compile_compiles_each_network_once_and_times_it_apart(tiny_table, sslat_command):
    try:
        import torch  # noqa: F401
    except ImportError:
        pytest.skip("torch is not installed")
    space, table = tiny_table
    result = subprocess.run([sslat_command, "validate", "-c", "cpu", str(space), str(table), "-k", "0", "--runs", "3",
                             "--warmup", "1", "--reference", "torch-compile"], capture_output=True, text=True,
                            env=dict(os.environ, SSLAT_PYTHON=sys.executable))
    if result.returncode == 1 and "torch.compile cannot compile" in result.stderr:
        pytest.skip("torch.compile cannot compile here (no C++ toolchain for Inductor): " + result.stderr[-300:])
    assert result.returncode == 0, result.stderr
    first, second = result.stdout.splitlines()[:2]
    # the first line names the reference and its regime; the compile time is said apart from the timings
    assert first.startswith("reference torch-compile: torch ") and "torch.compile (Inductor" in first, first
    assert second.startswith("torch.compile: 2 networks compiled in ") and "outside every timing" in second, second


def test_a_missing_python_or_runtime_is_exit_3_naming_what_to_install(tiny_table, sslat_command, tmp_path):
    space, table = tiny_table
    result = validate(sslat_command, space, table, "--reference", "onnxruntime",
                      env={"SSLAT_PYTHON": str(tmp_path / "no" / "python")})
    assert result.returncode == 3 and "no Python" in result.stderr, result.stderr
    # a Python without onnxruntime: a bare venv
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(tmp_path / "bare")], check=True)
    bare = str(tmp_path / "bare" / "bin" / "python")
    result = validate(sslat_command, space, table, "--reference", "onnxruntime", env={"SSLAT_PYTHON": bare})
    assert result.returncode == 3, result.stderr
    assert "pip install onnxruntime" in result.stderr
    assert result.stdout == ""


def test_a_runtime_that_fails_passes_its_message_on(tiny_table, sslat_command, tmp_path):
    try:
        import onnxruntime  # noqa: F401
    except ImportError:
        pytest.skip("onnxruntime is not installed")
    space, table = tiny_table
    # a Python that empties the exported models before ONNX Runtime reads them (only when run
    # on the manifest: `python -c "import onnxruntime"`, the runtime check, runs untouched)
    wrapper = tmp_path / "python"
    wrapper.write_text("#!/bin/sh\n[ -f \"$2\" ] && for f in \"$(dirname \"$2\")\"/arch*.onnx; do : > \"$f\"; done"
                       "\nexec %s \"$@\"\n" % sys.executable)
    wrapper.chmod(wrapper.stat().st_mode | stat.S_IXUSR)
    result = validate(sslat_command, space, table, "--reference", "onnxruntime", env={"SSLAT_PYTHON": str(wrapper)})
    assert result.returncode == 1, result.stderr
    assert "ONNX Runtime cannot load" in result.stderr
    assert result.stdout == ""


def test_an_unknown_reference_is_bad_input(tiny_table, sslat_command):
    space, table = tiny_table
    result = validate(sslat_command, space, table, "--reference", "tensorflow")
    assert result.returncode == 2
    assert "onnxruntime, torch, torch-default, torch-compile" in result.stderr


def test_torch_default_is_a_cuda_reference_and_says_so(tiny_table, sslat_command):
    space, table = tiny_table
    result = validate(sslat_command, space, table, "--reference", "torch-default")
    assert result.returncode == 2
    assert "times on cuda only" in result.stderr and result.stdout == ""


def test_context_fitted_to_onnxruntime_records_it_and_predicts_it(tiny_table, sslat_command, tmp_path):
    require_onnxruntime()
    space, _ = tiny_table
    table = tmp_path / "fitted.sslat"
    env = dict(os.environ, SSLAT_PYTHON=sys.executable)
    result = subprocess.run([sslat_command, "measure", "-c", "cpu", str(space), "--threads", "1", "--runs", "5",
                             "--warmup", "1", "--context", "12", "--reference", "onnxruntime", "-o", str(table)],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 0, result.stderr
    assert "[context] 12 architectures end to end in onnxruntime" in result.stderr
    exported = subprocess.run([sslat_command, "export", str(table), "--json"], capture_output=True, text=True,
                              check=True)
    metadata = json.loads(exported.stdout)["metadata"]
    assert metadata["context.reference"].startswith("onnxruntime ")
    assert metadata["context.reference"].endswith(", back to back")
    assert metadata["context.architectures"] == "12"
    assert metadata["context.runtime"] == "onnxruntime"  # what the table now predicts, by name
    assert metadata["context.seed"].isdigit()  # so validate can leave the fitted architectures out
    # every figure says what it predicts: stats (text and JSON), and validate's header
    stats = subprocess.run([sslat_command, "stats", str(table)], capture_output=True, text=True, check=True)
    assert "predicts      onnxruntime 1." in stats.stdout, stats.stdout  # the runtime named once, with its version
    assert "(reference runs " in stats.stdout  # and what the machine let its runs do
    assert "calibrated by --context on 12 whole architectures" in stats.stdout
    stats_json = subprocess.run([sslat_command, "stats", str(table), "--json"], capture_output=True, text=True,
                                check=True)
    assert json.loads(stats_json.stdout)["predicts"]["runtime"] == "onnxruntime"
    budget = subprocess.run([sslat_command, "budget", str(table), "--limit", "1000"], capture_output=True, text=True)
    assert budget.returncode == 0, budget.stderr
    assert "as onnxruntime runs it" in budget.stdout + budget.stderr
    assert float(metadata["context.prior_scale"]) > 0
    # fitted to the runs it saw: no further from them than the isolated table (a loaded machine's noise
    # may keep a strong prior, so not an absolute bound)
    assert abs(float(metadata["context.bias_fitted"])) <= abs(float(metadata["context.bias_isolated"])) + 0.01
    # --reference alone, or an unknown runtime, is refused before anything runs
    alone = subprocess.run([sslat_command, "measure", "-c", "cpu", str(space), "--reference", "onnxruntime",
                            "-o", str(tmp_path / "x.sslat")], capture_output=True, text=True)
    assert alone.returncode == 2 and "give --context N too" in alone.stderr
    unknown = subprocess.run([sslat_command, "measure", "-c", "cpu", str(space), "--context", "12", "--reference",
                              "tvm", "-o", str(tmp_path / "x.sslat")], capture_output=True, text=True)
    assert unknown.returncode == 2 and "--reference is onnxruntime, torch, torch-default, torch-compile" in unknown.stderr
    # torch-default is PyTorch's cuDNN settings: refused for a cpu table before anything runs
    cpu_default = subprocess.run([sslat_command, "measure", "-c", "cpu", str(space), "--context", "12",
                                  "--reference", "torch-default", "-o", str(tmp_path / "x.sslat")],
                                 capture_output=True, text=True)
    assert cpu_default.returncode == 2 and "cuda only" in cpu_default.stderr
    assert not (tmp_path / "x.sslat").exists()


STALL = {"SSLAT_REFERENCE_TEST_STALL_MS": "4"}  # the runner's timing thread sleeps inside every timed run


def test_stalled_reference_runs_are_disturbed_said_everywhere_and_strict_exits_6(tiny_table, sslat_command):
    """An injected stall of the runner's timing thread (wall time the thread did
    not run, as the table's tests inject into its samples) makes the reference
    verdict disturbed: on stderr, in --json, in the text header; --strict exits
    6 after the output. The table's own verdict is repeated beside it."""
    require_onnxruntime()
    space, table = tiny_table
    env = dict(STALL, SSLAT_PYTHON=sys.executable)
    result = validate(sslat_command, space, table, "--reference", "onnxruntime", env=env)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    quality = report["reference_quality"]
    assert quality["verdict"] == "disturbed", quality
    assert "worker threads were not running for part of" in quality["cause"]
    assert "batches of runs" in quality["watch"]
    assert report["table_quality"]["verdict"] in ("ok", "noisy", "disturbed")
    assert "warning: reference quality DISTURBED" in result.stderr
    text = subprocess.run([sslat_command, "validate", "-c", "cpu", str(space), str(table), "-k", "3", "--runs", "3",
                           "--warmup", "1", "--reference", "onnxruntime", "--strict"], capture_output=True,
                          text=True, env=dict(os.environ, **env))
    assert text.returncode == 6, text.stderr
    assert "table quality " in text.stdout and "reference quality DISTURBED (" in text.stdout, text.stdout
    assert "MAPE" in text.stdout  # the figures are still written
    assert "--strict: the reference runs were disturbed" in text.stderr


def test_reference_runs_on_a_quiet_machine_are_judged_not_disturbed_by_construction(tiny_table, sslat_command):
    """Without the stall the same run has a verdict and its figures (the
    machine may be busy: any verdict, but the stall's cause is absent)."""
    require_onnxruntime()
    space, table = tiny_table
    result = validate(sslat_command, space, table, "--reference", "onnxruntime", env={"SSLAT_PYTHON": sys.executable})
    assert result.returncode == 0, result.stderr
    quality = json.loads(result.stdout)["reference_quality"]
    assert quality["verdict"] in ("ok", "noisy", "disturbed")
    assert "worker CPU" in quality["watch"] and "calibration drift" in quality["watch"]
    # sslat's own calculator as the reference: no runner, said so
    own = validate(sslat_command, space, table)
    assert own.returncode == 0, own.stderr
    assert json.loads(own.stdout)["reference_quality"] is None


def test_a_context_fit_to_stalled_runs_is_disturbed_in_its_metadata_and_strict_exits_6(tiny_table, sslat_command,
                                                                                        tmp_path):
    require_onnxruntime()
    space, _ = tiny_table
    table = tmp_path / "stalled.sslat"
    env = dict(os.environ, SSLAT_PYTHON=sys.executable, **STALL)
    result = subprocess.run([sslat_command, "measure", "-c", "cpu", str(space), "--threads", "1", "--runs", "3",
                             "--warmup", "1", "--context", "12", "--reference", "onnxruntime", "--strict", "-o",
                             str(table)], capture_output=True, text=True, env=env)
    assert result.returncode == 6, result.stderr
    assert "reference quality DISTURBED" in result.stderr
    assert "the reference runs it was fitted to were disturbed" in result.stderr
    assert table.exists()  # written, as --strict does for a disturbed table
    metadata = json.loads(subprocess.run([sslat_command, "export", str(table), "--json"], capture_output=True,
                                         text=True, check=True).stdout)["metadata"]
    assert metadata["context.quality.verdict"] == "disturbed"
    assert "worker threads were not running" in metadata["context.quality.cause"]
    # what the fit says of itself: its runs' verdict, whether they were enough, what it reordered
    assert metadata["context.enough"].split(":")[0] in ("yes", "more would help")
    assert metadata["context.swaps"].startswith("none: ") or "changed order" in metadata["context.swaps"]
    stats = subprocess.run([sslat_command, "stats", str(table)], capture_output=True, text=True, check=True).stdout
    assert "(reference runs disturbed)" in stats.splitlines()[2], stats  # the predicts line, third
    assert "fit           reference runs disturbed (" in stats, stats
    fit = json.loads(subprocess.run([sslat_command, "stats", str(table), "--json"], capture_output=True, text=True,
                                    check=True).stdout)["fit"]
    assert fit["reference_quality"] == "disturbed" and fit["enough"] and fit["swaps"]
    report = tmp_path / "report.html"
    subprocess.run([sslat_command, "report", str(table), "-o", str(report)], check=True, capture_output=True)
    assert "reference runs disturbed" in report.read_text()


@pytest.mark.parametrize("signal_name", ["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("reference", ["onnxruntime", "sslat"])
def test_a_signal_stops_validate_with_exit_4_and_removes_its_models(tiny_table, sslat_command, tmp_path, reference,
                                                                    signal_name):
    """Probe D6: SIGTERM left the exported models in the temp folder, SIGINT was
    ignored (exit 0). Started with SIGINT ignored, as `sslat validate ... &` is."""
    import signal
    import time
    if reference == "onnxruntime":
        require_onnxruntime()
    space, table = tiny_table
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    process = subprocess.Popen(
        [sslat_command, "validate", "-c", "cpu", str(space), str(table), "-k", "300", "--runs", "100000",
         "--warmup", "1", "--reference", reference], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, TMPDIR=str(scratch), SSLAT_PYTHON=sys.executable),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    if reference == "onnxruntime":  # once the runner has started, the models are all in the folder
        for line in process.stderr:
            if line.startswith("[reference]"):
                break
    time.sleep(1.0)
    assert process.poll() is None, "validate ended before the signal: give it more work"
    process.send_signal(getattr(signal, signal_name))
    try:
        process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        pytest.fail("validate did not stop within 60 s of %s" % signal_name)
    assert process.returncode == 4, process.stderr.read()
    # (onnxruntime's import writes its own .ses file there: not ours)
    left = [path.name for path in scratch.iterdir() if path.name.startswith("sslat")]
    assert left == [], "left behind: %s" % left


def wide_space_table(tmp_path, sslat_command, blocks, block):
    """A space of `blocks` copies of a 3-way block after a stem, and its cpu table."""
    stem = "cn_k3_s2_c%d_nr6" % block["c"]  # as wide as the blocks: their skip keeps the shape
    wide = dict(TINY_SPACE, name="wide", layers=[stem] + [block] * blocks + ["gap", "fc10"])
    wide.pop("arch")
    return cpu_table(tmp_path, sslat_command, wide, "wide")


def test_many_architectures_leave_no_model_behind(sslat_command, tmp_path):
    """Probe D6: the workspace once tracked 64 files, so -k 70 left its models in /tmp."""
    require_onnxruntime()
    # 3^6 = 729 architectures: 70 strata find more than 64 distinct ones
    space, table = wide_space_table(tmp_path, sslat_command, 6, {"choice": ["ir_k3_e1", "ir_k3_e3", "skip"], "c": 8,
                                                                "s": 1, "act": "relu6"})
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    result = subprocess.run([sslat_command, "validate", "-c", "cpu", str(space), str(table), "-k", "70", "--runs", "1",
                             "--warmup", "0", "--reference", "onnxruntime", "--json"], capture_output=True, text=True,
                            env=dict(os.environ, TMPDIR=str(scratch), SSLAT_PYTHON=sys.executable))
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["architectures"]) > 64
    assert [path.name for path in scratch.iterdir() if path.name.startswith("sslat")] == []


def fake_python(tmp_path, body):
    """A Python that passes the availability check (`python -c ...`) and, run
    on the manifest, does `body` (shell) instead of the reference runner."""
    script = tmp_path / "fake-python"
    script.write_text("#!/bin/sh\n[ \"$1\" = -c ] && exit 0\n" + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


WIDE_BLOCK = {"choice": ["ir_k3_e1", "ir_k3_e6", "skip"], "c": 16, "s": 1}


@pytest.fixture
def wide_table(tmp_path, sslat_command):
    """3^4 = 81 architectures: validate -k 12 runs 14."""
    return wide_space_table(tmp_path, sslat_command, 4, WIDE_BLOCK)


def answering(tmp_path, answer):
    """A fake runner answering answer(n) for the manifest's n models (a Python expression in n)."""
    return fake_python(tmp_path, "exec python3 -c 'import json, sys\n"
                                 "n = len(json.load(open(sys.argv[1]))[\"models\"])\n"
                                 "print(json.dumps(%s))' \"$2\"" % answer)


# what a broken runner answers, and what sslat must say of it
BAD_ANSWERS = [
    ('{"runtime": "x", "ms": [5e-324] * n}', "torch", "not a time of a network"),
    ('{"runtime": "x", "ms": [1e12] * n}', "torch", "not a time of a network"),
    ('{"runtime": "x", "ms": [1.0] * n, "compile_s": [1.0] * n}', "torch", "compiles nothing"),
    ('{"runtime": "x", "ms": [1.0] * n, "compile_s": [-5] * n}', "torch-compile", "compile time 0 is not 0 to"),
]


@pytest.mark.parametrize("answer,reference,says", BAD_ANSWERS)
def test_an_implausible_answer_is_refused_naming_the_runner(wide_table, sslat_command, tmp_path, answer, reference,
                                                            says):
    space, table = wide_table
    result = validate(sslat_command, space, table, "-k", "12", "--reference", reference,
                      env={"SSLAT_PYTHON": answering(tmp_path, answer)})
    assert result.returncode == 1, result.stderr
    assert says in result.stderr and "reference runner" in result.stderr, result.stderr
    assert result.stdout == ""


def test_a_runner_that_ignores_sigterm_is_killed_and_its_folder_removed(wide_table, sslat_command, tmp_path):
    import signal
    import time
    space, table = wide_table
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    # the runner makes a sub folder of its own in the workspace, then ignores SIGTERM
    python = fake_python(tmp_path, "mkdir \"$(dirname \"$2\")/sub\" && : > \"$(dirname \"$2\")/sub/f\"\n"
                                   "trap '' TERM INT\nwhile :; do sleep 1; done")
    process = subprocess.Popen([sslat_command, "validate", "-c", "cpu", str(space), str(table), "-k", "3",
                                "--reference", "torch"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, TMPDIR=str(scratch), SSLAT_PYTHON=python))
    deadline = time.time() + 30
    while not any(scratch.glob("sslat-reference-*/sub/f")) and time.time() < deadline:
        time.sleep(0.2)
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)  # the grace of 5 s, then SIGKILL to the runner
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 4, process.stderr.read()
    assert [path.name for path in scratch.iterdir() if path.name.startswith("sslat")] == []


def test_an_interrupted_context_run_is_exit_4(wide_table, sslat_command, tmp_path):
    import signal
    import time
    space, _ = wide_table
    python = fake_python(tmp_path, "exec sleep 60")
    out = tmp_path / "fitted.sslat"
    process = subprocess.Popen([sslat_command, "measure", "-c", "cpu", str(space), "--threads", "1", "--runs", "3",
                                "--warmup", "1", "--context", "6", "--reference", "torch", "-o", str(out)],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                               env=dict(os.environ, SSLAT_PYTHON=python))
    deadline = time.time() + 60
    for line in process.stderr:  # once the runner has started
        if line.startswith("[reference]") or time.time() > deadline:
            break
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=20)
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 4
    assert not out.exists()


def test_a_reference_given_twice_is_refused(wide_table, sslat_command, tmp_path):
    space, table = wide_table
    result = validate(sslat_command, space, table, "--reference", "torch", "--reference", "onnxruntime")
    assert result.returncode == 2 and "--reference" in result.stderr
    twice = subprocess.run([sslat_command, "measure", "-c", "cpu", str(space), "--context", "6", "--reference",
                            "torch", "--reference", "onnxruntime", "-o", str(tmp_path / "x.sslat")],
                           capture_output=True, text=True)
    assert twice.returncode == 2 and "--reference" in twice.stderr
