"""sslat.torch: PyTorch models as spaces, exact against the libraries.

Skips (with the reason) where torch, torchvision or a counting library is not
installed; scripts/test.sh installs them into the test venv."""
import importlib
import json
import sys

import pytest

import sslat
from conftest import EXAMPLES

torch = pytest.importorskip("torch", reason="torch is not installed: sslat.torch is optional")
torchvision = pytest.importorskip("torchvision", reason="torchvision is not installed")
import sslat.torch as st  # noqa: E402

RULES = ("mac_thop", "mac_fvcore", "mac_pthflops")


def library_counts(module, x):
    """What thop, fvcore and pthflops report for module on x (None where one is
    missing or cannot trace it, as pthflops 0.4.2 cannot trace ShuffleNetV2)."""
    import warnings
    warnings.filterwarnings("ignore")
    counts = dict.fromkeys(RULES)
    module = module.eval()
    if importlib.util.find_spec("thop"):
        import thop
        counts["mac_thop"] = thop.profile(module, inputs=(x,), verbose=False)[0]
    if importlib.util.find_spec("fvcore"):
        from fvcore.nn import FlopCountAnalysis
        fv = FlopCountAnalysis(module, x)
        fv.unsupported_ops_warnings(False)
        fv.uncalled_modules_warnings(False)
        counts["mac_fvcore"] = fv.total()
    if importlib.util.find_spec("pthflops"):
        from pthflops import count_ops
        try:
            counts["mac_pthflops"] = count_ops(module, x, mode="fx", print_readable=False, verbose=False)[0]
        except Exception:
            pass
    return counts


def table(space, rule):
    # per batch, as the libraries count (the batch here is 1)
    return sslat.initialize_latency(rule, space, get_base_samples=lambda inputs, keywords: 1)


@pytest.mark.parametrize("name", ["resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_large", "mnasnet1_0",
                                  "efficientnet_b0", "shufflenet_v2_x1_0", "regnet_x_400mf"])
def test_torchvision_models_equal_the_libraries(name):
    model = getattr(torchvision.models, name)().eval()
    x = torch.zeros(1, 3, 224, 224)
    space = st.to_space(model, x)
    assert space.block_count == 0
    assert space.param_count() == sum(p.numel() for p in model.parameters())
    for rule, expected in library_counts(model, x).items():
        if expected is not None:
            assert table(space, rule).constant_latency * 1e6 == pytest.approx(expected, rel=1e-12, abs=0.5), rule


def test_the_traced_fixed_networks_equal_the_example_files():
    # the space from the module and the hand-written example count the same everywhere
    for name in ("mobilenet_v3_large", "shufflenet_v2_x1_0"):
        traced = st.to_space(getattr(torchvision.models, name)(), torch.zeros(1, 3, 224, 224))
        written = sslat.SearchSpace(EXAMPLES / ("%s.json" % name))
        for rule in ("mac",) + RULES:
            assert table(traced, rule).constant_latency == pytest.approx(table(written, rule).constant_latency,
                                                                          rel=1e-12), (name, rule)


def mbconv_supernet():
    """A Choice space of torchvision MBConv blocks: kernel 3/5/7 × expansion 3/4/6."""
    from torchvision.models.efficientnet import MBConv, MBConvConfig
    from functools import partial
    norm = partial(torch.nn.BatchNorm2d, eps=1e-3)

    def block(cin, cout, stride):
        return st.Choice([MBConv(MBConvConfig(e, k, stride, cin, cout, 1), 0.0, norm)
                          for k in (3, 5, 7) for e in (3, 4, 6)])

    return torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, 2, 1, bias=False), torch.nn.BatchNorm2d(16), torch.nn.SiLU(),
        block(16, 24, 2), block(24, 24, 1), block(24, 40, 2),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(40, 10))


