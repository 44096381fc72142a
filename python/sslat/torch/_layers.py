"""The pieces every part of the tracer shares: the error, a recorded layer,
a recorded value, the space format's conventions (the options left at their
defaults, 'same' padding) and when two computed values differ."""
import torch


class MappingError(ValueError):
    """A call of the model that sslat's IR cannot express, or a traced space
    that is not the model (the check after tracing)."""


def same_padding(size, k, s, d):
    """'same' padding of an H×W input as (left, right, top, bottom): the
    total for ceil(in / s) outputs, the odd pixel last (the space format's
    "p": "same", TensorFlow's rule)."""
    pads = []
    for length in (size[1], size[0]):
        total = max((-(-length // s) - 1) * s + d * (k - 1) + 1 - length, 0)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


def compact(layer):
    """Leave out the options at the format's defaults (shorter files and labels):
    stride 1 (a pool: its kernel), groups 1, dilation 1, padding d·(k − 1) / 2, no bias."""
    pool = layer["op"] in ("maxpool", "avgpool")
    defaults = {"s": layer["k"] if pool else 1, "g": 1, "d": 1, "p": layer.get("d", 1) * (layer["k"] - 1) // 2,
                "bias": False}
    return {key: value for key, value in layer.items() if key not in defaults or defaults[key] != value}


class Layer:
    """One recorded layer: its spec (a type word or a dict of the space-file
    format, or ("choice", k) for a NAS block), the layers it reads ("input"
    or indices), the module and call that made it, the real output's shape,
    the parameters it was computed with (to check the space numerically) and,
    when asked for, the real output itself. channels_last: the output is an
    image permuted to N×H×W×C (ConvNeXt's x.permute(0, 2, 3, 1)), which is
    N×(H·W)×C tokens in the IR; shape is then the IR's."""

    def __init__(self, spec, sources, path, call, shape, params, channels_last=False):
        self.spec, self.sources, self.path, self.call = spec, sources, path, call
        self.shape, self.params, self.output = shape, params, None
        self.channels_last = channels_last

    def where(self):
        return "%s (%s)" % (self.path, self.call)


class Value:
    """A recorded tensor: the layer that made it, or something still pending
    (a view that is half of a channel shuffle, a strided pixel phase of Focus,
    a zero padding a convolution will take)."""

    def __init__(self, source, pending=None):
        self.source, self.pending = source, pending


def differs(got, want):
    """Whether two values differ beyond float rounding (relative to want's scale)."""
    got, want = got.detach().reshape(-1), want.detach().reshape(-1).to(got.dtype)
    if got.numel() != want.numel():
        return True
    finite = torch.isfinite(want)
    if not torch.equal(finite, torch.isfinite(got)):  # a NaN or infinity on one side only
        return True
    if not bool(finite.all()):  # compare where both are finite
        got, want = got[finite], want[finite]
    if want.numel() == 0:
        return False
    scale = float(want.abs().max())
    return float((got - want).abs().max()) > 1e-3 * scale + 1e-5
