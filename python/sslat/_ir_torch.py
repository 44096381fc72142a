"""The one IR -> PyTorch interpreter: an architecture's IR graph (as
`sslat show --ir` and SearchSpace.architecture_graph write it: nodes reading
earlier values, -1 = the graph input, -2 = no input) as an nn.Module, op by op.

Used by sslat.torch.to_module (with the calculators' seeded weights), by the
check after tracing (sslat.torch._check), and by `sslat validate --reference
torch`: the command embeds this file ahead of cli/reference_runner.py. So it
imports nothing, not even torch: the caller passes its torch module, and the
runner can explain a missing torch instead of failing at import.
"""

class UnsupportedNode(ValueError):
    """A node the interpreter cannot build a module of (a layer's own input)."""


ACTIVATIONS = ("relu", "relu6", "hswish", "hsigmoid", "sigmoid", "silu", "gelu", "tanh", "gelu_tanh")
BN_EPSILON = 1e-5  # SSLAT_BN_EPSILON (engine/measure/parameters.h)
LN_EPSILON = 1e-6  # SSLAT_LN_DEFAULT_EPSILON (engine/ir/op.h): a layernorm node's "eps" where none is given
# ops that are functions of their inputs: run() computes them, their module is nn.Identity
FUNCTION_OPS = ("add", "mul_channel", "global_avgpool", "flatten", "identity", "channel_shuffle", "concat",
                "channel_slice", "upsample", "space_to_depth", "tokens", "token_pool", "image")