def test_a_choice_space_counts_each_candidate_as_the_libraries_by_enots_method():
    model = mbconv_supernet().eval()
    x = torch.zeros(1, 3, 64, 64)
    space = st.to_space(model, x)
    assert space.candidate_counts == [9, 9, 9]
    assert space.block_names == ["3", "4", "5"]
    inputs = [(1, 16, 32, 32), (1, 24, 16, 16), (1, 24, 16, 16)]
    tables = {rule: table(space, rule) for rule in RULES}
    chosen = []
    for b, choice in enumerate([model[3], model[4], model[5]]):
        for c, candidate in enumerate(choice.search_variants):
            for rule, expected in library_counts(candidate, torch.zeros(inputs[b])).items():
                if expected is not None:
                    got = tables[rule].operations_latencies[b][c] * 1e6
                    assert got == pytest.approx(expected, rel=1e-12, abs=0.5), (b, c, rule)
        chosen.append(choice.search_variants[0])
    # the constant: the whole network at arch 0 minus its candidates (ENOT's method)
    whole = library_counts(model, x)
    for rule, expected in whole.items():
        if expected is None:
            continue
        candidates = sum(tables[rule].operations_latencies[b][0] for b in range(3)) * 1e6
        assert tables[rule].constant_latency * 1e6 == pytest.approx(expected - candidates, rel=1e-9, abs=0.5), rule
    assert space.param_count([0, 0, 0]) == sum(p.numel() for p in model.parameters()) - sum(
        p.numel() for choice in (model[3], model[4], model[5]) for v in choice.search_variants[1:] for p in v.parameters())


def yolo_twin_with_choices():
    """tests/reference/yolo_reference.py's PyTorch twin of ENOT's YOLOv5s space,
    its search rows held by Choice containers (the stand-in for ENOT's)."""
    sys.path.insert(0, str(EXAMPLES.parent / "tests" / "reference"))
    try:
        yolo = importlib.import_module("yolo_reference")
    finally:
        sys.path.pop(0)
    return yolo.SearchNetwork(st.Choice)


def test_enots_yolov5s_space_from_pytorch_equals_the_example_file():
    model = yolo_twin_with_choices()
    space = st.to_space(model, torch.zeros(1, 3, 320, 320))
    written = sslat.SearchSpace(EXAMPLES / "yolov5s_ss.json", height=320, width=320)
    assert space.candidate_counts == written.candidate_counts == [12] * 8
    for rule in ("mac",) + RULES:
        for fuse in (False, True):
            a = sslat.initialize_latency(rule, space, fuse_bn=fuse)
            b = sslat.initialize_latency(rule, written, fuse_bn=fuse)
            assert a.constant_latency == pytest.approx(b.constant_latency, rel=1e-12), (rule, fuse)
            for row_a, row_b in zip(a.operations_latencies, b.operations_latencies):
                assert row_a == pytest.approx(row_b, rel=1e-12), (rule, fuse)
    assert space.param_count() == written.param_count()


def test_initialize_latency_takes_the_model_and_the_statistics_take_it_too():
    model = mbconv_supernet()
    x = torch.zeros(2, 3, 64, 64)
    container = sslat.initialize_latency("mac_fvcore", model, (x,))
    assert sslat.min_latency(model) == pytest.approx(container.constant_latency + sum(
        min(row) for row in container.operations_latencies))
    assert sslat.current_latency(model, [0, 0, 0]) <= sslat.max_latency(model)
    with pytest.raises(ValueError, match="no latency"):
        sslat.min_latency(mbconv_supernet())


def test_enot_style_containers_work_by_their_attributes():
    class SearchVariantsContainer(torch.nn.Module):  # ENOT's names, not ENOT
        def __init__(self, variants, default_operation_index=0):
            super().__init__()
            self.search_variants = torch.nn.ModuleList(variants)
            self.default_operation_index = default_operation_index

        def forward(self, x):
            return self.search_variants[self.default_operation_index](x)

    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), SearchVariantsContainer(
        [torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.Identity(), torch.nn.Conv2d(8, 8, 5, padding=2)], 2))
    space = st.to_space(model, torch.zeros(1, 3, 16, 16))
    assert space.candidate_counts == [3]
    assert space.arch == [2]  # the container's default
    assert space.candidate_labels[0][1] == "skip"


