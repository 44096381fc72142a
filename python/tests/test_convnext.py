"""ConvNeXt spaces: LayerNorm over an image's channels, tokens back to an
image, the layer scale and the ConvNeXt block through the PyTorch
interpreter, the ONNX export and the MAC rules, each against what it stands
for (the plain-C reference, ONNX Runtime, thop, fvcore and pthflops on the
same network)."""
import pytest

import sslat
from test_onnx import SEED, expected_params, ir, learnable, needs, reference_command  # noqa: F401 (fixture)
from test_transformers import assert_each_mac_rule_equals_its_library, normalised_error, reference_output, write_space

# both block forms, a block on a non-square image, LayerNorm2d of a vector, both layer scale forms
CNX_LAYERS = ["conv_k4_s4_c16_bias", "ln",
              {"choice": ["cnx", "cnx_convmlp", "cnx_k3_e2_ngt", "skip"], "repeat": 2},
              "ln", "conv_k2_s2_c24_bias",
              {"choice": ["cnx_k5", "skip"]},
              "tokens", {"choice": ["scale", "scale_method"]}, "image_w3", "gap", "ln", "fc10"]
ARCHS = [[0, 1, 0, 0], [2, 3, 1, 1], [1, 2, 0, 1], [3, 0, 1, 0]]


@pytest.mark.parametrize("arch", ARCHS)
def test_the_pytorch_interpreter_computes_what_the_reference_computes(tmp_path, reference_command, arch):
    torch = pytest.importorskip("torch")
    import sslat.torch as st
    path = write_space(tmp_path, "cnx", CNX_LAYERS, shape=(3, 24, 36))
    space = sslat.SearchSpace(path)
    x, want = reference_output(reference_command, path, arch, tmp_path)
    with torch.no_grad():
        got = st.to_module(space, arch)(torch.from_numpy(x).reshape(space.input_shape)).numpy()
    assert normalised_error(got, want) < 1e-4


@pytest.mark.parametrize("arch", ARCHS[:2])
def test_the_onnx_export_loads_and_matches_the_reference(tmp_path, sslat_command, reference_command, arch):
    onnx = needs("onnx")
    ort = needs("onnxruntime")
    import numpy
    path = write_space(tmp_path, "cnx", CNX_LAYERS, shape=(3, 24, 36))
    space = sslat.SearchSpace(path)
    model_path = space.to_onnx(arch, tmp_path / "cnx.onnx")
    model = onnx.load(str(model_path))
    onnx.checker.check_model(model, full_check=True)
    kinds = {node.op_type for node in model.graph.node}
    assert {"LayerNormalization", "Transpose", "Mul"} <= kinds
    gammas = sum(int(numpy.prod(t.dims)) for t in model.graph.initializer if t.name.endswith(".gamma"))
    assert learnable(model) + gammas == expected_params(ir(sslat_command, path, 2), arch)
    x, want = reference_output(reference_command, path, arch, tmp_path)
    session = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    got = session.run(None, {"input": x.reshape(space.input_shape)})[0]
    assert normalised_error(got, want) < 1e-4


# ---- MAC rules against the libraries --------------------------------------------------------

def timm_convnext(conv_mlp):
    timm = pytest.importorskip("timm")
    return timm.models.convnext.ConvNeXt(in_chans=3, num_classes=10, depths=(1, 1, 1, 1), dims=DIMS,
                                         conv_mlp=conv_mlp).eval()


DIMS = (8, 16, 24, 32)


def convnext_twin(conv_mlp):
    block = "cnx_convmlp" if conv_mlp else "cnx"
    layers = ["conv_k4_s4_c%d_bias" % DIMS[0], "ln", block]
    for width in DIMS[1:]:
        layers += ["ln", "conv_k2_s2_c%d_bias" % width, block]
    return layers + ["gap", "ln", "fc10"]


