"""The reference runtimes of `sslat validate --reference R` and
`sslat measure --context N --reference R`.

sslat embeds this file and runs it with the project's Python (SSLAT_PYTHON,
else build/python-venv, else python3): it times whole architectures in a
runtime that did not produce the table. It reads a manifest

    {"runtime": "onnxruntime" | "torch" | "torch-default" | "torch-compile",
     "device": "cpu" | "cuda", "threads": T,
     "warmup": W, "runs": R, "dtype": "fp32", "channels_last": false,
     "fold_bn": false, "schedule": "interleaved" | "back_to_back",
     "models": [{"onnx": PATH, "graph": PATH, "input": [N, C, H, W]}, ...]}

On cuda every runtime is timed the way the cuda table is: each network one
CUDA graph, its replays timed by CUDA events, the table's dtype and layout;
fold_bn folds each BN into the conv before it, as a fused-mode table.
  torch          cudnn.benchmark on (cuDNN times its algorithms), TF32 only
                 for a tf32 table: the settings sslat's own cuda runs mirror;
  torch-default  PyTorch's defaults: cudnn.benchmark off (heuristic choice),
                 TF32 on for cuDNN convolutions (off for matmuls);
  torch-compile  torch.compile (Inductor, default mode) with torch's settings;
                 each network compiled once, its compile time reported apart
                 ("compile_s") and never timed;
  onnxruntime    the CUDA provider (exhaustive cuDNN search, TF32 only for a
                 tf32 table, NHWC for an NHWC table), IO binding to device
                 buffers, ONNX Runtime's own CUDA graph, on a stream PyTorch
                 made so PyTorch's CUDA events on it time the provider's work
                 (fp32 models: the ONNX export's).

times every model the way the table was timed: "interleaved" (a cold-cache
table) warms every model up W times, then runs R rounds of one timed run per
model, so each model's weights were evicted by the others since its last run;
"back_to_back" (a hot-cache table, and what a benchmark loop over one model
measures) warms each model up W times and then runs it in a row, in 5 passes
over the models of R/5 runs each (warmed up again each pass), so the machine's
drift spreads over all of them. It prints {"runtime": "...", "ms": [median per sample of each model],
"watch": {what the machine let the runs do: see Watch}, "compile_s": [seconds per model]
(torch-compile only)} on stdout. Exit 3: the runtime is not installed (what to install is said); exit 1:
the runtime failed (its message is passed on).

The torch runtime builds each network with `interpreter` and `fold_batchnorm`
of python/sslat/_ir_torch.py (the interpreter sslat.torch.to_module uses):
the command embeds that file ahead of this one (CMakeLists.txt), so they are
defined above when this runs.
"""
import json
import os
import statistics
import sys
import time

PREFIX = "sslat validate --reference"


def fail(code, message):
    sys.stderr.write("%s: %s\n" % (PREFIX, message))
    sys.exit(code)


def import_or_explain(module, package):
    try:
        return __import__(module)
    except ImportError as error:
        fail(3, "%s is not installed for %s (%s): pip install %s into that environment "
                "(bash scripts/setup.sh puts onnxruntime into build/python-venv), or point SSLAT_PYTHON at a "
                "Python that has it" % (package, sys.executable, error, package))


def timed(run, synchronize, watch):
    """One run's ms. A runner that times itself (CUDA events) returns its ms
    as a float; one that returns None is timed by the host clock around it
    (and synchronize)."""
    start = time.perf_counter()
    ms = run()
    if synchronize:
        synchronize()
    watch.stall()
    if ms is None:
        return (time.perf_counter() - start) * 1e3
    if not isinstance(ms, float):
        raise TypeError("a runner returned %r, not its ms or None" % type(ms).__name__)
    return ms


def warm(run, warmup, synchronize):
    for _ in range(max(warmup, 1)):
        run()
    if synchronize:
        synchronize()