def test_an_unmappable_call_names_the_module_the_call_and_the_candidate():
    class Odd(torch.nn.Module):
        def forward(self, x):
            return torch.exp(x)

    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), st.Choice([torch.nn.ReLU(), Odd()]))
    with pytest.raises(st.MappingError, match=r"exp\(\) has no sslat mapping, in candidate 1 of block '1'"):
        st.to_space(model, torch.zeros(1, 3, 16, 16))
    with pytest.raises(st.MappingError, match="Conv2d"):
        st.to_space(torch.nn.Conv2d(3, 8, (3, 5)), torch.zeros(1, 3, 16, 16))
    class Shifted(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("shift", torch.ones(1, 3, 8, 8))

        def forward(self, x):
            return x + self.shift

    with pytest.raises(st.MappingError, match="reads a tensor the model did not compute"):
        st.to_space(Shifted(), torch.zeros(1, 3, 8, 8))


def canonical(graph):
    """A graph's nodes with identities resolved away: (op, its fields, shape, inputs)."""
    nodes, alias, out = graph["nodes"], {}, []
    resolve = lambda j: alias.get(j, j)
    for i, node in enumerate(nodes):
        inputs = [resolve(j) for j in node["input"] if j != -2]
        if node["op"] == "identity":
            alias[i] = inputs[0]
            continue
        alias[i] = len(out)
        fields = {k: v for k, v in node.items() if k not in ("input", "name")}
        out.append((json.dumps(fields, sort_keys=True), [j if j < 0 else j for j in inputs]))
    return out


def test_to_module_runs_the_calculators_weights_and_computes_what_the_model_does():
    model = mbconv_supernet().eval()
    x = torch.randn(2, 3, 64, 64, generator=torch.Generator().manual_seed(0))
    space = st.to_space(model, x)
    arch = [4, 0, 8]
    rebuilt = st.to_module(space, arch)
    # the seeded weights: the first conv's are the library's values for node 0
    import ctypes
    first = rebuilt.layers[0].weight
    values = (ctypes.c_float * first.numel())()
    sslat._native.lib.sslat_parameter_values(0, 0, 0, 27, values, first.numel())
    assert first.flatten().tolist() == pytest.approx(list(values), rel=0, abs=0)
    # the model at arch with the rebuilt module's weights gives the same output
    for choice, pick in zip((model[3], model[4], model[5]), arch):
        choice.default_operation_index = pick
    order = []
    hooks = [m.register_forward_hook(lambda m, i, o: order.append(m)) for m in model.modules()
             if isinstance(m, (torch.nn.Conv2d, torch.nn.BatchNorm2d, torch.nn.Linear))]
    with torch.no_grad():
        model(x)
    for h in hooks:
        h.remove()
    mine = [m for m in rebuilt.layers if isinstance(m, (torch.nn.Conv2d, torch.nn.BatchNorm2d, torch.nn.Linear))]
    assert [type(m) for m in order] == [type(m) for m in mine]
    for theirs, ours in zip(order, mine):
        theirs.load_state_dict(ours.state_dict())
        if isinstance(theirs, torch.nn.BatchNorm2d):
            theirs.eps = ours.eps
    with torch.no_grad():
        assert torch.allclose(rebuilt(x), model(x), rtol=1e-4, atol=1e-5)
    # and back: the rebuilt module is the same network: the same graph (identities,
    # which only the layering of the two spaces puts in, left out) and the same counts
    again = st.to_space(rebuilt, x)
    assert canonical(again.architecture_graph([])) == canonical(space.architecture_graph(arch))
    assert again.param_count() == space.param_count(arch)
    for rule in ("mac",) + RULES:
        assert table(again, rule).constant_latency == pytest.approx(sslat.current_latency(table(space, rule), arch),
                                                                    rel=1e-12), rule


# ---- reading real modules: subclasses, the user's input, the probe's constructs ------------------

class BatchNormWithActivation(torch.nn.BatchNorm2d):
    """timm's BatchNormAct2d in six lines: a BatchNorm2d that applies an activation."""

    def __init__(self, channels):
        super().__init__(channels)
        self.act = torch.nn.ReLU6()

    def forward(self, x):
        return self.act(super().forward(x))


class PaddedConv(torch.nn.Conv2d):
    """A Conv2d that pads in its forward (timm's Conv2dSame pads this way)."""

    def __init__(self, *args, pads=(1, 1, 1, 1), **kwargs):
        super().__init__(*args, **kwargs)
        self.pads = pads

    def forward(self, x):
        return super().forward(torch.nn.functional.pad(x, self.pads))


def layers_of(model, x):
    return json.loads(st.to_space(model, x).to_json())["layers"]


def test_a_subclass_with_its_own_forward_is_read_through_its_calls():
    x = torch.randn(1, 3, 16, 16)
    bn_act = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, bias=False), BatchNormWithActivation(8))
    assert layers_of(bn_act, x) == [{"sequence": [{"op": "conv", "k": 3, "c": 8, "p": 0}, "bn", "relu6"]}]
    padded = torch.nn.Sequential(PaddedConv(3, 8, 3, bias=False), torch.nn.ReLU())
    assert layers_of(padded, x) == [{"sequence": [{"op": "conv", "k": 3, "c": 8}, "relu"]}]  # the pad folded in
    assert tuple(st.to_space(padded, x).architecture_graph(None)["nodes"][0]["shape"]) == (1, 8, 16, 16)
    # a subclass that keeps the base's forward is the base
    class Renamed(torch.nn.Conv2d):
        pass
    assert layers_of(torch.nn.Sequential(Renamed(3, 8, 1)), x) == [{"op": "conv", "k": 1, "c": 8, "bias": True}]
    # TensorFlow's 'same' (timm's Conv2dSame): the odd pixel at the right and bottom
    tf_same = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 1), PaddedConv(8, 8, 3, stride=2, pads=(0, 1, 0, 1)))
    space = st.to_space(tf_same, x)
    assert json.loads(space.to_json())["layers"][0]["sequence"][1]["p"] == "same"
    assert space.architecture_graph(None)["nodes"][1]["conv"]["pads"] == [0, 0, 1, 1]  # top, left, bottom, right
    # another lopsided padding is neither: refused, naming the module
    other = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 1), PaddedConv(8, 8, 3, stride=2, pads=(1, 0, 1, 0)))
    with pytest.raises(st.MappingError, match=r"^1: conv2d\(\): a zero padding of \(left 1, right 0, top 1, "
                                              r"bottom 0\) in all: neither"):
        st.to_space(other, x)


