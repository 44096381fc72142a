"""ONNX export: every example space's default architecture and random ones are
valid models (onnx's full checker), load in ONNX Runtime, carry exactly the
space's parameters, and compute what the plain-C reference computes on the same
seeded input. Needs onnx, onnxruntime and numpy (scripts/setup.sh installs them
into the project's environment; SSLAT_REQUIRE_ONNX=1 turns a skip into a failure).
"""
import json
import os
import pathlib
import random
import subprocess

import pytest

from conftest import EXAMPLES, REPO, TINY_SPACE

SEED = 0x5EED  # the timed calculators' default seed (measure/parameters.h)


def needs(module):
    try:
        return __import__(module)
    except ImportError:
        if os.environ.get("SSLAT_REQUIRE_ONNX"):
            pytest.fail("%s is required here (pip install %s; scripts/setup.sh installs it)" % (module, module))
        pytest.skip("%s is not installed" % module)


@pytest.fixture
def reference_command():
    path = os.environ.get("SSLAT_REFERENCE", str(REPO / "build" / "tests" / "sslat_reference"))
    if not os.access(path, os.X_OK):
        pytest.fail("the reference helper is not at %s (set SSLAT_REFERENCE)" % path)
    return path


def ir(sslat_command, space_path, batch, resolution=None):
    extra = ["--resolution", str(resolution)] if resolution else []
    out = subprocess.run([sslat_command, "show", str(space_path), "--ir", "--batch", str(batch)] + extra,
                         capture_output=True, text=True, check=True).stdout
    return json.loads(out)


def expected_params(ir_json, arch):
    """Learnable parameters of the architecture, as sslat counts them."""
    total = 0
    for layer in ir_json["layers"]:
        pick = 0 if layer["block"] < 0 else arch[layer["block"]]
        total += sum(node["params"] for node in layer["candidates"][pick]["nodes"])
    return total


def learnable(model):
    """Initializers that are weights, biases or BN affine (not BN statistics or constants)."""
    import numpy
    return sum(int(numpy.prod(t.dims)) for t in model.graph.initializer
               if t.name.endswith(".weight") or t.name.endswith(".bias"))


def architectures(space, count, rng):
    chosen = [space.arch or [0] * space.block_count]
    for _ in range(count):
        chosen.append([rng.randrange(n) for n in space.candidate_counts])
    return chosen


SPACES = ["mobilenet_v2_space.json", "proxylessnas.json", "ofa_mobilenet_v3.json", "fbnet.json",
          "mobilenet_v2.json", "resnet18.json", "resnet50.json",
          "efficientnet_b0.json", "mobilenet_v3_large.json", "mnasnet1_0.json", "shufflenet_v2_x1_0.json",
          "yolov5s_ss.json", "yolov5s.json"]


@pytest.mark.parametrize("name", SPACES)
def test_every_example_matches_the_reference_in_onnx_runtime(name, tmp_path, sslat_command, reference_command):
    onnx = needs("onnx")
    ort = needs("onnxruntime")
    import numpy
    import sslat
    # batch and resolution overrides; 64x64 keeps the plain-C reference quick
    batch, resolution = 2, 64
    path = EXAMPLES / name
    space = sslat.SearchSpace(path, batch=batch, height=resolution, width=resolution)
    graph = ir(sslat_command, path, batch, resolution)
    rng = random.Random(name)
    for k, arch in enumerate(architectures(space, 2 if space.block_count else 0, rng)):
        model_path = tmp_path / ("%d.onnx" % k)
        if k % 2 == 0:  # the Python API and the command write the same model
            space.to_onnx(arch, model_path)
        else:
            subprocess.run([sslat_command, "export-onnx", str(path), "--batch", str(batch), "--resolution",
                            str(resolution), "--arch",
                            ",".join(map(str, arch)), "-o", str(model_path)], check=True, capture_output=True)
        model = onnx.load(str(model_path))
        onnx.checker.check_model(model, full_check=True)
        assert model.opset_import[0].version >= 17
        assert learnable(model) == expected_params(graph, arch), arch
        x_path, y_path = tmp_path / "x.f32", tmp_path / "y.f32"
        subprocess.run([reference_command, str(path), ",".join(map(str, arch)), str(SEED), str(batch),
                        str(resolution), str(x_path), str(y_path)], check=True)
        x = numpy.fromfile(x_path, dtype="<f4").reshape(space.input_shape)
        want = numpy.fromfile(y_path, dtype="<f4")
        session = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
        got = session.run(None, {"input": x})[0].reshape(-1)
        assert got.shape == want.shape
        error = numpy.linalg.norm(got - want) / max(numpy.linalg.norm(want), 1e-30)
        assert error < 1e-4, "%s arch %s: normalised error %g" % (name, arch, error)


