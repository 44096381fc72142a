"""sslat.torch.set_arch / arch_of / subnet: the chosen architecture back into
the model, found by the blocks' module paths, and cut out as a plain module.

Skips (with the reason) where torch, onnx or a model zoo is not installed."""
import importlib
import io
import math

import pytest

import sslat

torch = pytest.importorskip("torch", reason="torch is not installed: sslat.torch is optional")
import sslat.torch as st  # noqa: E402
from sslat.torch._record import is_choice  # noqa: E402

nn = torch.nn


def conv_bn_relu(cin, cout, k, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, stride, k // 2, bias=False), nn.BatchNorm2d(cout), nn.ReLU())


class SearchVariantsContainer(nn.Module):  # ENOT's attribute names, not ENOT (and not a Choice)
    def __init__(self, variants, default_operation_index=0):
        super().__init__()
        self.search_variants = nn.ModuleList(variants)
        self.default_operation_index = default_operation_index

    def forward(self, x):
        return self.search_variants[self.default_operation_index](x)


class Supernet(nn.Module):
    """Three blocks, defined in another order than the model runs them: the
    space's blocks are 'early', 'stage.1', 'late' (run order), each with a
    skip candidate where the shapes allow; 'stage.1' is ENOT-style."""

    def __init__(self, width=8):
        super().__init__()
        self.late = st.Choice([conv_bn_relu(2 * width, 2 * width, 3), conv_bn_relu(2 * width, 2 * width, 5),
                               nn.Identity()], labels=["k3", "k5", "none"])
        self.stem = conv_bn_relu(3, width, 3, 2)
        self.early = st.Choice([conv_bn_relu(width, width, 3), conv_bn_relu(width, width, 5),
                                conv_bn_relu(width, width, 7), nn.Identity()], default=1)
        self.stage = nn.Sequential(conv_bn_relu(width, 2 * width, 1, 2), SearchVariantsContainer(
            [conv_bn_relu(2 * width, 2 * width, 3), nn.Identity()]))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2 * width, 10))

    def forward(self, x):
        x = self.stem(x)
        x = x + self.early(x)
        return self.head(self.late(self.stage(x)))


