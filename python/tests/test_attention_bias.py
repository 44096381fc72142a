"""Attention with a position bias (LeViT's and EfficientFormer's
attention_biases: heads × L values, tokens i and j reading the entry at their
grid offset |dy|·R + |dx|) through the PyTorch interpreter, the ONNX export
and the MAC rules, each against what it stands for: the plain-C reference,
ONNX Runtime, and thop, fvcore and pthflops on timm's own attention module."""
import pytest

import sslat
from test_onnx import expected_params, ir, learnable, reference_command  # noqa: F401 (fixture)
from test_transformers import (exported_to_onnx_and_matched, initializer_values, interpreted_and_matched,
                               normalised_error, reference_output, write_space)

# 16×16 images in 4×4 patches: 16 tokens of a 4×4 grid; both attention forms with a bias, one without
LAYERS = ["patch_k4_c24", {"choice": ["vit_h3_posbias", "vit_h2_explicit_posbias", "vit_h3"], "repeat": 2},
          "ln", "tokpool_mean", "fc10"]
ARCHS = [[0, 1], [1, 0], [2, 0]]


@pytest.mark.parametrize("arch", ARCHS)
def test_the_pytorch_interpreter_computes_what_the_reference_computes(tmp_path, reference_command, arch):
    """In eval mode from the table gathered once, in training mode gathered on each call."""
    path = write_space(tmp_path, "levit_like", LAYERS)
    module = interpreted_and_matched(tmp_path, reference_command, path, arch)
    biases = sum(p.numel() for name, p in module.named_parameters() if name.endswith("attention_biases"))
    assert biases == sum(3 * 16 if c == 0 else 2 * 16 if c == 1 else 0 for c in arch)


@pytest.mark.parametrize("arch", ARCHS[:2])
def test_the_onnx_export_gathers_the_table_and_matches_the_reference(tmp_path, sslat_command, reference_command,
                                                                   arch):
    path = write_space(tmp_path, "levit_like", LAYERS)
    model = exported_to_onnx_and_matched(tmp_path, reference_command, path, arch)
    tables = [t for t in model.graph.initializer if t.name.endswith(".attention_biases")]
    assert [list(t.dims) for t in tables] == [[3 if c == 0 else 2, 16] for c in arch]
    assert learnable(model) + initializer_values(model, ".attention_biases") == \
        expected_params(ir(sslat_command, path, 2), arch)


def test_a_bias_changes_the_values_and_the_hash(tmp_path, reference_command):
    """The bias is there: the same space without it computes other values and hashes apart."""
    (tmp_path / "with").mkdir()
    (tmp_path / "without").mkdir()
    with_bias = write_space(tmp_path / "with", "vit", ["patch_k4_c24", "vit_h3_posbias", "tokpool_mean", "fc10"])
    without = write_space(tmp_path / "without", "vit", ["patch_k4_c24", "vit_h3", "tokpool_mean", "fc10"])
    assert sslat.SearchSpace(with_bias).param_count() == sslat.SearchSpace(without).param_count() + 3 * 16
    assert sslat.SearchSpace(with_bias).hash != sslat.SearchSpace(without).hash
    _, a = reference_output(reference_command, with_bias, [], tmp_path)
    _, b = reference_output(reference_command, without, [], tmp_path)
    assert normalised_error(a, b) > 1e-3


# ---- MAC rules against the libraries --------------------------------------------------------

def efficientformer_like(torch, explicit, traceable):
    """Patch embedding, one transformer block whose attention is timm's
    EfficientFormer Attention (attention_biases on a 4×4 grid; attn_ratio 1,
    so v is as wide as q and k, as the IR's), LayerNorm, mean of the tokens,
    head. traceable: the attention written as timm writes it but without
    unpacking x.shape, so torch.fx (pthflops) can trace it; fused: with
    F.scaled_dot_product_attention and the gathered bias as its attn_mask."""
    timm = pytest.importorskip("timm")
    nn = torch.nn
    dim, heads, side = 24, 3, 4

    class Attention(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads, self.width, self.tokens = heads, dim // heads, side * side
            self.scale = self.width ** -0.5
            self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
            y, x = torch.arange(self.tokens) // side, torch.arange(self.tokens) % side
            offsets = (y[:, None] - y[None, :]).abs() * side + (x[:, None] - x[None, :]).abs()
            self.attention_biases = nn.Parameter(torch.zeros(heads, self.tokens))
            self.register_buffer("attention_bias_idxs", offsets)

        def forward(self, x):
            qkv = self.qkv(x).reshape(1, self.tokens, self.heads, -1).permute(0, 2, 1, 3)
            w = self.width  # slices: pthflops 0.4.2 cannot run split (a tuple of values)
            q, k, v = qkv[..., :w], qkv[..., w:2 * w], qkv[..., 2 * w:]
            bias = self.attention_biases[:, self.attention_bias_idxs]
            if explicit:
                x = ((q @ k.transpose(-2, -1)) * self.scale + bias).softmax(dim=-1) @ v
            else:
                x = nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)
            return self.proj(x.transpose(1, 2).reshape(1, self.tokens, dim))

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.patch = nn.Conv2d(3, dim, 4, 4)
            self.norm1, self.norm2, self.norm = (nn.LayerNorm(dim, eps=1e-6) for _ in range(3))
            if traceable or not explicit:
                self.attn = Attention()
            else:
                self.attn = timm.models.efficientformer.Attention(dim, dim // heads, heads, attn_ratio=1,
                                                                  resolution=side)
            self.fc1, self.act, self.fc2 = nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim)
            self.head = nn.Linear(dim, 10)

        def forward(self, x):
            x = self.patch(x).flatten(2).transpose(1, 2)
            x = x + self.attn(self.norm1(x))
            x = x + self.fc2(self.act(self.fc1(self.norm2(x))))
            return self.head(self.norm(x).mean(1))

    return Net().eval()


@pytest.mark.parametrize("explicit", [False, True], ids=["fused", "explicit"])
def test_each_mac_rule_equals_its_library_with_an_attention_bias(tmp_path, explicit):
    torch = pytest.importorskip("torch")
    from test_transformers import assert_each_mac_rule_equals_its_library
    layers = ["patch_k4_c24", "vit_h3_posbias" + ("_explicit" if explicit else ""), "ln", "tokpool_mean", "fc10"]
    space = sslat.SearchSpace(write_space(tmp_path, "efficientformer_like", layers, batch=1))
    assert_each_mac_rule_equals_its_library(space, efficientformer_like(torch, explicit, traceable=False),
                                            efficientformer_like(torch, explicit, traceable=True),
                                            torch.zeros(1, 3, 16, 16))
