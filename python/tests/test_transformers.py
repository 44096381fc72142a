"""Transformer spaces: token tensors, LayerNorm, attention, class and position
tokens through the PyTorch interpreter, the ONNX export and the MAC rules,
each against what it stands for (the plain-C reference, ONNX Runtime, thop,
fvcore and pthflops on the same network)."""
import json
import subprocess

import pytest

import sslat
from test_onnx import SEED, expected_params, ir, learnable, needs, reference_command  # noqa: F401 (fixture)

# every token op once, both attention forms, GELU's two forms, both token pools, a LayerNorm
# with its own epsilon (large enough to show) and a linear layer without bias
VIT_LAYERS = ["patch_k4_c24", "cls", "pos",
              {"choice": ["vit_h3_e2", "vit_h2_e1.5_explicit_ngt", "vit_h4_hd5", "skip"], "repeat": 2},
              "ln_eps0.25", "tokpool", "fc10"]
VIT_MEAN_LAYERS = ["patch_k4_c24", "pos", "vit_h3", "ln", "tokpool_mean", "fc7_nobias"]


def write_space(tmp_path, name, layers, shape=(3, 16, 16), batch=2):
    path = tmp_path / (name + ".json")
    path.write_text(json.dumps({"sslat": 1, "name": name, "input": {"shape": list(shape), "batch": batch},
                                "layers": layers}))
    return path


def reference_output(reference_command, space_path, arch, tmp_path):
    import numpy
    x_path, y_path = tmp_path / "x.f32", tmp_path / "y.f32"
    subprocess.run([reference_command, str(space_path), ",".join(map(str, arch)), str(SEED), "0", "0",
                    str(x_path), str(y_path)], check=True)
    return numpy.fromfile(x_path, dtype="<f4"), numpy.fromfile(y_path, dtype="<f4")


def normalised_error(got, want):
    import numpy
    return float(numpy.linalg.norm(got.reshape(-1) - want) / max(numpy.linalg.norm(want), 1e-30))


ARCHS = [[0, 1], [2, 3], [1, 2], [3, 0]]


def interpreted_and_matched(tmp_path, reference_command, path, arch):
    """sslat.torch.to_module of the architecture computes the reference's
    values in eval and in training mode (the spaces here have no dropout or
    BN); returns the module."""
    torch = pytest.importorskip("torch")
    import sslat.torch as st
    space = sslat.SearchSpace(path)
    x, want = reference_output(reference_command, path, arch, tmp_path)
    x = torch.from_numpy(x).reshape(space.input_shape)
    module = st.to_module(space, arch)
    with torch.no_grad():
        for mode in (False, True):
            assert normalised_error(module.train(mode)(x).numpy(), want) < 1e-4, "training" if mode else "eval"
    return module


@pytest.mark.parametrize("arch", ARCHS)
def test_the_pytorch_interpreter_computes_what_the_reference_computes(tmp_path, reference_command, arch):
    interpreted_and_matched(tmp_path, reference_command, write_space(tmp_path, "vit", VIT_LAYERS), arch)


def test_a_mean_pooled_head_matches_too(tmp_path, reference_command):
    torch = pytest.importorskip("torch")
    import sslat.torch as st
    path = write_space(tmp_path, "vit_mean", VIT_MEAN_LAYERS)
    space = sslat.SearchSpace(path)
    x, want = reference_output(reference_command, path, [], tmp_path)
    with torch.no_grad():
        got = st.to_module(space, []).eval()(torch.from_numpy(x).reshape(space.input_shape)).numpy()
    assert normalised_error(got, want) < 1e-4


def exported_to_onnx_and_matched(tmp_path, reference_command, path, arch):
    """The architecture exported to ONNX, passed by onnx's full checker and run
    in ONNX Runtime to the reference's values; returns the loaded model."""
    onnx = needs("onnx")
    ort = needs("onnxruntime")
    space = sslat.SearchSpace(path)
    model_path = space.to_onnx(arch, tmp_path / (path.stem + ".onnx"))
    model = onnx.load(str(model_path))
    onnx.checker.check_model(model, full_check=True)
    x, want = reference_output(reference_command, path, arch, tmp_path)
    session = ort.InferenceSession(str(model_path), providers=["CPUExecutionProvider"])
    got = session.run(None, {"input": x.reshape(space.input_shape)})[0]
    assert normalised_error(got, want) < 1e-4
    return model


def initializer_values(model, *suffixes):
    """How many values the model's initializers named …suffix hold."""
    import numpy
    return sum(int(numpy.prod(t.dims)) for t in model.graph.initializer if t.name.endswith(suffixes))