class Watch:
    """What the machine let the reference runs do, judged as sslat judges a
    cpu table's samples (host/interference.h): every batch of timed runs (a
    round, or one model's runs in a pass) is bracketed by two looks at this
    process's CPU time, its threads' run delay (/proc/self/task/*/schedstat)
    and /proc/stat (steal, runnable tasks). A batch is disturbed when the
    threads waited for a CPU more than 10 % of the time, when one worker
    thread got less than 90 % of the wall time (judged for one thread only,
    whose clock is exact), or when more than 5 % of the machine's time was
    stolen (judged once the batch spans 100 ticks of the machine's time:
    /proc/stat counts in 10 ms ticks). At the start and the end: the cores other processes kept busy,
    and a calibration loop on this thread (its drift, and whether its core
    was shared). On cuda the networks are timed by CUDA events: the worker
    share is not judged there (the host thread waits for the GPU)."""

    MAX_WAIT, MIN_SHARE, MAX_STEAL = 0.10, 0.90, 0.05
    MIN_TICKS = 100  # machine time (all CPUs) a batch needs before its steal share is judged

    def __init__(self, workers, judge_share):
        self.workers = max(1, workers)
        self.judge_share = judge_share and self.workers == 1
        self.batches = self.disturbed = 0
        self.share_sum = self.wait_sum = 0.0
        self.worst_share, self.worst_wait, self.worst_steal, self.most_others = 1.0, 0.0, 0.0, 0
        self.busy, self.calibration = [], []
        # a test's injected stall of the timing thread (as the table's tests do): ms slept inside each timed run
        self.stall_s = float(os.environ.get("SSLAT_REFERENCE_TEST_STALL_MS", "0") or 0) / 1e3

    @staticmethod
    def machine():
        """(total, idle, steal, procs_running) from /proc/stat, or None."""
        try:
            with open("/proc/stat") as file:
                lines = file.read().splitlines()
        except OSError:
            return None
        cpu = [int(v) for v in lines[0].split()[1:9]] if lines and lines[0].startswith("cpu ") else None
        running = next((int(line.split()[1]) for line in lines if line.startswith("procs_running ")), 0)
        if cpu is None or len(cpu) < 8:
            return None
        return sum(cpu), cpu[3] + cpu[4], cpu[7], running

    @staticmethod
    def wait_ms():
        total = 0
        try:
            for task in os.listdir("/proc/self/task"):
                try:
                    with open("/proc/self/task/%s/schedstat" % task) as file:
                        total += int(file.read().split()[1])
                except (OSError, IndexError, ValueError):
                    pass  # the thread ended meanwhile
        except OSError:
            return None
        return total / 1e6

    def look(self):
        return time.perf_counter() * 1e3, time.process_time() * 1e3, self.wait_ms(), self.machine()

    def batch(self, before):
        after = self.look()
        wall = after[0] - before[0]
        share = (after[1] - before[1]) / (wall * self.workers) if wall > 0 else 1.0
        wait = 0.0
        if wall > 0 and before[2] is not None and after[2] is not None and after[2] > before[2]:
            wait = min(1.0, (after[2] - before[2]) / (wall * self.workers))
        steal, others = 0.0, 0
        if before[3] and after[3]:
            # /proc/stat counts in ticks (10 ms): a share of a few ticks is no figure
            if after[3][0] - before[3][0] >= self.MIN_TICKS and after[3][2] > before[3][2]:
                steal = (after[3][2] - before[3][2]) / (after[3][0] - before[3][0])
            others = max(0, after[3][3] - self.workers)
        if not self.judge_share:
            share = 1.0
        self.batches += 1
        self.share_sum += share
        self.wait_sum += wait
        self.worst_share, self.worst_wait = min(self.worst_share, share), max(self.worst_wait, wait)
        self.worst_steal, self.most_others = max(self.worst_steal, steal), max(self.most_others, others)
        if wait > self.MAX_WAIT or share < self.MIN_SHARE or steal > self.MAX_STEAL:
            self.disturbed += 1

    def stall(self):
        if self.stall_s > 0:
            time.sleep(self.stall_s)

    def busy_elsewhere(self):
        """Cores other processes kept busy over 50 ms while this one slept."""
        a, cpu_a, t_a = self.machine(), time.process_time(), time.perf_counter()
        time.sleep(0.05)
        b, cpu_b, t_b = self.machine(), time.process_time(), time.perf_counter()
        if not a or not b or b[0] <= a[0]:
            return 0.0
        total = b[0] - a[0]
        busy = total - max(b[1] - a[1], 0) - max(b[2] - a[2], 0)
        ours = (cpu_b - cpu_a) / (t_b - t_a) if t_b > t_a else 0.0
        return max(0.0, busy / total * (os.cpu_count() or 1) - ours)

    def calibrate(self):
        """A fixed loop on this thread: (best ms of 5, worst CPU / wall share)."""
        best, worst_share = float("inf"), 1.0
        for _ in range(5):
            wall, cpu = time.perf_counter(), time.thread_time()
            total = 0
            for i in range(300000):
                total += i * i
            wall, cpu = time.perf_counter() - wall, time.thread_time() - cpu
            best = min(best, wall * 1e3)
            if wall > 0:
                worst_share = min(worst_share, cpu / wall)
        return best, worst_share

    def begin(self):
        self.busy.append(self.busy_elsewhere())
        self.calibration.append(self.calibrate())

    def end(self, samples):
        self.busy.append(self.busy_elsewhere())
        self.calibration.append(self.calibrate())
        spreads = sorted(statistics.pstdev(s) / statistics.mean(s) for s in samples if len(s) > 1 and
                         statistics.mean(s) > 0)
        (start_ms, start_share), (end_ms, end_share) = self.calibration[0], self.calibration[-1]
        return {"batches": self.batches, "disturbed": self.disturbed, "workers": self.workers,
                "share_judged": self.judge_share,
                "mean_share": self.share_sum / self.batches if self.batches else 1.0,
                "worst_share": self.worst_share, "mean_wait": self.wait_sum / self.batches if self.batches else 0.0,
                "worst_wait": self.worst_wait, "worst_steal": self.worst_steal, "most_others": self.most_others,
                "busy_start": self.busy[0], "busy_end": self.busy[-1], "usable": len(os.sched_getaffinity(0)),
                "calibration_share": min(start_share, end_share), "drift": end_ms / start_ms if start_ms > 0 else 1.0,
                "cov_median": statistics.median(spreads) if spreads else None,
                "cov_worst": spreads[-1] if spreads else None}