def test_the_model_is_read_on_the_input_it_is_given():
    class ByWidth(torch.nn.Module):  # the probe's D1: both convs run at 256×256
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.b = torch.nn.Conv2d(8, 8, 3, padding=1)

        def forward(self, x):
            x = self.a(x)
            return self.b(x) if x.shape[-1] > 100 else x

    space = st.to_space(ByWidth(), torch.zeros(1, 3, 256, 256))
    assert len(space.architecture_graph(None)["nodes"]) == 2
    assert len(st.to_space(ByWidth(), torch.zeros(1, 3, 64, 64)).architecture_graph(None)["nodes"]) == 1

    class ByBatch(ByWidth):
        def forward(self, x):
            x = self.a(x)
            return self.b(x) if x.shape[0] > 1 else x

    space = st.to_space(ByBatch(), torch.zeros(8, 3, 32, 32))
    assert space.input_shape == (8, 3, 32, 32)
    assert len(space.architecture_graph(None)["nodes"]) == 2
    # a shape is accepted too (a seeded random input of it)
    assert st.to_space(ByBatch(), (2, 3, 16, 16)).input_shape == (2, 3, 16, 16)


def test_what_the_ir_cannot_express_is_refused_by_name():
    conv = torch.nn.Conv2d
    x = torch.zeros(1, 3, 32, 32)
    # (a) a fractional upsampling scale; an integer one as a float is fine
    with pytest.raises(st.MappingError, match=r"^1: Upsample: upsampling by 2.5 \(the IR upsamples by one integer"):
        st.to_space(torch.nn.Sequential(conv(3, 8, 1), torch.nn.Upsample(scale_factor=2.5)), x)
    upsampled = st.to_space(torch.nn.Sequential(conv(3, 8, 1), torch.nn.Upsample(scale_factor=2.0)), x)
    assert upsampled.architecture_graph(None)["nodes"][-1]["shape"] == [1, 8, 64, 64]
    # (b) a choice inside a candidate
    inner = st.Choice([torch.nn.Sequential(conv(8, 8, 3, padding=1), torch.nn.ReLU()), torch.nn.Identity()])
    with pytest.raises(st.MappingError, match=r"^1.search_variants.0: a choice container inside a candidate"):
        st.to_space(torch.nn.Sequential(conv(3, 8, 1), st.Choice([inner, conv(8, 8, 1)])), x)
    # (c) PyTorch's 'same' with an even kernel pads one side more: the format's "p": "same"
    even = st.to_space(torch.nn.Sequential(conv(3, 8, 1), conv(8, 8, 4, padding="same")), x)
    assert even.architecture_graph(None)["nodes"][1]["shape"] == [1, 8, 32, 32]
    assert even.architecture_graph(None)["nodes"][1]["conv"]["pads"] == [1, 1, 2, 2]
    assert layers_of(torch.nn.Sequential(conv(3, 8, 5, padding="same", bias=False)), x) == [
        {"op": "conv", "k": 5, "c": 8}]

    # (d) an in-place write into a computed tensor
    class Writes(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = conv(3, 8, 1), conv(3, 4, 1)

        def forward(self, x):
            y = self.a(x)
            y[:, :4] = self.b(x)
            return y

    with pytest.raises(st.MappingError, match=r"^model: x\[\.\.\.\] = …: an in-place write"):
        st.to_space(Writes(), x)

    # (e) one choice called twice
    class Twice(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = conv(3, 8, 1)
            self.block = st.Choice([conv(8, 8, 3, padding=1), torch.nn.Identity()])

        def forward(self, x):
            return self.block(self.block(self.stem(x)))

    with pytest.raises(st.MappingError, match=r"choice 'block' \(Choice\) is called twice"):
        st.to_space(Twice(), x)


def test_a_space_that_is_not_the_model_is_refused_where_the_two_part(monkeypatch):
    from sslat.torch import _record
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8),
                                torch.nn.Sequential(torch.nn.ReLU()), torch.nn.Conv2d(8, 4, 1))
    x = torch.randn(1, 3, 16, 16)
    st.to_space(model, x)  # exact
    # a wrong activation gives other values from that module on
    monkeypatch.setitem(_record._ACTIVATION_MODULES, torch.nn.ReLU, "relu6")
    with pytest.raises(st.MappingError, match=r"^2\.0 \(ReLU\): the space gives other values than the model"):
        st.to_space(model, x)
    monkeypatch.undo()
    # a wrong window gives another shape: named with both shapes
    upsample = _record.Recorder.upsample
    monkeypatch.setattr(_record.Recorder, "upsample",
                        lambda self, *args: dict(upsample(self, *args), s=3))
    upsampled = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 1), torch.nn.Upsample(scale_factor=2))
    with pytest.raises(st.MappingError, match=r"^1 \(Upsample\): the model gives 1x8x32x32, the space 1x8x48x48"):
        st.to_space(upsampled, x)


