"""sslat.torch on model zoos: every model either traces exactly or is refused
with a clear message; none comes out silently wrong.

Exactly means: to_space's own check passed (every recorded shape, and each
candidate's and the network's values with the model's weights, on the input
and on a random one), the parameter count equals the model's, and each MAC
rule equals its library run on the same model (thop with its hooks for the
mapped class also given to subclasses of it, so that it counts what runs:
timm's BatchNormAct2d, Conv2dSame and Linear; fvcore; pthflops where it counts
what runs: its fx trace works and no subclass of a mapped class runs its own
forward, whose F.batch_norm pthflops would not count, and no F.relu runs
outside an nn.ReLU module, which pthflops would not count either).

    python python/tests/test_torch_zoo.py     prints docs/python.md's table
"""
import importlib
import re
import sys
import time
import warnings

import pytest

torch = pytest.importorskip("torch", reason="torch is not installed: sslat.torch is optional")
torchvision = pytest.importorskip("torchvision", reason="torchvision is not installed")
timm = pytest.importorskip("timm", reason="timm is not installed (scripts/test.sh installs the pinned version)")
import sslat  # noqa: E402
import sslat.torch as st  # noqa: E402
from sslat.torch._record import _LEAF_CLASSES, mapped_class  # noqa: E402

RULES = ("mac_thop", "mac_fvcore", "mac_pthflops")
# model → None (traced exactly) or what its refusal says
TIMM = {
    "mobilenetv2_100": None, "mobilenetv3_large_100": None, "mobilenetv3_small_100": None,
    "efficientnet_b0": None, "efficientnet_lite0": None, "tf_efficientnet_lite0": None,
    "tf_efficientnet_b0": None, "mnasnet_100": None, "semnasnet_100": None, "spnasnet_100": None,
    "fbnetc_100": None, "hardcorenas_a": None, "tinynet_a": None, "ghostnet_100": None, "regnetx_002": None,
    "regnety_002": None, "repvgg_a0": None, "resnet18": None, "resnet50": None, "resnext50_32x4d": None,
    "mixnet_s": None, "tf_mixnet_s": None, "lcnet_050": None,
    "darknet17": None, "convnext_atto": None,
    "vit_tiny_patch16_224": None, "deit_tiny_patch16_224": None,
    "levit_128s": r"flatten\(\) from dim 0", "efficientformer_l1": r"an average pool with ceil_mode or count_include_pad=False",
    "mobilevit_xxs": r"reshape\(\) from \(1, 64, 28, 28\) to \(896, 2, 14, 2\)",
}
TORCHVISION = {
    "mobilenet_v2": None, "mobilenet_v3_large": None, "mobilenet_v3_small": None, "efficientnet_b0": None,
    "mnasnet1_0": None, "regnet_x_400mf": None, "regnet_y_400mf": None, "resnet18": None, "resnet50": None,
    "resnext50_32x4d": None, "shufflenet_v2_x1_0": None,
    "googlenet": None, "squeezenet1_0": None, "densenet121": None, "vgg11": None,
    "convnext_tiny": None, "vit_b_16": None,
}
MODELS = [("timm", name) for name in TIMM] + [("torchvision", name) for name in TORCHVISION]


def create(zoo, name):
    torch.manual_seed(0)
    if zoo == "timm":
        return timm.create_model(name, pretrained=False).eval()
    # GoogLeNet's auxiliary heads run only in training: its eval network is the one without them
    options = {"aux_logits": False, "init_weights": True} if name == "googlenet" else {}
    return getattr(torchvision.models, name)(**options).eval()


def thop_hooks_for_subclasses(model):
    """thop's hook of the mapped class, for each subclass of it in model (thop
    dispatches on the exact type and would count them as nothing)."""
    profile = sys.modules["thop.profile"]
    hooks = {}
    for module in model.modules():
        kind = type(module)
        if kind in profile.register_hooks:
            continue
        for base in kind.__mro__[1:]:
            if base in profile.register_hooks and base.__module__.startswith("torch.nn"):
                hooks[kind] = profile.register_hooks[base]
                break
    return hooks


def records_the_calls_of_a_subclass(module):
    """A subclass of a mapped torch.nn class with its own forward (timm's
    BatchNormAct2d): pthflops' fx trace runs its forward and counts only
    modules, so it counts nothing for the F.batch_norm inside."""
    return isinstance(module, _LEAF_CLASSES) and mapped_class(module) is None