def trained(model, seed=0):
    """model with weights and BN statistics no initialisation gives (as if trained), in eval mode."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for tensor in list(model.parameters()) + [b for b in model.buffers() if b.is_floating_point()]:
            tensor.copy_(torch.rand(tensor.shape, generator=generator) * 0.5 + 0.25)
    return model.eval()


def inputs(seed=1):
    return torch.randn(2, 3, 32, 32, generator=torch.Generator().manual_seed(seed))


def choices(model):
    return {"early": model.early, "stage.1": model.stage[1], "late": model.late}


def test_blocks_are_found_by_their_module_path_in_the_order_the_model_runs_them():
    model = trained(Supernet())
    space = st.to_space(model, inputs())
    assert space.block_names == ["early", "stage.1", "late"]  # not the order they are defined in
    assert space.candidate_counts == [4, 2, 3]
    assert space.candidate_labels[2] == ["k3", "k5", "none"]
    assert st.arch_of(model, space) == [1, 0, 0]
    assert st.set_arch(model, [3, 1, 2], space) is model
    assert [choices(model)[name].default_operation_index for name in space.block_names] == [3, 1, 2]
    assert st.arch_of(model, space) == [3, 1, 2]


def test_set_arch_takes_indices_labels_and_the_clis_list_and_round_trips():
    model = trained(Supernet())
    space = st.to_space(model, inputs())
    labels = space.candidate_labels
    for arch in ([0, 0, 0], [2, 1, 1], [3, 1, 2], [1, 0, 2]):
        st.set_arch(model, arch, space)
        assert st.arch_of(model, space) == arch
        st.set_arch(model, [0, 0, 0], space)
        st.set_arch(model, [labels[b][c] for b, c in enumerate(arch)], space)  # the same by label
        assert st.arch_of(model, space) == arch
        st.set_arch(model, ",".join(map(str, arch)), space)  # as `sslat budget` prints it
        assert st.arch_of(model, space) == arch
        st.set_arch(model, " ".join(labels[b][c] for b, c in enumerate(arch)), space)  # its labels line
        assert st.arch_of(model, space) == arch
    st.set_arch(model, (2, "skip", "k5"), space)  # indices and labels mixed, a tuple
    assert st.arch_of(model, space) == [2, 1, 1]
    st.set_arch(model, " 1, 0 ,none", space)
    assert st.arch_of(model, space) == [1, 0, 2]
    point = sslat.ArchitecturePoint([0, 1, 0], 1.0, 2.0, ["conv_k3", "skip", "k3"])  # budget_top's answer
    assert st.arch_of(st.set_arch(model, point, space), space) == [0, 1, 0]
    st.set_arch(model, torch.tensor([3, 0, 1]), space)  # a tensor of indices
    assert st.arch_of(model, space) == [3, 0, 1]
    assert all(type(i) is int for i in st.arch_of(model, space))


def test_the_model_set_to_an_arch_is_what_to_space_reads():
    model = trained(Supernet())
    x = inputs()
    space = st.to_space(model, x)
    for arch in ([0, 0, 0], [3, 1, 2], [2, 0, 1], [1, 1, 0]):
        st.set_arch(model, arch, space)
        again = st.to_space(model, x)
        assert again.current_arch == arch and again.arch == arch
        assert again.hash == space.hash  # the same space, at another architecture
        assert space.current_arch == arch  # the space given follows the model


def test_the_models_own_space_is_the_default_and_its_current_arch_follows():
    model = trained(Supernet())
    x = inputs()
    with pytest.raises(ValueError, match="set_arch: this PyTorch model has no space yet"):
        st.set_arch(model, [0, 0, 0])
    sslat.initialize_latency("mac", model, (x,))
    st.set_arch(model, [2, 1, 0])
    assert st.arch_of(model) == [2, 1, 0]
    assert st.space_of(model).current_arch == [2, 1, 0]
    assert sslat.current_latency(model) == sslat.current_latency(model, [2, 1, 0])
    assert sslat.current_latency(model) < sslat.current_latency(model, [2, 0, 0])  # the skip is cheaper
    st.set_arch(model, [0, 0, 0], st.to_space(model, x))  # a space of the same hash is the model's


def test_a_wrong_arch_is_refused_naming_the_block_and_nothing_is_set():
    model = trained(Supernet())
    space = st.to_space(model, inputs())
    st.set_arch(model, [2, 1, 1], space)
    cases = [
        ([0, 0], r"^set_arch: arch has 2 entries, space 'Supernet' has 3 blocks: block 2 'late' is the first "
                 r"without a candidate$"),
        ([0, 0, 0, 0], r"arch has 4 entries, space 'Supernet' has 3 blocks: there is no block after block 2 'late'"),
        ("0,0", r"arch has 2 entries"),
        ([0, 2, 0], r"^set_arch: block 1 'stage.1': candidate 2 is out of range: the block has 2 candidates "
                    r"\(0 to 1\)$"),
        ([-1, 0, 0], r"block 0 'early': candidate -1 is out of range: the block has 4 candidates \(0 to 3\)"),
        ("0,1,7", r"block 2 'late': candidate 7 is out of range"),
        ([0, 0, "k7"], r"^set_arch: block 2 'late' has no candidate labelled 'k7': its labels are k3, k5, none$"),
        ("0,0,", r"arch '0,0,': item 2 is empty"),
        ([0, True, 0], r"block 1 'stage.1': True is neither a candidate index nor a label"),
        ([0.0, 0, 0], r"block 0 'early': 0.0 is neither a candidate index nor a label"),
        (3, r"arch is a sequence of candidate indices or labels, or a string \"0,3,1\", not int"),
        ({0, 1, 2}, r"arch is a sequence .*, not set"),
    ]
    for arch, message in cases:
        with pytest.raises(ValueError, match=message):
            st.set_arch(model, arch, space)
        assert st.arch_of(model, space) == [2, 1, 1], arch  # all or nothing
    with pytest.raises(ValueError, match=r"^subnet: block 0 'early': candidate 4 is out of range"):
        st.subnet(model, [4, 0, 0], space)
    # a container set by hand to no candidate is named by arch_of and subnet
    model.stage[1].default_operation_index = 5
    for call in (lambda: st.arch_of(model, space), lambda: st.subnet(model, space=space)):
        with pytest.raises(ValueError, match=r"block 1 'stage.1': the container's default_operation_index is 5, "
                                             r"not one of its 2 candidates"):
            call()


def test_a_space_that_is_not_this_models_is_refused_naming_the_block():
    x = inputs()
    model = trained(Supernet())
    other = nn.Sequential(conv_bn_relu(3, 8, 3), st.Choice([conv_bn_relu(8, 8, 3), nn.Identity()]))
    other_space = st.to_space(other, x)
    # another model's space: its block names no module here
    with pytest.raises(ValueError, match=r"^set_arch: block 0 '1' of space 'Sequential' is no module of this model: "
                                         r"the space is not this model's"):
        st.set_arch(model, [0], other_space)
    # once the model has its own space, another hash is named first
    sslat.initialize_latency("mac", model, (x,))
    for call in (lambda: st.set_arch(model, [0], other_space), lambda: st.arch_of(model, other_space),
                 lambda: st.subnet(model, [0], other_space)):
        with pytest.raises(ValueError, match=r"space 'Sequential' \(hash [0-9a-f]{16}\) is not the space "
                                             r"sslat.initialize_latency made for this model \('Supernet', hash"):
            call()
    # the same model read at another input hashes differently: refused too
    with pytest.raises(ValueError, match="is not the space sslat.initialize_latency made"):
        st.set_arch(model, [0, 0, 0], st.to_space(model, (1, 3, 64, 64)))
    # a model changed since: a block with another number of candidates, other labels, a block more
    space = st.to_space(Supernet(), x)
    changed = Supernet()
    changed.early.search_variants.append(nn.Identity())
    with pytest.raises(ValueError, match=r"^arch_of: block 0 'early' of space 'Supernet' has 4 candidates, the "
                                         r"model's container 5"):
        st.arch_of(changed, space)
    changed = Supernet()
    changed.late.labels = ["k3", "k5", "skip"]
    with pytest.raises(ValueError, match=r"block 2 'late' of space 'Supernet' has the candidates \['k3', 'k5', "
                                         r"'none'\], the model's container \['k3', 'k5', 'skip'\]"):
        st.set_arch(changed, [0, 0, 0], space)
    changed = Supernet()
    changed.head[1] = st.Choice([nn.Flatten(), nn.Flatten()])
    with pytest.raises(ValueError, match=r"^set_arch: the model's choice container 'head.1' \(Choice\) is no block "
                                         r"of space 'Supernet'"):
        st.set_arch(changed, [0, 0, 0], space)
    changed = Supernet()
    changed.late = conv_bn_relu(16, 16, 3)
    with pytest.raises(ValueError, match=r"block 2 'late' of space 'Supernet' is a Sequential, not a choice "
                                         r"container"):
        st.set_arch(changed, [0, 0, 0], space)


def test_a_space_with_the_files_block_names_says_to_read_the_model_without_like():
    model = trained(Supernet())
    x = inputs()
    written = st.to_space_dict(model, x)
    for k, layer in enumerate(l for l in written["layers"] if isinstance(l, dict) and "choice" in l):
        layer["name"] = "blk%02d" % k  # as a hand-written file names its blocks
    space = sslat.SearchSpace(written)
    with pytest.raises(ValueError, match=r"block 0 'blk00' of space 'Supernet' is no module of this model: .* "
                                         r"a space read with like=FILE has the file's names"):
        st.set_arch(model, [0, 0, 0], space)


def parameters(module):
    return sum(p.numel() for p in module.parameters())


def test_subnet_is_the_chosen_network_with_the_models_weights_and_nothing_else():
    model = trained(Supernet())
    x = inputs()
    space = st.to_space(model, x)
    fixed = parameters(model) - sum(parameters(c) for c in choices(model).values())
    before = {k: v.clone() for k, v in model.state_dict().items()}
    for arch in ([0, 0, 0], [3, 1, 2], [2, 0, 1], [1, 1, 0]):
        st.set_arch(model, [0, 0, 0], space)
        net = st.subnet(model, arch, space)
        assert st.arch_of(model, space) == [0, 0, 0]  # the model is left as it was
        assert not any(is_choice(m) for m in net.modules())
        assert type(net) is Supernet and not net.training
        chosen = [choices(model)[name].search_variants[c] for name, c in zip(space.block_names, arch)]
        assert parameters(net) == fixed + sum(parameters(c) for c in chosen) == space.param_count(arch)
        st.set_arch(model, arch, space)
        with torch.no_grad():
            assert torch.equal(net(x), model(x))  # exactly: the same modules and weights
        assert st.to_space(net, x).param_count() == space.param_count(arch)  # and a network sslat reads whole
        # copies: nothing is shared with the supernet, and training the subnet leaves it as it was
        ours = {p.data_ptr() for p in model.parameters()} | {b.data_ptr() for b in model.buffers()}
        assert not ours & ({p.data_ptr() for p in net.parameters()} | {b.data_ptr() for b in net.buffers()})
        with torch.no_grad():
            for p in net.parameters():
                p.add_(1.0)
        assert all(torch.equal(v, model.state_dict()[k]) for k, v in before.items())
    # no arch: what the model runs now
    st.set_arch(model, "2,1,0", space)
    with torch.no_grad():
        assert torch.equal(st.subnet(model, space=space)(x), model(x))


def test_subnet_keeps_each_modules_mode_and_leaves_the_models_space_behind():
    model = trained(Supernet())
    x = inputs()
    sslat.initialize_latency("mac", model, (x,))
    model.train()
    model.early.search_variants[2][1].eval()  # a frozen BN in a candidate
    net = st.subnet(model, [2, 0, 1])
    assert net.training and net.stem[1].training and net.stage[1][1].training
    assert not net.early[1].training  # the frozen BN, now in the subnet's place of the block
    assert "_sslat_space" not in vars(net)  # the supernet's space is not the subnet's network
    assert st.space_of(model).block_count == 3  # and the model keeps its own
    with pytest.raises(ValueError, match="has no space yet"):
        st.space_of(net)


def test_a_model_that_is_itself_a_choice_and_a_container_under_two_names():
    x = inputs()
    model = trained(st.Choice([conv_bn_relu(3, 8, 3), conv_bn_relu(3, 8, 5)]))
    space = st.to_space(model, x)
    assert space.block_names == ["model"]
    st.set_arch(model, [1], space)
    assert st.arch_of(model, space) == [1]
    net = st.subnet(model, [0], space)
    assert isinstance(net, nn.Sequential) and net[0].kernel_size == (3, 3)
    with torch.no_grad():
        assert torch.equal(net(x), st.set_arch(model, [0], space)(x))

    class Aliased(nn.Module):  # one container registered under two names, run once
        def __init__(self):
            super().__init__()
            self.stem = conv_bn_relu(3, 8, 3)
            self.block = st.Choice([conv_bn_relu(8, 8, 3), nn.Identity()])
            self.same_block = self.block

        def forward(self, x):
            return self.block(self.stem(x))

    model = trained(Aliased())
    space = st.to_space(model, x)
    assert space.block_names == ["block"]
    net = st.subnet(model, [0], space)
    assert not any(is_choice(m) for m in net.modules()) and net.block is net.same_block
    with torch.no_grad():
        assert torch.equal(net(x), st.set_arch(model, [0], space)(x))


def test_subnet_replaces_containers_from_the_deepest_up():
    # to_space refuses a choice inside a candidate; a space that names both
    # (written by hand here) still gets each replaced where it is
    inner = st.Choice([conv_bn_relu(8, 8, 3), nn.Identity()])
    model = trained(nn.Sequential(conv_bn_relu(3, 8, 3), st.Choice([nn.Sequential(inner, nn.ReLU()), nn.Identity()])))
    block = {"c": 8, "s": 1, "act": "relu6"}
    space = sslat.SearchSpace({"sslat": 1, "name": "nested", "input": {"shape": [3, 16, 16], "batch": 1}, "layers": [
        "cn_k3_s1_c8_nr6", dict(block, choice=["ir_k3_e3", "skip"], name="1"),
        dict(block, choice=["ir_k3_e3", "skip"], name="1.search_variants.0.0")]})
    net = st.subnet(model, [0, 1], space)
    assert not any(is_choice(m) for m in net.modules())
    assert isinstance(net[1], nn.Sequential) and isinstance(net[1][0], nn.Identity)
    x = inputs()
    with torch.no_grad():
        assert torch.equal(net(x), st.set_arch(model, [0, 1], space)(x))


@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # the TorchScript exporter says it is old
def test_subnet_exports_to_onnx_and_onnx_runtime_computes_the_same():
    pytest.importorskip("onnx", reason="onnx is not installed")
    model = trained(Supernet())
    x = inputs()
    space = st.to_space(model, x)
    net = st.subnet(model, [3, 0, 1], space)
    buffer = io.BytesIO()
    # the torch.export-based exporter needs onnxscript; the TorchScript one does not
    dynamo = importlib.util.find_spec("onnxscript") is not None
    torch.onnx.export(net, (x,), buffer, input_names=["x"], output_names=["y"], dynamo=dynamo)
    import onnx
    graph = onnx.load_from_string(buffer.getvalue()).graph
    stored = sum(math.prod(t.dims) for t in graph.initializer)
    assert stored <= parameters(net) + sum(b.numel() for b in net.buffers())  # no unchosen candidate inside
    if importlib.util.find_spec("onnxruntime"):
        import onnxruntime
        session = onnxruntime.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
        with torch.no_grad():
            expected = net(x).numpy()
        got = session.run(["y"], {"x": x.numpy()})[0]
        assert got.shape == expected.shape and abs(got - expected).max() <= 1e-4 * abs(expected).max()


# ---- a zoo model made a supernet: some of its blocks become choices ------------------------------

def zoo_supernet(zoo):
    """torchvision's or timm's MobileNetV2 (as test_torch_zoo.py creates it)
    with three stride-1 blocks each a choice of itself, a re-initialised copy
    and a skip."""
    import copy
    torch.manual_seed(0)
    if zoo == "timm":
        model = importlib.import_module("timm").create_model("mobilenetv2_100", pretrained=False)
        parents, places = [model.blocks[1], model.blocks[2], model.blocks[2]], [1, 1, 2]
    else:
        model = importlib.import_module("torchvision").models.mobilenet_v2()
        parents, places = [model.features] * 3, [3, 5, 6]
    for parent, place in zip(parents, places):
        block = parent[place]
        other = copy.deepcopy(block)
        for p in other.parameters():
            torch.nn.init.normal_(p, std=0.05)
        parent[place] = st.Choice([block, other, nn.Identity()])
    return model.eval()


@pytest.mark.parametrize("zoo", ["torchvision", "timm"])
def test_a_zoo_supernet_round_trips_and_its_subnet_runs_as_it(zoo):
    pytest.importorskip(zoo, reason="%s is not installed" % zoo)
    model = zoo_supernet(zoo)
    x = torch.randn(1, 3, 64, 64, generator=torch.Generator().manual_seed(1))
    sslat.initialize_latency("mac", model, (x,))
    space = st.space_of(model)
    assert space.block_names == (["blocks.1.1", "blocks.2.1", "blocks.2.2"] if zoo == "timm" else
                                 ["features.3", "features.5", "features.6"])
    for arch in ([2, 2, 2], [1, 0, 2], [0, 1, 1]):
        st.set_arch(model, arch)
        assert st.arch_of(model) == arch
        assert st.to_space(model, x).current_arch == arch
        net = st.subnet(model)
        assert not any(is_choice(m) for m in net.modules())
        assert parameters(net) == space.param_count(arch)
        with torch.no_grad():
            assert torch.equal(net(x), model(x))
    labels = space.candidate_labels
    st.set_arch(model, [labels[0][1], labels[1][2], labels[2][0]])
    assert st.arch_of(model) == [1, 2, 0]


def test_to_space_keeps_its_space_on_the_model_for_the_arch_functions():
    model = trained(Supernet())
    x = inputs()
    space = st.to_space(model, x)  # no initialize_latency: the traced space is the model's
    assert st.space_of(model) is space
    st.set_arch(model, [1, 0, 2])
    assert st.arch_of(model) == [1, 0, 2]
    # a table made afterwards replaces it, with its latency attached
    sslat.initialize_latency("mac", model, (x,))
    assert st.space_of(model) is not space and st.space_of(model).hash == space.hash
    assert st.arch_of(model) == [1, 0, 2]