def test_every_primitive_and_activation_matches(tmp_path, sslat_command, reference_command):
    """The operators the example spaces do not use (gelu, tanh, sigmoid, avgpool, ...)."""
    onnx = needs("onnx")
    ort = needs("onnxruntime")
    import numpy
    import sslat
    # 'same' padding one side more (an even kernel; TensorFlow's stride 2), then back to 20×20
    layers = ["conv_k4_c16_psame", "conv_k3_s2_c16_psame", "upsample", "cn_k3_c16_nre", "conv_k3_c16_g4_bias", "conv_k5_c16_d2", "bn", "relu6", "hswish", "hsigmoid",
              "sigmoid", "silu", "gelu", "tanh", "avgpool_k3_s2_p1", "maxpool_k3_s2", "shuffle_g4",
              "ir_k3_e2_se0.25_nhs", "er_k3_e2", "basic_c32", "bottleneck_c32", "sv2_s1_c32", "sv2_s2_c48",
              "upsample", "conv_k3_c16", "upsample_s3", "focus_k3_c16_nsw", "avgpool_k2_s2", "gap_mean", "fc12",
              "relu", "fc5"]
    spec = {"sslat": 1, "name": "primitives", "input": {"shape": [8, 20, 20], "batch": 2}, "layers": layers}
    space_path = tmp_path / "primitives.json"
    space_path.write_text(json.dumps(spec))
    space = sslat.SearchSpace(space_path)
    model_path = pathlib.Path(space.to_onnx([], tmp_path / "p.onnx"))
    model = onnx.load(str(model_path))
    onnx.checker.check_model(model, full_check=True)
    assert learnable(model) == expected_params(ir(sslat_command, space_path, 2), [])
    subprocess.run([reference_command, str(space_path), "", str(SEED), "2", "0", str(tmp_path / "x"),
                    str(tmp_path / "y")], check=True)
    x = numpy.fromfile(tmp_path / "x", dtype="<f4").reshape(space.input_shape)
    want = numpy.fromfile(tmp_path / "y", dtype="<f4")
    got = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"]).run(None, {"input": x})[0]
    error = numpy.linalg.norm(got.reshape(-1) - want) / numpy.linalg.norm(want)
    assert error < 1e-4, error


def test_two_fully_connected_heads_joined_load_and_match(tmp_path, reference_command):
    """A concat of two fc outputs once repeated a Reshape's name: the checker and ONNX Runtime refused the model."""
    onnx = needs("onnx")
    ort = needs("onnxruntime")
    import numpy
    import sslat
    spec = {"sslat": 1, "name": "heads", "input": {"shape": [3, 32, 32]},
            "layers": ["cn_c8", "gap", "fc10", {"op": "fc", "c": 12, "from": 1}, {"op": "concat", "from": [2, 3]}]}
    space_path = tmp_path / "heads.json"
    space_path.write_text(json.dumps(spec))
    model_path = pathlib.Path(sslat.SearchSpace(space_path).to_onnx([], tmp_path / "heads.onnx"))
    onnx.checker.check_model(onnx.load(str(model_path)), full_check=True)
    subprocess.run([reference_command, str(space_path), "", str(SEED), "1", "0", str(tmp_path / "x"),
                    str(tmp_path / "y")], check=True)
    x = numpy.fromfile(tmp_path / "x", dtype="<f4").reshape(1, 3, 32, 32)
    want = numpy.fromfile(tmp_path / "y", dtype="<f4")
    got = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"]).run(None, {"input": x})[0]
    assert got.shape == (1, 22, 1, 1)  # a concat is 4-D in the IR
    assert numpy.linalg.norm(got.reshape(-1) - want) / numpy.linalg.norm(want) < 1e-4


def test_bad_architectures_and_outputs_are_clear_errors_and_write_nothing(tmp_path, sslat_command):
    import sslat
    space = sslat.SearchSpace(TINY_SPACE)
    target = tmp_path / "m.onnx"
    with pytest.raises(sslat.InvalidArgumentError, match="2 blocks"):
        space.to_onnx([0], target)
    with pytest.raises(sslat.InvalidArgumentError, match="out of range: block 1"):
        space.to_onnx([0, 7], target)
    with pytest.raises(sslat.IoError):
        space.to_onnx([0, 0], tmp_path / "no" / "such" / "dir" / "m.onnx")
    assert not target.exists()
    # the command: a wrong length, an index out of range, an unwritable path, the input as output
    ofa = str(EXAMPLES / "ofa_mobilenet_v3.json")
    for args, code, says in ((["--arch", "0,1"], 2, "has 20 blocks"),
                             (["--arch", ",".join(["9"] * 20)], 2, "out of range"),
                             (["--arch", ",".join(["0"] * 20), "-o", str(tmp_path / "x" / "m.onnx")], 1, "m.onnx")):
        out = args if "-o" in args else args + ["-o", str(target)]
        result = subprocess.run([sslat_command, "export-onnx", ofa] + out, capture_output=True, text=True)
        assert result.returncode == code, result.stderr
        assert says in result.stderr
        assert not target.exists()
    copy = tmp_path / "space.json"
    copy.write_text((EXAMPLES / "mobilenet_v2.json").read_text())
    before = copy.read_bytes()
    result = subprocess.run([sslat_command, "export-onnx", str(copy), "-o", str(copy)], capture_output=True, text=True)
    assert result.returncode == 2 and "refusing" in result.stderr
    assert copy.read_bytes() == before
    # a space with blocks and no "arch" needs --arch
    result = subprocess.run([sslat_command, "export-onnx", str(EXAMPLES / "fbnet.json"), "-o", str(target)],
                            capture_output=True, text=True)
    assert result.returncode == 2 and "give --arch" in result.stderr
    assert not target.exists()