def interpreter(torch):
    """The Architecture class on this torch.

    Architecture(graph, parameters=None): parameters(node, role, fan_in,
    shape) gives a parameter's values as a tensor (role: "weight", "bias",
    "gamma", "beta", "mean", "variance"); None keeps PyTorch's initial values.
    run(x) gives every node's value, forward(x) the last one (N×C for a
    network ending in a linear layer or a flatten, as PyTorch's do)."""
    nn = torch.nn
    functional = torch.nn.functional
    activations = dict(zip(ACTIVATIONS, (nn.ReLU, nn.ReLU6, nn.Hardswish, nn.Hardsigmoid, nn.Sigmoid, nn.SiLU,
                                         nn.GELU, nn.Tanh, lambda: nn.GELU(approximate="tanh"))))

    class ClassToken(nn.Module):
        """cat((cls.expand(N, -1, -1), x), 1), as timm's VisionTransformer."""

        def __init__(self, channels):
            super().__init__()
            self.cls_token = nn.Parameter(torch.zeros(1, 1, channels))

        def forward(self, x):
            return torch.cat((self.cls_token.expand(x.shape[0], -1, -1), x), 1)

    class PositionEmbed(nn.Module):
        def __init__(self, tokens, channels):
            super().__init__()
            self.pos_embed = nn.Parameter(torch.zeros(1, tokens, channels))

        def forward(self, x):
            return x + self.pos_embed

    class LayerScale(nn.Module):
        """x * gamma per channel (the last axis of tokens, axis 1 of an image), in the form the model wrote."""

        def __init__(self, channels, tokens, method):
            super().__init__()
            self.gamma = nn.Parameter(torch.ones(channels))
            self.tokens, self.method = tokens, method

        def forward(self, x):
            gamma = self.gamma if self.tokens else self.gamma.reshape(1, -1, 1, 1)
            return x.mul(gamma) if self.method else x * gamma

    class Attention(nn.Module):
        """timm's Attention between its linears on packed q|k|v tokens, in the
        form the model wrote; with a position bias, LeViT's attention_biases
        (heads × L, read at the grid offset |dy|·R + |dx| of two tokens) added
        to the scaled scores: (q @ kᵀ) * scale + bias, or sdpa's attn_mask.
        As timm's, eval mode reads the table gathered once (train(False)
        and refresh() gather it again), training gathers it on every call."""

        def __init__(self, params, tokens):
            super().__init__()
            self.heads, self.width, self.fused = params["heads"], params["head_dim"], params["form"] == "fused"
            if params.get("position_bias"):
                side = round(tokens ** 0.5)
                y, x = torch.arange(tokens) // side, torch.arange(tokens) % side
                offsets = (y[:, None] - y[None, :]).abs() * side + (x[:, None] - x[None, :]).abs()
                self.attention_biases = nn.Parameter(torch.zeros(self.heads, tokens))
                self.register_buffer("attention_bias_idxs", offsets, persistent=False)
                self.register_buffer("attention_bias_cache", torch.zeros(self.heads, tokens, tokens), persistent=False)
                self.refresh()
            else:
                self.attention_biases = None

        def refresh(self):
            """Gather the table again into the eval-mode cache (after its values change)."""
            if self.attention_biases is not None:
                with torch.no_grad():
                    self.attention_bias_cache = self.attention_biases[:, self.attention_bias_idxs].clone()

        def train(self, mode=True):
            super().train(mode)
            self.refresh()
            return self

        def forward(self, qkv):
            n, tokens, _ = qkv.shape
            q, k, v = qkv.reshape(n, tokens, 3, self.heads, self.width).permute(2, 0, 3, 1, 4).unbind(0)
            bias = None
            if self.attention_biases is not None:
                bias = self.attention_biases[:, self.attention_bias_idxs] if self.training else self.attention_bias_cache
            if self.fused:
                mixed = functional.scaled_dot_product_attention(q, k, v, attn_mask=bias)
            elif bias is None:
                mixed = ((q * self.width ** -0.5) @ k.transpose(-2, -1)).softmax(dim=-1) @ v
            else:
                mixed = ((q @ k.transpose(-2, -1)) * self.width ** -0.5 + bias).softmax(dim=-1) @ v
            return mixed.transpose(1, 2).reshape(n, tokens, self.heads * self.width)

    def conv_layer(node, shape, index, parameters):
        c = node["conv"]
        top, left, bottom, right = c["pads"]
        symmetric = top == left == bottom == right  # a lopsided 'same' is padded in run()
        layer = nn.Conv2d(shape[1], c["out_channels"], c["kernel"], c["stride"], top if symmetric else 0,
                          c["dilation"], c["groups"], bias=c["bias"])
        if parameters:
            fan_in = shape[1] // c["groups"] * c["kernel"] ** 2
            layer.weight.copy_(parameters(index, "weight", fan_in, tuple(layer.weight.shape)))
            if c["bias"]:
                layer.bias.copy_(parameters(index, "bias", 0, (c["out_channels"],)))
        return layer

    def batchnorm_layer(shape, index, parameters):
        layer = nn.BatchNorm2d(shape[1], eps=BN_EPSILON)
        if parameters:
            for name, role in (("weight", "gamma"), ("bias", "beta"), ("running_mean", "mean"),
                               ("running_var", "variance")):
                getattr(layer, name).copy_(parameters(index, role, 0, (shape[1],)))
        return layer

    def linear_layer(node, shape, index, parameters):
        features = shape[2] if len(shape) == 3 else shape[1] * shape[2] * shape[3]  # tokens: per token
        out_features, bias = node["linear"]["out_features"], node["linear"]["bias"]
        layer = nn.Linear(features, out_features, bias=bias)
        if parameters:
            layer.weight.copy_(parameters(index, "weight", features, tuple(layer.weight.shape)))
            if bias:
                layer.bias.copy_(parameters(index, "bias", 0, (out_features,)))
        return layer

    class Architecture(nn.Module):
        def __init__(self, graph, parameters=None):
            super().__init__()
            self.nodes, self.input_shape = graph["nodes"], graph["input"]
            self.layers = nn.ModuleList()
            with torch.no_grad():
                for index, node in enumerate(self.nodes):
                    self.layers.append(self._layer(index, node, parameters))

        def _layer(self, index, node, parameters):
            """The module of a node that has one; nn.Identity for the ops that
            are functions of their inputs (run() computes them)."""
            op = node["op"]
            shape = self.input_shape if node["input"][0] == -1 else self.nodes[node["input"][0]]["shape"]
            if op == "conv2d":
                return conv_layer(node, shape, index, parameters)
            if op == "batchnorm":
                return batchnorm_layer(shape, index, parameters)
            if op == "act":
                return activations[node["act"]]()
            if op == "maxpool":
                p = node["pool"]
                return nn.MaxPool2d(p["kernel"], p["stride"], p["padding"], ceil_mode=p.get("ceil", False))
            if op == "avgpool" and node["pool"].get("adaptive"):
                return nn.AdaptiveAvgPool2d(node["shape"][2])  # as the model wrote it: the MAC rules count it apart
            if op == "avgpool":
                p = node["pool"]
                return nn.AvgPool2d(p["kernel"], p["stride"], p["padding"])
            if op == "linear":
                return linear_layer(node, shape, index, parameters)
            if op == "global_avgpool" and node.get("form", "module") == "module":
                return nn.AdaptiveAvgPool2d(1)  # as the model wrote it: thop and pthflops count only the module
            if op == "leaky_relu":
                return nn.LeakyReLU(node["slope"])
            if op == "layernorm":
                layer = nn.LayerNorm(shape[2], eps=node.get("eps", LN_EPSILON))
                if parameters:
                    layer.weight.copy_(parameters(index, "gamma", 0, (shape[2],)))
                    layer.bias.copy_(parameters(index, "beta", 0, (shape[2],)))
                return layer
            if op == "class_token":
                layer = ClassToken(shape[2])
                if parameters:
                    layer.cls_token.copy_(parameters(index, "weight", 3, (1, 1, shape[2])))
                return layer
            if op == "position_embed":
                layer = PositionEmbed(shape[1], shape[2])
                if parameters:
                    layer.pos_embed.copy_(parameters(index, "weight", 3, (1, shape[1], shape[2])))
                return layer
            if op == "attention":
                layer = Attention(node["attention"], shape[1])
                if parameters and layer.attention_biases is not None:
                    layer.attention_biases.copy_(parameters(index, "bias", 0, tuple(layer.attention_biases.shape)))
                    layer.refresh()
                return layer
            if op == "layer_scale":
                channels = shape[-1] if len(shape) == 3 else shape[1]
                layer = LayerScale(channels, len(shape) == 3, node["form"] == "method")
                if parameters:
                    layer.gamma.copy_(parameters(index, "gamma", 0, (channels,)))
                return layer
            if op == "input":
                raise UnsupportedNode("node %d is a layer's own input: architectures have none" % index)
            if op not in FUNCTION_OPS:  # never a silent identity for an op this file does not know
                raise UnsupportedNode("node %d: op %r is not known to this interpreter" % (index, op))
            return nn.Identity()

        def forward(self, x):
            values = self.run(x)
            y = values[-1] if values else x
            # vectors are N×C×1×1 in the IR; a network ending in a linear layer gives N×C, as PyTorch's do
            return y.flatten(1) if self.nodes and self.nodes[-1]["op"] in ("linear", "flatten") else y

        def run(self, x):
            """Every node's value, in node order."""
            values = []
            for node, layer in zip(self.nodes, self.layers):
                inputs = [x if j == -1 else values[j] for j in node["input"] if j != -2]
                values.append(apply(node, layer, inputs))
            return values

    def apply(node, layer, inputs):
        a, op = inputs[0], node["op"]
        if op == "add":
            return a + inputs[1]
        if op == "mul_channel":
            return a * inputs[1]
        if op == "global_avgpool" and node.get("form") == "functional":
            return functional.adaptive_avg_pool2d(a, 1)
        if op == "global_avgpool" and node.get("form") == "mean":
            return a.mean((2, 3), keepdim=True)
        if op == "conv2d" and len(set(node["conv"]["pads"])) > 1:  # 'same', one side more: pad first
            top, left, bottom, right = node["conv"]["pads"]
            return layer(functional.pad(a, (left, right, top, bottom)))
        if op == "linear" and a.dim() == 3:  # tokens N×L×C: per token
            return layer(a)
        if op == "linear":
            return layer(torch.flatten(a, 1)).view(a.shape[0], -1, 1, 1)
        if op == "tokens":
            return a.flatten(2).transpose(1, 2)
        if op == "image":  # x.permute(0, 3, 1, 2) of the tokens read as N×H×W×C
            _, c, h, w = node["shape"]
            return a.reshape(a.shape[0], h, w, c).permute(0, 3, 1, 2)
        if op == "token_pool":
            pooled = a.mean(1) if node["form"] == "mean" else a[:, 0]
            return pooled.reshape(a.shape[0], -1, 1, 1)
        if op == "flatten":
            return a.reshape(a.shape[0], -1, 1, 1)
        if op == "channel_shuffle":
            n, c, h, w = a.shape
            g = node["groups"]
            return a.view(n, g, c // g, h, w).transpose(1, 2).reshape(n, c, h, w)
        if op == "concat":
            return torch.cat(inputs, 1)
        if op == "channel_slice":
            return a[:, node["slice"]["start"]:node["slice"]["start"] + node["slice"]["length"]]
        if op == "upsample":
            return functional.interpolate(a, scale_factor=node["scale"], mode="nearest")
        if op == "space_to_depth":
            return torch.cat([a[..., ::2, ::2], a[..., 1::2, ::2], a[..., ::2, 1::2], a[..., 1::2, 1::2]], 1)
        return layer(a)  # conv2d, batchnorm, act, pools, identity: their module

    return Architecture


def fold_batchnorm(torch, module):
    """conv -> bn (the bn the conv's only reader) as one conv, as sslat's fused
    mode runs it; module is an Architecture in eval mode."""
    nodes = module.nodes
    for i, node in enumerate(nodes[:-1]):
        following = nodes[i + 1]
        readers = sum(n["input"].count(i) for n in nodes)
        if node["op"] == "conv2d" and following["op"] == "batchnorm" and following["input"][0] == i and readers == 1:
            module.layers[i] = torch.nn.utils.fusion.fuse_conv_bn_eval(module.layers[i].eval(),
                                                                       module.layers[i + 1].eval())
            module.layers[i + 1] = torch.nn.Identity()
    return module