PASSES = 5


def back_to_back(runners, batches, warmup, runs, watch, synchronize=None):
    """Samples (ms per sample) of each runner, its runs back to back: in
    PASSES passes over the models, each model warmed up again and then run a
    fifth of its runs in a row (one batch of the watch), so every model's runs
    are hot and the machine's slow and fast moments spread over all models."""
    samples = [[] for _ in runners]
    passes = max(1, min(PASSES, runs))
    for p in range(passes):
        share = runs // passes + (1 if p < runs % passes else 0)
        for k, run in enumerate(runners):
            warm(run, warmup if p == 0 else max(2, warmup // passes), synchronize)
            before = watch.look()
            samples[k].extend(timed(run, synchronize, watch) / batches[k] for _ in range(share))
            watch.batch(before)
        progress(p + 1, passes, "pass")
    return samples


def interleaved(runners, batches, warmup, runs, watch, synchronize=None):
    """Samples of each runner, over rounds of one run each (a round is one
    batch of the watch)."""
    for run in runners:
        warm(run, warmup, None)
    if synchronize:
        synchronize()
    samples = [[] for _ in runners]
    for round_index in range(runs):
        before = watch.look()
        for k, run in enumerate(runners):
            samples[k].append(timed(run, synchronize, watch) / batches[k])
        watch.batch(before)
        progress(round_index + 1, runs, "round")
    return samples


def progress(done, total, what):
    """One line rewritten on a terminal, a plain line a tenth elsewhere (logs)."""
    if sys.stderr.isatty():
        sys.stderr.write("\r[reference] %s %d/%d in the reference runtime " % (what, done, total))
        if done == total:
            sys.stderr.write("\n")
    elif done % max(total // 10, 1) == 0 or done == total:
        sys.stderr.write("[reference] %s %d/%d in the reference runtime\n" % (what, done, total))
    sys.stderr.flush()


def random_input(numpy, shape):
    return numpy.random.default_rng(0).uniform(-1, 1, size=shape).astype(numpy.float32)


def onnxruntime_runners(manifest):
    ort = import_or_explain("onnxruntime", "onnxruntime")
    numpy = import_or_explain("numpy", "numpy")
    cuda = manifest["device"] == "cuda"
    provider = "CUDAExecutionProvider" if cuda else "CPUExecutionProvider"
    if provider not in ort.get_available_providers():
        fail(3, "only the CPU build of ONNX Runtime is installed (its providers: %s): a cuda table's reference "
                "needs the CUDA provider: pip install onnxruntime-gpu" % ", ".join(ort.get_available_providers()))
    if cuda and manifest["dtype"] not in ("fp32", "tf32"):
        fail(2, "the ONNX export writes fp32 models: a %s table's reference is torch, torch-default or "
                "torch-compile" % manifest["dtype"])
    torch = import_or_explain("torch", "torch (its CUDA events time ONNX Runtime on cuda)") if cuda else None
    options = ort.SessionOptions()
    options.intra_op_num_threads = manifest["threads"]  # 0: ONNX Runtime's default (every core)
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    settings, stream = {}, None
    if cuda:
        # a stream of PyTorch's own (not the default stream, whose handle 0 would
        # turn the option off) given to the provider, so events recorded on it
        # bracket exactly the provider's work
        stream = torch.cuda.Stream()
        settings = {"device_id": str(torch.cuda.current_device()), "cudnn_conv_algo_search": "EXHAUSTIVE",
                    "use_tf32": "1" if manifest["dtype"] == "tf32" else "0",
                    "prefer_nhwc": "1" if manifest["channels_last"] else "0", "enable_cuda_graph": "1",
                    "has_user_compute_stream": "1", "user_compute_stream": str(stream.cuda_stream)}
    runners = []
    for model in manifest["models"]:
        try:
            session = ort.InferenceSession(model["onnx"], options, providers=[(provider, settings)])
        except Exception as error:  # the runtime's own message, whatever its type
            fail(1, "ONNX Runtime cannot load %s: %s" % (model["onnx"], error))
        if session.get_providers()[0] != provider:  # a provider that fails to load falls back with a warning only
            fail(1, "ONNX Runtime did not take %s for %s (it runs on %s): its CUDA libraries did not load"
                    % (provider, model["onnx"], ", ".join(session.get_providers())))
        x = random_input(numpy, model["input"])
        if not cuda:
            def run(session=session, feed={"input": x}):
                session.run(None, feed)  # None: timed by the host clock around it
        else:
            run = onnxruntime_cuda_runner(ort, numpy, torch, session, x, stream, model["onnx"])
        runners.append(run)
    threads = manifest["threads"] or "default"
    if cuda:
        name = ("onnxruntime %s (CUDAExecutionProvider: IO binding, ONNX Runtime's CUDA graph replays timed by CUDA "
                "events, cudnn_conv_algo_search EXHAUSTIVE, TF32 %s, %s, graph optimisations on, BN fused by ONNX "
                "Runtime)" % (ort.__version__, "on" if manifest["dtype"] == "tf32" else "off",
                              "prefer_nhwc" if manifest["channels_last"] else "NCHW"))
    else:
        name = "onnxruntime %s (%s, %s intra-op threads, graph optimisations on)" % (ort.__version__, provider,
                                                                                     threads)
    synchronize = torch.cuda.synchronize if cuda else None
    return name, runners, synchronize


def onnxruntime_cuda_runner(ort, numpy, torch, session, x, stream, path):
    """The input and output bound to device buffers that stay put (what
    ONNX Runtime's CUDA graph needs); the first run captures the graph, each
    later run replays it, timed between CUDA events on the provider's stream."""
    output = session.get_outputs()[0]
    if not all(isinstance(d, int) for d in output.shape):
        fail(1, "ONNX Runtime sees no fixed output shape (%s) to bind" % (output.shape,))
    device_input = ort.OrtValue.ortvalue_from_numpy(x, "cuda", torch.cuda.current_device())
    device_output = ort.OrtValue.ortvalue_from_shape_and_type(output.shape, numpy.float32, "cuda",
                                                              torch.cuda.current_device())
    binding = session.io_binding()
    binding.bind_ortvalue_input(session.get_inputs()[0].name, device_input)
    binding.bind_ortvalue_output(output.name, device_output)
    try:
        session.run_with_iobinding(binding)  # the capture
    except Exception as error:  # e.g. a node not on the CUDA provider: no CUDA graph
        fail(1, "ONNX Runtime cannot run %s as a CUDA graph: %s" % (path, error))
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def run(session=session, binding=binding, keep=(device_input, device_output, stream)):
        start.record(stream)
        session.run_with_iobinding(binding)
        stop.record(stream)
        stop.synchronize()
        return start.elapsed_time(stop)

    return run


def cuda_graph_runner(torch, module, x, pool):
    """The whole network captured once as a CUDA graph (after eager runs, so
    cuDNN's algorithms are chosen outside the capture); each run is one replay
    timed between CUDA events, as sslat's cuda calculator times its units.
    Every network's graph takes its memory from one pool: replays never run
    at once and no output is read, so the networks may reuse each other's
    intermediate buffers, and a thousand networks need one network's memory."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.inference_mode(), torch.cuda.stream(stream):
        for _ in range(3):
            module(x)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.inference_mode(), torch.cuda.graph(graph, pool=pool):
        module(x)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def run(module=module, x=x):  # the graph reads their memory: they live as long as it does
        start.record()
        graph.replay()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop)

    return run


def torch_settings(torch, manifest):
    """cuDNN's settings for the reference: torch and torch-compile those
    sslat's cuda runs mirror (benchmarking on, TF32 only for a tf32 table);
    torch-default PyTorch's own defaults. Returns them in words."""
    default = manifest["runtime"] == "torch-default"
    tf32 = default or manifest["dtype"] == "tf32"
    torch.backends.cudnn.benchmark = not default
    torch.backends.cudnn.allow_tf32 = tf32
    torch.backends.cuda.matmul.allow_tf32 = manifest["dtype"] == "tf32"
    return "cudnn.benchmark %s, TF32 %s for cuDNN convolutions%s" % (
        "off" if default else "on", "on" if tf32 else "off",
        ", PyTorch's defaults" if default else "")


def allow_many_compiles(torch, models):
    """Every network is compiled, none silently left eager: torch.compile
    keeps compiled code per function and, past its recompile limit, runs the
    function uncompiled with only a warning; each of these networks is one
    more compile of the interpreter's forward."""
    config = torch._dynamo.config
    for limit in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit",
                  "accumulated_recompile_limit"):
        if hasattr(config, limit):
            setattr(config, limit, max(getattr(config, limit), 8 * models + 64))
    for switch in ("fail_on_recompile_limit_hit", "fail_on_cache_limit_hit"):  # its name before torch 2.6
        if hasattr(config, switch):
            setattr(config, switch, True)


def compile_module(torch, module, x):
    """torch.compile (Inductor, default mode), compiled by its first runs;
    returns the compiled module and the seconds the compile took."""
    compiled = torch.compile(module)
    start = time.perf_counter()
    with torch.inference_mode():
        compiled(x)
        compiled(x)
    if x.is_cuda:
        torch.cuda.synchronize()
    return compiled, time.perf_counter() - start


def torch_runners(manifest):
    torch = import_or_explain("torch", "torch")
    device = manifest["device"]
    runtime = manifest["runtime"]
    if device == "cuda" and not torch.cuda.is_available():
        fail(3, "this PyTorch (%s) sees no CUDA device" % torch.__version__)
    if runtime == "torch-default" and device != "cuda":
        fail(2, "torch-default differs from torch only in cuDNN's settings: on cpu use torch")
    if manifest["threads"] > 0:
        torch.set_num_threads(manifest["threads"])
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(manifest["dtype"], torch.float32)
    settings = torch_settings(torch, manifest) if device == "cuda" else None
    compiling = runtime == "torch-compile"
    if compiling:
        allow_many_compiles(torch, len(manifest["models"]))
    layout = torch.channels_last if manifest["channels_last"] else torch.contiguous_format
    runners, compile_s = [], []
    pool = torch.cuda.graph_pool_handle() if device == "cuda" else None
    fold = manifest.get("fold_bn", False)
    architecture = interpreter(torch)  # noqa: F821 (python/sslat/_ir_torch.py, embedded ahead)
    for index, model in enumerate(manifest["models"]):
        with open(model["graph"]) as file:
            graph = json.load(file)
        try:
            module = architecture(graph).eval()
            if fold:
                module = fold_batchnorm(torch, module)  # noqa: F821 (as above)
            module = module.to(device=device, dtype=dtype, memory_format=layout)
        except Exception as error:
            fail(1, "PyTorch cannot build %s: %s" % (model["graph"], error))
        x = torch.empty(model["input"], device=device, dtype=dtype).uniform_(-1, 1).contiguous(memory_format=layout)
        if compiling:
            try:
                module, seconds = compile_module(torch, module, x)
            except Exception as error:
                fail(1, "torch.compile cannot compile %s: %s" % (model["graph"], error))
            compile_s.append(seconds)
            progress(index + 1, len(manifest["models"]), "compiled")

        def run(module=module, x=x):
            with torch.inference_mode():
                module(x)

        if device == "cuda":
            try:
                run = cuda_graph_runner(torch, module, x, pool)
            except Exception as error:
                fail(1, "PyTorch cannot capture %s as a CUDA graph: %s" % (model["graph"], error))
        runners.append(run)
    synchronize = torch.cuda.synchronize if device == "cuda" else None
    how = "CUDA graph replays timed by CUDA events" if device == "cuda" else "timed by the host clock"
    what = "torch.compile (Inductor, default mode)" if compiling else "eager modules"
    name = "%storch %s %s, %s (%s%s, %s threads%s%s)" % (
        "" if runtime == "torch" else runtime + ": ", torch.__version__, what, how,
        settings + ", " if settings else "", device, torch.get_num_threads(),
        ", channels_last" if manifest["channels_last"] else "", ", BN folded" if fold else "")
    return name, runners, synchronize, compile_s if compiling else None


def main():
    if len(sys.argv) != 2:
        fail(2, "usage: reference_runner.py MANIFEST.json")
    with open(sys.argv[1]) as file:
        manifest = json.load(file)
    make = {"onnxruntime": onnxruntime_runners, "torch": torch_runners, "torch-default": torch_runners,
            "torch-compile": torch_runners}.get(manifest["runtime"])
    if make is None:
        fail(2, "unknown runtime %r" % manifest["runtime"])
    made = make(manifest)
    name, runners, synchronize = made[:3]
    compile_s = made[3] if len(made) > 3 else None
    batches = [model["input"][0] for model in manifest["models"]]
    cuda = manifest["device"] == "cuda"
    workers = manifest["threads"] if manifest["threads"] > 0 else len(os.sched_getaffinity(0))
    watch = Watch(workers, judge_share=not cuda and manifest["threads"] > 0)
    try:
        schedule = back_to_back if manifest.get("schedule") == "back_to_back" else interleaved
        watch.begin()
        samples = schedule(runners, batches, manifest["warmup"], manifest["runs"], watch, synchronize)
        judged = watch.end(samples)
    except Exception as error:
        fail(1, "%s failed while running: %s" % (manifest["runtime"], error))
    how = "back to back" if manifest.get("schedule") == "back_to_back" else "interleaved"
    answer = {"runtime": "%s, %s" % (name, how), "ms": [statistics.median(s) for s in samples], "watch": judged}
    if compile_s is not None:
        answer["compile_s"] = compile_s
    json.dump(answer, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