# ---- labels, the model's space, one network as another space -------------------------------------

class IR(torch.nn.Module):
    """MobileNetV2's inverted residual, as sslat's "ir" layer (and torchvision's) builds it."""

    def __init__(self, cin, cout, k, e, stride):
        super().__init__()
        mid, nn = cin * e, torch.nn
        layers = [] if e == 1 else [nn.Conv2d(cin, mid, 1, bias=False), nn.BatchNorm2d(mid), nn.ReLU6()]
        layers += [nn.Conv2d(mid, mid, k, stride, k // 2, groups=mid, bias=False), nn.BatchNorm2d(mid), nn.ReLU6(),
                   nn.Conv2d(mid, cout, 1, bias=False), nn.BatchNorm2d(cout)]
        self.body = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x):
        return x + self.body(x) if self.residual else self.body(x)


def mobilenet_v2_supernet():
    """examples/mobilenet_v2_space.json written in PyTorch."""
    nn, blocks, cin = torch.nn, [], 16
    for cout, stride, repeat in ((24, 2, 2), (32, 2, 3), (64, 2, 4), (96, 1, 3), (160, 2, 3), (320, 1, 1)):
        for r in range(repeat):
            s = stride if r == 0 else 1
            options = [IR(cin, cout, k, e, s) for k in (3, 5, 7) for e in (3, 6)]
            blocks.append(st.Choice(options + ([nn.Identity()] if r > 0 else []), default=1))
            cin = cout
    return nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU6(), IR(32, 16, 3, 1, 1),
                         *blocks, nn.Conv2d(320, 1280, 1, bias=False), nn.BatchNorm2d(1280), nn.ReLU6(),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(1280, 1000))


