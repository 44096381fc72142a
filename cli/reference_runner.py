"""The reference runtimes of `sslat validate --reference onnxruntime|torch`.

sslat embeds this file and runs it with the project's Python (SSLAT_PYTHON,
else build/python-venv, else python3): it times whole architectures in a
runtime that did not produce the table. It reads a manifest

    {"runtime": "onnxruntime" | "torch", "device": "cpu" | "cuda", "threads": T,
     "warmup": W, "runs": R, "dtype": "fp32", "channels_last": false,
     "fold_bn": false, "schedule": "interleaved" | "back_to_back",
     "models": [{"onnx": PATH, "graph": PATH, "input": [N, C, H, W]}, ...]}

(torch on cuda: each network one CUDA graph, replays timed by CUDA events;
fold_bn folds each BN into the conv before it, as a fused-mode table.)

times every model the way the table was timed: "interleaved" (a cold-cache
table) warms every model up W times, then runs R rounds of one timed run per
model, so each model's weights were evicted by the others since its last run;
"back_to_back" (a hot-cache table, and what a benchmark loop over one model
measures) warms each model up W times and then runs it in a row, in 5 passes
over the models of R/5 runs each (warmed up again each pass), so the machine's
drift spreads over all of them. It prints {"runtime": "...", "ms": [median per sample of each model]} on
stdout. Exit 3: the runtime is not installed (what to install is said); exit 1:
the runtime failed (its message is passed on).

The torch runtime builds each network with `interpreter` and `fold_batchnorm`
of python/sslat/_ir_torch.py (the interpreter sslat.torch.to_module uses):
the command embeds that file ahead of this one (CMakeLists.txt), so they are
defined above when this runs.
"""
import json
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


def timed(run, synchronize):
    """One run's ms. A runner that times itself (CUDA events) returns its ms
    as a float; one that returns None is timed by the host clock around it
    (and synchronize)."""
    start = time.perf_counter()
    ms = run()
    if synchronize:
        synchronize()
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


PASSES = 5