def calls_a_functional_relu(model, x):
    """Whether model runs F.relu / torch.relu outside an nn.ReLU module
    (GoogLeNet's BasicConv2d, DenseNet's last ReLU): pthflops counts nn.ReLU
    modules only, sslat's relu wherever it runs."""
    from torch.overrides import TorchFunctionMode
    inside = [0]
    found = []

    class Watch(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            if inside[0] == 0 and func in (torch.nn.functional.relu, torch.relu, torch.relu_, torch.Tensor.relu,
                                          torch.Tensor.relu_):
                found.append(func)
            return func(*args, **(kwargs or {}))

    hooks = []
    for module in model.modules():
        if isinstance(module, torch.nn.ReLU):
            hooks.append(module.register_forward_pre_hook(lambda m, i: inside.__setitem__(0, inside[0] + 1)))
            hooks.append(module.register_forward_hook(lambda m, i, o: inside.__setitem__(0, inside[0] - 1)))
    try:
        with torch.no_grad(), Watch():
            model(x)
    finally:
        for hook in hooks:
            hook.remove()
    return bool(found)


def library_counts(model, x):
    warnings.filterwarnings("ignore")
    counts = dict.fromkeys(RULES)
    if importlib.util.find_spec("thop"):
        import thop
        counts["mac_thop"] = thop.profile(model, inputs=(x,), verbose=False,
                                          custom_ops=thop_hooks_for_subclasses(model))[0]
        for module in model.modules():  # thop leaves its buffers behind
            for name in ("total_ops", "total_params"):
                module._buffers.pop(name, None)
    if importlib.util.find_spec("fvcore"):
        from fvcore.nn import FlopCountAnalysis
        count = FlopCountAnalysis(model, x)
        count.unsupported_ops_warnings(False)
        count.uncalled_modules_warnings(False)
        counts["mac_fvcore"] = count.total()
    if (importlib.util.find_spec("pthflops") and not any(records_the_calls_of_a_subclass(m) for m in model.modules())
            and not calls_a_functional_relu(model, x)):
        from pthflops import count_ops
        try:
            counts["mac_pthflops"] = count_ops(model, x, mode="fx", print_readable=False, verbose=False)[0]
        except Exception:
            pass  # its fx trace cannot follow this model
    return counts


def outcome(zoo, name):
    """("exact", the rules compared, to_space's seconds) or ("refused", the
    message, seconds); raises where a traced model's counts differ from the
    libraries'."""
    model = create(zoo, name)
    x = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(1))
    start = time.perf_counter()
    try:
        space = st.to_space(model, x)
    except st.MappingError as error:
        return "refused", str(error), time.perf_counter() - start
    seconds = time.perf_counter() - start
    assert space.param_count() == sum(p.numel() for p in model.parameters()), name
    compared = []
    for rule, expected in library_counts(model, x).items():
        if expected is None:
            continue
        got = sslat.initialize_latency(rule, space, get_base_samples=lambda inputs, keywords: 1).constant_latency
        assert got * 1e6 == pytest.approx(expected, rel=1e-9, abs=0.5), (name, rule)
        compared.append(rule)
    return "exact", compared, seconds


def test_the_newcomers_timm_models_keep_their_activations_and_feature_maps():
    x = torch.randn(1, 3, 224, 224)
    model = create("timm", "mobilenetv2_100")  # BatchNormAct2d holds every ReLU6
    nodes = st.to_space(model, x).architecture_graph(None)["nodes"]
    relu6 = sum(1 for m in model.modules() if isinstance(m, torch.nn.ReLU6))
    assert relu6 == 35 and sum(1 for n in nodes if n.get("act") == "relu6") == relu6
    model = create("timm", "tf_efficientnet_lite0")  # Conv2dSame pads in its forward
    nodes = st.to_space(model, x).architecture_graph(None)["nodes"]
    sizes = [n["shape"][2] for n in nodes if n["op"] == "conv2d" and n["conv"]["stride"] == 2]
    assert sizes == [112, 56, 28, 14, 7]
    convs = []
    hooks = [m.register_forward_hook(lambda m, i, o: convs.append(o.numel() * m.weight[0].numel()))
             for m in model.modules() if isinstance(m, torch.nn.Conv2d)]
    with torch.no_grad():
        model(x)
    for hook in hooks:
        hook.remove()
    space = st.to_space(model, x)
    linear = model.classifier.weight.numel()
    assert sslat.initialize_latency("mac", space).constant_latency * 1e6 == pytest.approx(sum(convs) + linear,
                                                                                           rel=1e-9)


@pytest.mark.parametrize("zoo,name", MODELS)
def test_a_zoo_model_is_traced_exactly_or_refused_by_name(zoo, name):
    expected = (TIMM if zoo == "timm" else TORCHVISION)[name]
    kind, detail, _ = outcome(zoo, name)
    if expected is None:
        assert kind == "exact", detail
        assert "mac_thop" in detail and "mac_fvcore" in detail
    else:
        assert kind == "refused", "%s traced, but should be refused (%s)" % (name, expected)
        assert re.search(expected, detail), detail


if __name__ == "__main__":
    print("timm %s, torchvision %s, torch %s; 1×3×224×224\n" % (timm.__version__, torchvision.__version__,
                                                                 torch.__version__))
    print("| zoo | model | outcome | to_space (s) |")
    print("|---|---|---|---|")
    for zoo, name in MODELS:
        kind, detail, seconds = outcome(zoo, name)
        text = ("exact (params, %s)" % ", ".join(detail)) if kind == "exact" else "refused: " + detail.split(
            ", in the model")[0]
        print("| %s | %s | %s | %.1f |" % (zoo, name, text.replace("|", "\\|"), seconds))