def test_candidates_get_short_labels_from_their_modules_or_the_ones_given():
    space = st.to_space(mobilenet_v2_supernet(), torch.randn(1, 3, 64, 64))
    assert space.candidate_labels[0] == ["ir_k3_e3_s2", "ir_k3_e6_s2", "ir_k5_e3_s2", "ir_k5_e6_s2", "ir_k7_e3_s2",
                                         "ir_k7_e6_s2"]
    assert space.candidate_labels[1] == ["ir_k3_e3", "ir_k3_e6", "ir_k5_e3", "ir_k5_e6", "ir_k7_e3", "ir_k7_e6",
                                         "skip"]
    conv = torch.nn.Conv2d
    same = torch.nn.Sequential(conv(3, 8, 1), st.Choice([conv(8, 8, 3, padding=1), conv(8, 8, 3, padding=1)]))
    assert st.to_space(same, torch.randn(1, 3, 8, 8)).candidate_labels == [["conv_k3", "conv_k3.2"]]
    given = torch.nn.Sequential(conv(3, 8, 1), st.Choice([conv(8, 8, 3, padding=1), torch.nn.Identity()],
                                                         labels=["wide:k3", "none"]))
    assert st.to_space(given, torch.randn(1, 3, 8, 8)).candidate_labels == [["wide:k3", "none"]]
    with pytest.raises(ValueError, match="labels must be unique"):
        st.Choice([conv(8, 8, 1), conv(8, 8, 1)], labels=["a", "a"])
    with pytest.raises(ValueError, match="a label is letters"):
        st.to_space(torch.nn.Sequential(conv(3, 8, 1), st.Choice([conv(8, 8, 1), torch.nn.Identity()],
                                                                  labels=["a b", "c"])), torch.randn(1, 3, 8, 8))


def test_the_space_initialize_latency_made_is_the_models_and_public():
    model = mbconv_supernet()
    with pytest.raises(ValueError, match="has no space yet"):
        st.space_of(model)
    table = sslat.initialize_latency("mac", model, (1, 3, 32, 32))  # a shape works as the input
    space = st.space_of(model)
    assert space.input_shape == (1, 3, 32, 32)
    assert space.latency.constant_latency == table.constant_latency
    assert space.candidate_labels[0][0] == "mb_k3_e3_s2_se"  # torchvision MBConv has squeeze-excite


def test_a_model_equal_to_a_space_file_takes_that_files_hash_and_tables():
    example = EXAMPLES / "mobilenet_v2_space.json"
    model = mobilenet_v2_supernet()
    x = torch.randn(1, 3, 64, 64)
    traced = st.to_space(model, x)
    written = sslat.SearchSpace(example, height=64, width=64)
    assert traced.hash != written.hash  # the layering differs (see docs/python.md), the network does not
    space = st.to_space(model, x, like=example)
    assert space.hash == written.hash and space.current_arch == [1] * 16
    table = sslat.initialize_latency("mac_thop", written)
    sslat.attach_latency(space, table)  # a table of the file binds to the model's space
    assert sslat.current_latency(space) == pytest.approx(sslat.current_latency(
        sslat.initialize_latency("mac_thop", traced), [1] * 16), rel=1e-12)
    # a model that is another network is refused, saying where
    model[5].search_variants[2] = IR(24, 24, 5, 4, 1)
    with pytest.raises(st.MappingError, match=r"is not the network of space 'mobilenet_v2_space': architecture "):
        st.to_space(model, x, like=example)


