"""The check every traced space passes before to_space returns it: the space
is run as PyTorch (the to_module interpreter) with the model's own weights,
and each candidate and the whole network at the model's choices must give
the model's shapes and values, on the model's input and on a random one.
A difference raises MappingError naming the first module where the two part."""
import json

import torch

from ..space import SearchSpace
from ._module import Architecture
from ._layers import MappingError, differs
from ._trace import trace, trace_candidate

_NODE_OF = {"conv": "conv2d", "bn": "batchnorm", "add": "add", "mul": "mul_channel", "gap": "global_avgpool",
            "fc": "linear", "flatten": "flatten", "slice": "channel_slice", "concat": "concat",
            "upsample": "upsample", "s2d": "space_to_depth", "shuffle": "channel_shuffle", "maxpool": "maxpool",
            "avgpool": "avgpool", "relu": "act", "relu6": "act", "hswish": "act", "hsigmoid": "act",
            "sigmoid": "act", "silu": "act", "gelu": "act", "tanh": "act", "act": "act", "ln": "layernorm",
            "tokens": "tokens", "cls": "class_token", "pos": "position_embed", "tokpool": "token_pool",
            "sdpa": "attention", "adapool": "avgpool", "leaky": "leaky_relu", "image": "image",
            "scale": "layer_scale"}
_SEED = 20261205  # the random input's


def _node_kind(spec):
    op = spec["op"] if isinstance(spec, dict) else spec
    return _NODE_OF[op]  # every spec the recorder writes has its node


def _aligned(graph, layers, where):
    """(node index, layer) pairs: the graph's nodes (identities, which only
    the layering puts in, left out) beside the recorded layers."""
    nodes = [(i, n) for i, n in enumerate(graph["nodes"]) if n["op"] not in ("identity", "input")]
    kinds = [n["op"] for _, n in nodes]
    if kinds != [_node_kind(layer.spec) for layer in layers]:
        raise MappingError("%s: the space's operations %s are not the recorded calls %s (an sslat.torch bug: "
                           "please report it)" % (where, kinds, [layer.call for layer in layers]))
    return [(i, node, layer) for (i, node), layer in zip(nodes, layers)]


def _ir_shape(shape):
    return tuple(shape) + (1, 1) if len(shape) == 2 else tuple(shape)


def _check_shapes(pairs):
    for _, node, layer in pairs:
        if _ir_shape(layer.shape) != tuple(node["shape"]):
            raise MappingError("%s: the model gives %s, the space %s: the space is not the model here"
                               % (layer.where(), "x".join(map(str, layer.shape)), "x".join(map(str, node["shape"]))))


def _module(graph, pairs, like):
    """graph as PyTorch with the recorded layers' own parameters."""
    net = Architecture(graph, None).eval().to(device=like.device, dtype=like.dtype)
    with torch.no_grad():
        for i, node, layer in pairs:
            if layer.params is None:
                continue
            target = net.layers[i]
            for name in ("weight", "bias", "running_mean", "running_var", "cls_token", "pos_embed", "gamma"):
                value = layer.params.get(name)
                if value is not None:
                    getattr(target, name).copy_(value.detach().reshape(getattr(target, name).shape))
            if "eps" in layer.params:
                target.eps = layer.params["eps"]
    return net


def _first_difference(pairs, values):
    for i, _, layer in pairs:
        if layer.output is not None and differs(values[i], layer.output):
            return layer
    return None


def _network(space, arch):
    return space.architecture_graph(list(arch)) if arch else space.architecture_graph(None)


def _candidate_graph(block, candidate):
    """The candidate alone as a space of one fixed layer on the block's input."""
    if block.input.dim() != 4:
        raise MappingError("block '%s' reads tokens N×L×C: a choice between token layers in a PyTorch model is not "
                           "checked yet (a space file expresses it)" % block.path)
    n, c, h, w = block.input.shape
    layer = candidate.elements[0] if len(candidate.elements) == 1 else {"sequence": candidate.elements}
    space = SearchSpace({"sslat": 1, "name": "candidate", "input": {"shape": [c, h, w], "batch": n},
                         "layers": [layer]})
    return space.architecture_graph(None)