def traceable_convnext(torch, conv_mlp):
    """timm's ConvNeXt as plain modules torch.fx can trace for pthflops (which
    counts no subclass of a mapped module with its own forward: LayerNorm2d),
    each op written as timm writes it."""
    nn = torch.nn

    class LayerNorm2d(nn.Module):  # permute, LayerNorm, permute back
        def __init__(self, dim):
            super().__init__()
            self.norm = nn.LayerNorm(dim, eps=1e-6)

        def forward(self, x):
            return self.norm(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)

    class Block(nn.Module):
        def __init__(self, dim):
            super().__init__()
            self.conv_dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
            self.norm = LayerNorm2d(dim) if conv_mlp else nn.LayerNorm(dim, eps=1e-6)
            linear = (lambda a, b: nn.Conv2d(a, b, 1)) if conv_mlp else nn.Linear
            self.fc1, self.act, self.fc2 = linear(dim, 4 * dim), nn.GELU(), linear(4 * dim, dim)
            self.gamma = nn.Parameter(torch.ones(dim))

        def forward(self, x):
            shortcut = x
            x = self.conv_dw(x)
            if conv_mlp:
                x = self.fc2(self.act(self.fc1(self.norm(x))))
            else:
                x = self.fc2(self.act(self.fc1(self.norm(x.permute(0, 2, 3, 1))))).permute(0, 3, 1, 2)
            return x.mul(self.gamma.reshape(1, -1, 1, 1)) + shortcut

    class ConvNeXt(nn.Module):
        def __init__(self):
            super().__init__()
            stages = [nn.Conv2d(3, DIMS[0], 4, 4), LayerNorm2d(DIMS[0]), Block(DIMS[0])]
            for before, width in zip(DIMS, DIMS[1:]):
                stages += [LayerNorm2d(before), nn.Conv2d(before, width, 2, 2), Block(width)]
            self.stages = nn.Sequential(*stages)
            self.pool, self.norm, self.fc = nn.AdaptiveAvgPool2d(1), LayerNorm2d(DIMS[-1]), nn.Linear(DIMS[-1], 10)

        def forward(self, x):
            return self.fc(self.norm(self.pool(self.stages(x))).flatten(1))

    return ConvNeXt().eval()


@pytest.mark.parametrize("conv_mlp", [False, True], ids=["linear", "conv_mlp"])
def test_each_mac_rule_equals_its_library_on_a_convnext(tmp_path, conv_mlp):
    torch = pytest.importorskip("torch")
    space = sslat.SearchSpace(write_space(tmp_path, "cnx_twin", convnext_twin(conv_mlp), shape=(3, 64, 64), batch=1))
    assert_each_mac_rule_equals_its_library(space, timm_convnext(conv_mlp), traceable_convnext(torch, conv_mlp),
                                            torch.zeros(1, 3, 64, 64))


@pytest.mark.parametrize("method", [False, True], ids=["operator", "method"])
def test_pthflops_counts_the_operator_layer_scale_and_not_the_method(tmp_path, method):
    torch = pytest.importorskip("torch")
    from test_torch_zoo import library_counts

    class Scaled(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.layer_scale = torch.nn.Parameter(torch.ones(8, 1, 1))  # torchvision's CNBlock

        def forward(self, x):
            x = self.conv(x)
            return x.mul(self.layer_scale) if method else self.layer_scale * x

    x = torch.zeros(1, 3, 8, 8)
    expected = library_counts(Scaled().eval(), x)["mac_pthflops"]
    if expected is None:
        pytest.skip("pthflops is not installed")
    path = write_space(tmp_path, "scaled", ["conv_k3_c8_bias", "scale_method" if method else "scale"], shape=(3, 8, 8),
                       batch=1)
    got = sslat.initialize_latency("mac_pthflops", sslat.SearchSpace(path),
                                   get_base_samples=lambda inputs, keywords: 1).constant_latency
    assert got * 1e6 == pytest.approx(expected)
    assert (expected > 8 * 8 * 8 * 28) == (not method)  # the conv and its bias alone: 8·8·8·(27 + 1)


def test_sslat_torch_reads_timms_convnext_as_the_ir_writes_it(tmp_path):
    pytest.importorskip("torch")
    import sslat.torch as st
    for conv_mlp in (False, True):
        model = timm_convnext(conv_mlp)
        space = st.to_space(model, (1, 3, 64, 64))
        assert space.param_count() == sum(p.numel() for p in model.parameters())
        ops = [node["op"] for node in space.architecture_graph()["nodes"]]
        scales = [node for node in space.architecture_graph()["nodes"] if node["op"] == "layer_scale"]
        assert len(scales) == 4 and {node["form"] for node in scales} == {"method"}  # x.mul(gamma.reshape(…))
        # back to an image 9 times: 5 LayerNorm2d (stem, 3 downsamples, the head) and in each of the 4
        # blocks its LayerNorm2d (conv_mlp) or the permute after its nn.Linear MLP
        assert ops.count("image") == 9 and ops.count("tokens") == 9 and ops.count("layernorm") == 9


def test_the_example_space_at_candidate_0_is_timms_convnext_atto():
    torch = pytest.importorskip("torch")
    timm = pytest.importorskip("timm")
    from conftest import EXAMPLES
    from test_torch_zoo import library_counts
    space = sslat.SearchSpace(EXAMPLES / "convnext_atto.json")
    model = timm.create_model("convnext_atto", pretrained=False).eval()
    arch = [0] * space.block_count
    assert space.param_count(arch) == sum(p.numel() for p in model.parameters())
    counts = library_counts(model, torch.zeros(space.input_shape))
    for rule in ("mac_thop", "mac_fvcore"):
        table = sslat.initialize_latency(rule, space, get_base_samples=lambda inputs, keywords: 1)
        got = table.constant_latency + sum(values[0] for values in table.operations_latencies)
        assert got * 1e6 == pytest.approx(counts[rule], rel=1e-9), rule