def test_a_skip_at_its_default_leaves_the_blocks_input_to_its_other_readers():
    # the probe of review: f + choice(f) with the identity as default once wired choice + choice
    class SkipAdd(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = torch.nn.Conv2d(3, 8, 1)
            self.block = st.Choice([torch.nn.Identity(), torch.nn.Conv2d(8, 8, 3, padding=1)])

        def forward(self, x):
            f = self.stem(x)
            return f + self.block(f)

    space = st.to_space(SkipAdd(), torch.randn(1, 3, 8, 8))
    nodes = [n for n in space.architecture_graph([1])["nodes"] if n["op"] != "identity"]
    assert [n["op"] for n in nodes] == ["conv2d", "conv2d", "add"]
    graph = space.architecture_graph([1])["nodes"]
    add = graph[-1]
    readers = sorted(graph[j]["op"] if graph[j]["op"] != "identity" else graph[graph[j]["input"][0]]["op"]
                     for j in add["input"] if j >= 0)
    assert readers == ["conv2d", "conv2d"] and len(set(add["input"])) == 2  # the stem and the block's conv


def test_what_passes_the_value_check_by_rounding_is_still_refused_by_name():
    x = torch.randn(1, 3, 8, 8)
    # GELU's tanh form is its own activation (it once passed the check as the exact GELU by rounding)
    nodes = st.to_space(torch.nn.Sequential(torch.nn.Conv2d(3, 8, 1), torch.nn.GELU(approximate="tanh")),
                        x).architecture_graph(None)["nodes"]
    assert [n.get("act") for n in nodes if n["op"] == "act"] == ["gelu_tanh"]
    with pytest.raises(st.MappingError, match=r"max pooling that returns indices"):
        st.to_space(torch.nn.Sequential(torch.nn.MaxPool2d(2, return_indices=True)), x)
    from sslat.torch._layers import differs
    assert differs(torch.tensor([float("nan"), 1.0]), torch.tensor([0.0, 1.0]))  # a NaN on one side
    assert not differs(torch.tensor([float("nan"), 1.0]), torch.tensor([float("nan"), 1.0]))


def test_reading_a_model_leaves_each_modules_mode_as_it_was():
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 1), torch.nn.BatchNorm2d(8)).train()
    model[1].eval()  # a frozen BN inside a model in training
    st.to_space(model, torch.randn(2, 3, 8, 8))
    assert model.training and model[0].training and not model[1].training