@pytest.mark.parametrize("layers,arch", [(VIT_LAYERS, [0, 1]), (VIT_LAYERS, [2, 3]), (VIT_MEAN_LAYERS, [])])
def test_the_onnx_export_loads_and_matches_the_reference(tmp_path, sslat_command, reference_command, layers, arch):
    path = write_space(tmp_path, "vit", layers)
    model = exported_to_onnx_and_matched(tmp_path, reference_command, path, arch)
    assert model.opset_import[0].version == 17
    assert "LayerNormalization" in {node.op_type for node in model.graph.node}
    tokens = initializer_values(model, ".cls_token", ".pos_embed")
    assert learnable(model) + tokens == expected_params(ir(sslat_command, path, 2), arch)


# ---- MAC rules against the libraries --------------------------------------------------------

def timm_vit(explicit):
    """timm's VisionTransformer, the twin of VIT_TWIN; explicit: its attention
    written q @ k.transpose (fused_attn False) instead of F.scaled_dot_product_attention."""
    timm = pytest.importorskip("timm")
    model = timm.models.vision_transformer.VisionTransformer(
        img_size=32, patch_size=8, in_chans=3, num_classes=10, embed_dim=48, depth=2, num_heads=3, mlp_ratio=4.0,
        qkv_bias=True, class_token=True, global_pool="token").eval()
    for block in model.blocks:
        block.attn.fused_attn = not explicit
    return model


def vit_twin(explicit):
    return ["patch_k8_c48", "cls", "pos"] + ["vit_h3" + ("_explicit" if explicit else "")] * 2 + \
        ["ln", "tokpool", "fc10"]


def traceable_vit(torch, explicit):
    """The same network as plain modules torch.fx can trace (pthflops cannot
    trace timm's: it unpacks x.shape), written as timm writes each op."""
    nn = torch.nn

    class Attention(nn.Module):
        def __init__(self, dim, heads, tokens):
            super().__init__()
            self.heads, self.width, self.tokens = heads, dim // heads, tokens
            self.scale = self.width ** -0.5
            self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)

        def forward(self, x):
            qkv = self.qkv(x).reshape(1, self.tokens, 3, self.heads, self.width).permute(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]  # pthflops 0.4.2 cannot run unbind (a tuple of values)
            if explicit:
                q = q * self.scale
                x = q @ k.transpose(-2, -1)
                x = x.softmax(dim=-1) @ v
            else:
                x = nn.functional.scaled_dot_product_attention(q, k, v)
            return self.proj(x.transpose(1, 2).reshape(1, self.tokens, self.heads * self.width))

    class Block(nn.Module):
        def __init__(self, dim, heads, tokens):
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(dim, eps=1e-6), nn.LayerNorm(dim, eps=1e-6)
            self.attn = Attention(dim, heads, tokens)
            self.fc1, self.act, self.fc2 = nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim)

        def forward(self, x):
            x = x + self.attn(self.norm1(x))
            return x + self.fc2(self.act(self.fc1(self.norm2(x))))

    class ViT(nn.Module):
        def __init__(self):
            super().__init__()
            self.proj = nn.Conv2d(3, 48, 8, 8)
            self.cls_token = nn.Parameter(torch.zeros(1, 1, 48))
            self.pos_embed = nn.Parameter(torch.zeros(1, 17, 48))
            self.blocks = nn.Sequential(Block(48, 3, 17), Block(48, 3, 17))
            self.norm, self.head = nn.LayerNorm(48, eps=1e-6), nn.Linear(48, 10)

        def forward(self, x):
            x = self.proj(x).flatten(2).transpose(1, 2)
            x = torch.cat((self.cls_token.expand(1, -1, -1), x), dim=1)
            x = x + self.pos_embed
            x = self.norm(self.blocks(x))
            return self.head(x[:, 0])

    return ViT().eval()


def assert_each_mac_rule_equals_its_library(space, model, twin, x):
    """The space against thop and fvcore on model and pthflops on twin, an FX-traceable
    copy of it (pthflops cannot trace the original, or would not count what runs)."""
    from test_torch_zoo import library_counts  # thop with its hooks for subclasses too: timm's LayerNorm
    assert space.param_count() == sum(p.numel() for p in model.parameters())
    assert sum(p.numel() for p in twin.parameters()) == space.param_count()
    counts = library_counts(model, x)
    counts["mac_pthflops"] = library_counts(twin, x)["mac_pthflops"]
    checked = 0
    for rule, expected in counts.items():
        if expected is None:
            continue
        got = sslat.initialize_latency(rule, space, get_base_samples=lambda inputs, keywords: 1).constant_latency
        assert got * 1e6 == pytest.approx(expected, rel=1e-12, abs=0.5), rule
        checked += 1
    assert checked == 3  # every library ran