def _compare(net, graph, where, cases, retrace):
    """net against the model on each (input, the model's value there or a
    function of the input giving it, name). On a difference the model is read
    again on that input keeping every layer's value (retrace), to name the
    first layer where the two part."""
    with torch.no_grad():
        for x, want, name in cases:
            want = want(x) if callable(want) else want
            got = net(x) if graph["nodes"] else x
            if want is None or not differs(got, want):
                continue
            try:
                pairs = _aligned(graph, retrace(x), where)
            except MappingError:
                raise MappingError("%s runs other layers on %s than on the input it was traced on (its layers "
                                   "depend on the input's values): sslat cannot check its space" % (where, name))
            layer = _first_difference(pairs, net.run(x))
            place = layer.where() if layer else "its output (every layer agreed)"
            raise MappingError("%s: the space gives other values than the model on %s (the first difference), "
                               "in %s" % (place, name, where))


def _check_candidate(block, number, candidate, random):
    where = "candidate %d ('%s') of block '%s'" % (number, block.labels[number], block.path)
    graph = _candidate_graph(block, candidate)
    pairs = _aligned(graph, candidate.layers, where)
    _check_shapes(pairs)
    module = block.module.search_variants[number]
    _compare(_module(graph, pairs, block.input), graph, where,
             ((block.input, candidate.output, "its input"), (random(block.input), module, "a random input")),
             lambda x: trace_candidate(module, x, block.path, number, keep_outputs=True).layers)


def check(model, trace_of_model, space, x):
    """Raise MappingError where space is not model (the Trace of model on x)."""
    generator = torch.Generator().manual_seed(_SEED)

    def random(like):
        # spread wide enough that relu6, hswish and the gates saturate: a wrong bound shows
        return (4 * torch.randn(like.shape, generator=generator)).to(device=like.device, dtype=like.dtype)

    for block in trace_of_model.blocks:
        for number, candidate in enumerate(block.candidates):
            _check_candidate(block, number, candidate, random)
    arch = trace_of_model.arch
    graph = _network(space, arch)
    pairs = _aligned(graph, trace_of_model.layers_at(arch), "the model")
    _check_shapes(pairs)
    _compare(_module(graph, pairs, x), graph, "the model",
             ((x, trace_of_model.output, "its input"),
              (random(x), lambda x_in: _output_at(model(x_in), trace_of_model.output_index), "a random input")),
             lambda x_in: trace(model, x_in, "again", keep_outputs=True).layers_at(arch))


def _output_at(output, index):
    """The model's output that the space's network ends in (index into its list)."""
    if index is None:
        return None
    return output if isinstance(output, torch.Tensor) else output[index]


# ---- the same network as another space -----------------------------------------------------------

def _canonical(graph):
    """A graph's nodes with identities resolved away: (op, its fields, shape, inputs)."""
    nodes, alias, out = graph["nodes"], {}, []
    for i, node in enumerate(nodes):
        inputs = [alias.get(j, j) for j in node["input"] if j != -2]
        if node["op"] == "add":  # x + f(x) and f(x) + x are one network
            inputs.sort()
        if node["op"] == "identity":
            alias[i] = inputs[0]
            continue
        alias[i] = len(out)
        fields = {k: v for k, v in node.items() if k not in ("input", "name")}
        if "conv" in fields:  # "p": "same" that comes out as p1 is p1: compare the padding done
            fields["conv"] = {k: v for k, v in fields["conv"].items() if k not in ("padding", "same")}
        out.append((json.dumps(fields, sort_keys=True), inputs))
    return out


def first_network_difference(a, b, arch):
    """None when spaces a and b are one network (every architecture's graph
    the same, identities aside: checked at arch and at every single-block
    change of it), else what differs."""
    if a.candidate_counts != b.candidate_counts:
        return "blocks of %s candidates against %s" % (a.candidate_counts, b.candidate_counts)
    if list(a.input_shape) != list(b.input_shape):
        return "input %s against %s" % (a.input_shape, b.input_shape)
    archs = [list(arch)] + [list(arch[:k]) + [c] + list(arch[k + 1:]) for k, count in enumerate(a.candidate_counts)
                            for c in range(count) if c != arch[k]]
    for candidate_arch in archs:
        x, y = _canonical(_network(a, candidate_arch)), _canonical(_network(b, candidate_arch))
        if x != y:
            first = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
            return "architecture %s: operation %d differs (%s reading %s against %s reading %s)" % (
                candidate_arch, first, *(x[first] if first < len(x) else ("none", [])),
                *(y[first] if first < len(y) else ("none", [])))
    return None