def test_the_hostile_probes_constructs_are_refused_by_name():
    nn, x = torch.nn, torch.randn(1, 3, 16, 16)

    class InPlaceCandidate(nn.Module):  # candidate 0 writes into the block's input, which the add reads too
        def __init__(self, default):
            super().__init__()
            self.stem, self.tail = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 8, 1)
            self.c = st.Choice([nn.Sequential(nn.ReLU(inplace=True), nn.Conv2d(8, 8, 5, padding=2)),
                                nn.Conv2d(8, 8, 3, padding=1)], default=default)

        def forward(self, x):
            x = self.stem(x)
            return self.tail(x + self.c(x))

    for default in (0, 1):
        with pytest.raises(st.MappingError, match=r"writes into the block's input in place"):
            st.to_space(InPlaceCandidate(default), x)

    class Unused(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem, self.dead = nn.Conv2d(3, 8, 1), st.Choice([nn.Conv2d(8, 8, 1), nn.Identity()])

        def forward(self, x):
            x = self.stem(x)
            self.dead(x)
            return x

    with pytest.raises(st.MappingError, match=r"choice 'dead' runs but nothing the model returns reads it"):
        st.to_space(Unused(), x)

    class MoreThanACandidate(st.Choice):
        def forward(self, x):
            return torch.relu(super().forward(x))

    extra = nn.Sequential(nn.Conv2d(3, 8, 1), MoreThanACandidate([nn.Conv2d(8, 8, 1), nn.Identity()]), nn.ReLU())
    with pytest.raises(st.MappingError, match=r"choice '1' \(MoreThanACandidate\) gives other values than its "
                                              r"default candidate"):
        st.to_space(extra, x)
    with pytest.raises(st.MappingError, match=r"^0\.0: Conv2d: stride \(2, 1\) is not square"):
        st.to_space(nn.Sequential(nn.Sequential(nn.Conv2d(3, 8, 3, (2, 1)))), x)

    class ViewInPlace(nn.Module):
        def __init__(self):
            super().__init__()
            self.stem = nn.Conv2d(3, 8, 1)

        def forward(self, x):
            y = self.stem(x)
            y[:, :4].relu_()
            return y

    with pytest.raises(st.MappingError, match=r"the output reads a tensor that was written into in place after it "
                                              r"was computed, through a view"):
        st.to_space(ViewInPlace(), x)

    class WritesTheViewOnly(nn.Module):  # GhostNet: x = out[:, :c]; x += shortcut (out is not read again)
        def __init__(self):
            super().__init__()
            self.stem, self.wide = nn.Conv2d(3, 8, 1), nn.Conv2d(8, 16, 1)

        def forward(self, x):
            x = self.stem(x)
            y = self.wide(x)[:, :8]
            y += x
            return y

    st.to_space(WritesTheViewOnly(), x)
    with pytest.raises(st.MappingError, match=r"computes nothing from its input"):
        st.to_space(nn.Identity(), x)
    with pytest.raises(ValueError, match=r"meta tensors have no values"):
        st.to_space(nn.Conv2d(3, 8, 1, device="meta"), x)

    class Joined(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Conv2d(3, 8, 1), nn.Conv2d(3, 4, 1)

        def forward(self, x):
            return torch.concat([self.a(x), self.b(x)], 1)  # cat's other name

    assert json.loads(st.to_space(Joined(), x).to_json())["layers"][-1] == {"op": "concat", "from": [0, 1]}
    import numpy
    assert st.to_space(nn.Conv2d(3, 8, 1), (1, 3, numpy.int64(8), 8)).input_shape == (1, 3, 8, 8)


def test_compiled_scripted_and_traced_modules_are_refused_by_name():
    model = mbconv_supernet().eval()
    x = torch.randn(1, 3, 32, 32)
    for wrapped, says in ((torch.jit.script(torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU())),
                           "TorchScript module"),
                          (torch.jit.trace(torch.nn.Conv2d(3, 8, 3), x), "TorchScript module"),
                          (torch.compile(model), "torch.compile's wrapper")):
        with pytest.raises(st.MappingError, match=says):
            st.to_space(wrapped, x)
    # inside a model too, named by its path, and the model is left as it was (no hook stays)
    for inner, says in ((torch.jit.script(torch.nn.Sequential(torch.nn.Conv2d(8, 8, 1), torch.nn.ReLU())),
                         "module '1' of the model is a TorchScript module"),
                        (torch.compile(torch.nn.Conv2d(8, 8, 1)), "module '1' of the model is torch.compile")):
        outer = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), inner,
                                    st.Choice([torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.Conv2d(8, 8, 1)]))
        with pytest.raises(st.MappingError, match=says):
            st.to_space(outer, x)
        assert all(not m._forward_pre_hooks and not m._forward_hooks for m in outer.modules()
                   if not isinstance(m, torch.jit.ScriptModule))


def test_a_string_of_labels_is_refused_not_split_into_characters():
    with pytest.raises(ValueError, match="not the string 'ab'"):
        st.Choice([torch.nn.Identity(), torch.nn.ReLU()], labels="ab")


def test_to_space_leaves_the_callers_random_stream_as_it_was():
    model = mbconv_supernet().eval()
    torch.manual_seed(1234)
    st.to_space(model, (1, 3, 32, 32))
    after = torch.rand(3)
    torch.manual_seed(1234)
    assert torch.equal(after, torch.rand(3))