@pytest.mark.parametrize("explicit", [False, True], ids=["fused", "explicit"])
def test_each_mac_rule_equals_its_library_on_a_vit(tmp_path, explicit):
    torch = pytest.importorskip("torch")
    space = sslat.SearchSpace(write_space(tmp_path, "vit_twin", vit_twin(explicit), shape=(3, 32, 32), batch=1))
    assert_each_mac_rule_equals_its_library(space, timm_vit(explicit), traceable_vit(torch, explicit),
                                            torch.zeros(1, 3, 32, 32))


def test_the_plain_rule_counts_attentions_two_products():
    # 2 blocks: qkv, proj, fc1, fc2 per token plus q·kᵀ and p·v per head; the patch conv and the head
    space_json = {"sslat": 1, "name": "t", "input": {"shape": [3, 32, 32]}, "layers": vit_twin(False)}
    space = sslat.SearchSpace.from_json(json.dumps(space_json))
    tokens, width = 17, 48
    per_block = tokens * width * (3 * width + width + 4 * width + 4 * width) + 2 * tokens * tokens * width
    conv = 16 * 48 * 3 * 64
    expected = conv + 2 * per_block + width * 10
    got = sslat.initialize_latency("mac", space, get_base_samples=lambda inputs, keywords: 1).constant_latency
    assert got * 1e6 == pytest.approx(expected)


def test_a_functional_linear_and_multihead_attention_are_read_as_the_counters_see_them():
    torch = pytest.importorskip("torch")
    import sslat.torch as st

    class Mixer(torch.nn.Module):  # F.linear inside a module that is no nn.Linear: thop and pthflops count nothing
        def __init__(self):
            super().__init__()
            self.weight = torch.nn.Parameter(torch.randn(12, 8) * 0.1)
            self.bias = torch.nn.Parameter(torch.zeros(12))

        def forward(self, x):
            return torch.nn.functional.linear(x.flatten(2).transpose(1, 2), self.weight, self.bias)

    x = torch.randn(1, 8, 4, 4)
    space = st.to_space(Mixer(), x)
    nodes = space.architecture_graph(None)["nodes"]
    assert [n["linear"].get("functional") for n in nodes if n["op"] == "linear"] == [True]
    for rule, expected in (("mac", 16 * 8 * 12), ("mac_thop", 0), ("mac_fvcore", 16 * 8 * 12), ("mac_pthflops", 0)):
        got = sslat.initialize_latency(rule, space, get_base_samples=lambda inputs, keywords: 1).constant_latency
        assert got * 1e6 == pytest.approx(expected), rule

    class Attend(torch.nn.Module):
        def __init__(self, need_weights):
            super().__init__()
            self.mha, self.need_weights = torch.nn.MultiheadAttention(8, 2, batch_first=True), need_weights

        def forward(self, x):
            x = x.flatten(2).transpose(1, 2)
            return self.mha(x, x, x, need_weights=self.need_weights)[0]

    ops = [n["op"] for n in st.to_space(Attend(False).eval(), x).architecture_graph(None)["nodes"]]
    assert ops == ["tokens", "linear", "attention", "linear"]
    with pytest.raises(st.MappingError, match="need_weights=True"):
        st.to_space(Attend(True).eval(), x)


def test_sslat_torch_maps_a_layernorm_epsilon_and_a_linear_without_bias():
    torch = pytest.importorskip("torch")
    import sslat.torch as st
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(3, 16, 4, 4)
            self.norm = nn.LayerNorm(16)  # nn.LayerNorm's own eps, 1e-5
            self.fc = nn.Linear(16, 8, bias=False)

        def forward(self, x):
            return self.fc(self.norm(self.conv(x).flatten(2).transpose(1, 2)))

    model = Net().eval()
    space = st.to_space(model, (1, 3, 16, 16))  # its check: the model's values with eps 1e-5
    nodes = space.architecture_graph()["nodes"]
    norm = next(n for n in nodes if n["op"] == "layernorm")
    linear = next(n for n in nodes if n["op"] == "linear")
    assert norm["eps"] == pytest.approx(1e-5, rel=1e-6)
    assert linear["linear"]["bias"] is False
    assert space.param_count() == sum(p.numel() for p in model.parameters())