def back_to_back(runners, batches, warmup, runs, synchronize=None):
    """Median ms per sample of each runner, its runs back to back: in PASSES
    passes over the models, each model warmed up again and then run a fifth of
    its runs in a row, so every model's runs are hot and the machine's slow and
    fast moments spread over all models."""
    samples = [[] for _ in runners]
    passes = max(1, min(PASSES, runs))
    for p in range(passes):
        share = runs // passes + (1 if p < runs % passes else 0)
        for k, run in enumerate(runners):
            warm(run, warmup if p == 0 else max(2, warmup // passes), synchronize)
            samples[k].extend(timed(run, synchronize) / batches[k] for _ in range(share))
        progress(p + 1, passes, "pass")
    return [statistics.median(s) for s in samples]


def interleaved(runners, batches, warmup, runs, synchronize=None):
    """Median ms per sample of each runner, over rounds of one run each."""
    for run in runners:
        warm(run, warmup, None)
    if synchronize:
        synchronize()
    samples = [[] for _ in runners]
    for round_index in range(runs):
        for k, run in enumerate(runners):
            samples[k].append(timed(run, synchronize) / batches[k])
        progress(round_index + 1, runs, "round")
    return [statistics.median(s) for s in samples]


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
    options = ort.SessionOptions()
    options.intra_op_num_threads = manifest["threads"]  # 0: ONNX Runtime's default (every core)
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    provider = "CUDAExecutionProvider" if manifest["device"] == "cuda" else "CPUExecutionProvider"
    if provider not in ort.get_available_providers():
        fail(3, "this onnxruntime has no %s (it has %s): pip install onnxruntime-gpu for cuda"
                % (provider, ", ".join(ort.get_available_providers())))
    runners = []
    for model in manifest["models"]:
        try:
            session = ort.InferenceSession(model["onnx"], options, providers=[provider])
        except Exception as error:  # the runtime's own message, whatever its type
            fail(1, "ONNX Runtime cannot load %s: %s" % (model["onnx"], error))
        feed = {"input": random_input(numpy, model["input"])}
        def run(session=session, feed=feed):
            session.run(None, feed)  # None: timed by the host clock around it

        runners.append(run)
    threads = manifest["threads"] or "default"
    name = "onnxruntime %s (%s, %s intra-op threads, graph optimisations on)" % (ort.__version__, provider, threads)
    return name, runners, None


def cuda_graph_runner(torch, module, x):
    """The whole network captured once as a CUDA graph (after eager runs, so
    cuDNN's algorithms are chosen outside the capture); each run is one replay
    timed between CUDA events, as sslat's cuda calculator times its units."""
    stream = torch.cuda.Stream()
    stream.wait_stream(torch.cuda.current_stream())
    with torch.inference_mode(), torch.cuda.stream(stream):
        for _ in range(3):
            module(x)
    torch.cuda.current_stream().wait_stream(stream)
    graph = torch.cuda.CUDAGraph()
    with torch.inference_mode(), torch.cuda.graph(graph):
        module(x)
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)

    def run(module=module, x=x):  # the graph reads their memory: they live as long as it does
        start.record()
        graph.replay()
        stop.record()
        stop.synchronize()
        return start.elapsed_time(stop)

    return run


def torch_runners(manifest):
    torch = import_or_explain("torch", "torch")
    device = manifest["device"]
    if device == "cuda" and not torch.cuda.is_available():
        fail(3, "this PyTorch sees no CUDA device")
    if manifest["threads"] > 0:
        torch.set_num_threads(manifest["threads"])
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(manifest["dtype"], torch.float32)
    if device == "cuda":
        torch.backends.cudnn.benchmark = True
        tf32 = manifest["dtype"] == "tf32"
        torch.backends.cudnn.allow_tf32 = tf32
        torch.backends.cuda.matmul.allow_tf32 = tf32
    layout = torch.channels_last if manifest["channels_last"] else torch.contiguous_format
    runners = []
    fold = manifest.get("fold_bn", False)
    architecture = interpreter(torch)  # noqa: F821 (python/sslat/_ir_torch.py, embedded ahead)
    for model in manifest["models"]:
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

        def run(module=module, x=x):
            with torch.inference_mode():
                module(x)

        if device == "cuda":
            try:
                run = cuda_graph_runner(torch, module, x)
            except Exception as error:
                fail(1, "PyTorch cannot capture %s as a CUDA graph: %s" % (model["graph"], error))
        runners.append(run)
    synchronize = torch.cuda.synchronize if device == "cuda" else None
    how = "CUDA graph replays between CUDA events" if device == "cuda" else "eager"
    name = "torch %s %s (%s, %s threads%s%s)" % (torch.__version__, how, device, torch.get_num_threads(),
                                               ", channels_last" if manifest["channels_last"] else "",
                                               ", BN folded" if fold else "")
    return name, runners, synchronize


def main():
    if len(sys.argv) != 2:
        fail(2, "usage: reference_runner.py MANIFEST.json")
    with open(sys.argv[1]) as file:
        manifest = json.load(file)
    make = {"onnxruntime": onnxruntime_runners, "torch": torch_runners}.get(manifest["runtime"])
    if make is None:
        fail(2, "unknown runtime %r" % manifest["runtime"])
    name, runners, synchronize = make(manifest)
    batches = [model["input"][0] for model in manifest["models"]]
    try:
        schedule = back_to_back if manifest.get("schedule") == "back_to_back" else interleaved
        ms = schedule(runners, batches, manifest["warmup"], manifest["runs"], synchronize)
    except Exception as error:
        fail(1, "%s failed while running: %s" % (manifest["runtime"], error))
    how = "back to back" if manifest.get("schedule") == "back_to_back" else "interleaved"
    json.dump({"runtime": "%s, %s" % (name, how), "ms": ms}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
