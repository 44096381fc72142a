"""PyTorch models as search spaces (needs torch; the rest of sslat does not).

    import sslat, sslat.torch as st
    block = st.Choice([MBConv(k=3), MBConv(k=5), MBConv(k=7)], labels=["mb_k3", "mb_k5", "mb_k7"])
    space = st.to_space(model, torch.randn(1, 3, 224, 224))
    table = sslat.initialize_latency("mac_fvcore", model, (torch.randn(1, 3, 224, 224),))
    st.space_of(model)   # the space initialize_latency made for the model

A model's searchable places are choice containers: `Choice`, or any module
with ENOT's attributes (`search_variants`, `default_operation_index`), so ENOT
models work without ENOT. Everything else is the constant part.

How it reads a model (model → space: _record, _trace): it runs it once on the
given input with every function call recorded (a TorchFunctionMode) and the
mapped modules (Conv2d, BatchNorm2d, activations, pools, Linear, Upsample, …)
recorded whole through hooks — only when a module is exactly such a class or
a subclass that runs the class's own forward; any other module is recorded
through the calls its forward makes. Each choice container is one block, and
each of its candidates is run and recorded alone on the block's real input.
So Python control flow, x.size() and unpacking work as in eager mode, and the
space is the model as it ran on that input.

Before a space is returned it is checked (_check): the space is run as
PyTorch (the interpreter of to_module) with the model's own weights, and
every recorded shape and the values of each candidate and of the whole
network at the model's choices must equal the model's, on the given input and
on a random one. A call that cannot be mapped, or a space that is not the
model, raises MappingError naming the module path, the call and where —
never a silent skip.

The inverse (space → module: _module): to_module(space, arch) builds an
architecture of any space as an nn.Module.

The chosen architecture back into the model (_arch): set_arch(model, arch)
makes the model run it, arch_of(model) reads which one it runs, subnet(model,
arch) copies it out as a plain module with the model's own weights.
"""
import numbers
import os
from typing import Any, Dict, Optional, Sequence, Union

import torch
import torch.nn as nn

from ..space import SearchSpace
from ._arch import arch_of, set_arch, subnet
from ._check import check, first_network_difference
from ._labels import LABEL_LIMIT, is_label
from ._module import Architecture, to_module
from ._layers import MappingError
from ._record import is_choice
from ._trace import trace

__all__ = ["Choice", "MappingError", "is_choice", "to_space", "to_space_dict", "to_module", "space_of",
           "Architecture", "set_arch", "arch_of", "subnet"]


class Choice(nn.Module):
    """A NAS block: one of `modules` runs (the default one outside sslat).
    labels name the candidates (one word each: letters, digits, _.+-=:);
    by default they are made from each module's class and what it runs."""

    def __init__(self, modules: Sequence[nn.Module], default: int = 0, labels: Optional[Sequence[str]] = None):
        super().__init__()
        self.search_variants = nn.ModuleList(modules)
        if not 0 <= default < len(self.search_variants):
            raise ValueError("Choice: default %d is not one of the %d candidates" % (default, len(modules)))
        self.default_operation_index = default
        if isinstance(labels, (str, bytes)):  # list("ab") would name the candidates "a" and "b"
            raise ValueError("Choice: labels is a list of strings, one per candidate, not the string %r" % (labels,))
        if labels is not None:
            labels = list(labels)
            if len(labels) != len(self.search_variants) or not all(isinstance(s, str) for s in labels):
                raise ValueError("Choice: labels must be %d strings, one per candidate" % len(self.search_variants))
            if len(set(labels)) != len(labels) or not all(0 < len(s) <= LABEL_LIMIT for s in labels):
                raise ValueError("Choice: labels must be unique and 1 to %d characters: %s" % (LABEL_LIMIT, labels))
            odd = [s for s in labels if not is_label(s)]
            if odd:
                raise ValueError("Choice: labels %s: a label is letters, digits and _.+-=: only" % odd)
        self.labels = labels

    def forward(self, *args, **kwargs):
        return self.search_variants[self.default_operation_index](*args, **kwargs)


def _input_tensor(inputs, model):
    """The input to run: the user's tensor as given, or for a shape a seeded
    random one (zeros would hide a space that computes other values) on the
    model's device and in its floating-point type."""
    if isinstance(inputs, (tuple, list, torch.Size)) and len(inputs) == 4 and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in inputs):
        inputs = tuple(int(v) for v in inputs)
        if min(inputs) < 1:
            raise ValueError("sslat.torch: the input shape %s has a dimension below 1" % (tuple(inputs),))
        like = next((p for p in model.parameters() if p.is_floating_point()), torch.zeros(()))
        x = torch.randn(tuple(inputs), generator=torch.Generator().manual_seed(0))
        return x.to(device=like.device, dtype=like.dtype)
    if isinstance(inputs, (tuple, list)) and inputs and all(isinstance(v, numbers.Number) for v in inputs):
        raise ValueError("sslat.torch: the input shape %s: an N×C×H×W shape is four whole numbers" % (tuple(inputs),))
    if isinstance(inputs, (tuple, list)):
        if len(inputs) != 1:
            raise ValueError("sslat.torch: a model with %d inputs; sslat spaces have one" % len(inputs))
        inputs = inputs[0]
    if isinstance(inputs, torch.Tensor):
        if inputs.dim() != 4:
            raise ValueError("sslat.torch: the input is N×C×H×W, got %s" % (tuple(inputs.shape),))
        if not inputs.is_floating_point():
            raise ValueError("sslat.torch: the input is a %s tensor; models read floating point" % inputs.dtype)
        return inputs.detach()
    raise TypeError("sslat.torch: inputs is a tensor, a 1-tuple of one, or an N×C×H×W shape")


def _refuse_wrappers(model):
    """A compiled or scripted module — the model or any module inside it —
    hides the Python modules sslat maps: refused by name, with the module to
    pass instead."""
    for path, module in model.named_modules():
        where = "the model" if not path else "module '%s' of the model" % path
        if isinstance(module, torch.jit.ScriptModule):
            raise MappingError("sslat.torch: %s is a TorchScript module (%s, from torch.jit.script or "
                               "torch.jit.trace): its Python modules and calls are gone, so nothing can be mapped. "
                               "Use the nn.Module it was made from" % (where, type(module).__name__))
        if hasattr(module, "_orig_mod") and type(module).__name__ == "OptimizedModule":
            raise MappingError("sslat.torch: %s is torch.compile's wrapper (OptimizedModule): tracing it would run "
                               "the compiler. Use its _orig_mod, the nn.Module it compiled" % where)


def _traced(model, inputs, name):
    if not isinstance(model, nn.Module):
        raise TypeError("sslat.torch: the model must be an nn.Module, not %s" % type(model).__name__)
    _refuse_wrappers(model)
    # the modules the check builds draw their initial weights from torch's
    # generators: the caller's random streams are left as they were
    devices = sorted({p.device.index or 0 for p in model.parameters() if p.device.type == "cuda"})
    with torch.random.fork_rng(devices=devices):
        return _traced_here(model, inputs, name)


def _traced_here(model, inputs, name):
    x = _input_tensor(inputs, model)
    if x.is_meta or any(p.is_meta for p in model.parameters()):
        raise ValueError("sslat.torch: meta tensors have no values to check the space with: build the model (and "
                         "its input) on the CPU or a GPU")
    modes = [(m, m.training) for m in model.modules()]  # each module's own: a frozen BN stays frozen
    model.eval()
    try:
        traced = trace(model, x, name)
        space = SearchSpace(traced.space)
        check(model, traced, space, x)
    finally:
        for m, training in modes:
            m.training = training
    return traced, space


def to_space_dict(model: nn.Module, inputs: Any, name: Optional[str] = None) -> Dict[str, Any]:
    """The space of model (a dict of the space-file format), checked against
    the model: every choice container a block (in the order the model runs
    them, candidates in container order, with labels), everything else the
    constant part (its chain runs as {"sequence": [...]} layers)."""
    return _traced(model, inputs, name)[0].space


def to_space(model: nn.Module, inputs: Any, name: Optional[str] = None,
             like: Union[None, str, "os.PathLike[str]", Dict[str, Any], SearchSpace] = None) -> SearchSpace:
    """model as an sslat SearchSpace (see to_space_dict), run on inputs (a
    tensor, a 1-tuple of one, or an N×C×H×W shape). like: a space file (or
    SearchSpace, or dict) the model is meant to equal: it is loaded at the
    model's input and returned when it is the same network (so it has that
    file's hash and the file's tables attach), else MappingError says where
    the two differ."""
    traced, space = _traced(model, inputs, name)
    if like is None:
        if getattr(model, "_sslat_space", None) is None:  # set_arch / arch_of / subnet find it there
            model._sslat_space = space
        return space
    n, c, h, w = space.input_shape
    if isinstance(like, SearchSpace):  # its source, loaded at the model's input
        other = SearchSpace.__new__(SearchSpace)
        other._open(like._source, n, h, w)
    else:
        other = SearchSpace(like, batch=n, height=h, width=w)
    difference = first_network_difference(space, other, traced.arch)
    if difference is not None:
        raise MappingError("the model is not the network of space '%s': %s" % (other.name, difference))
    if traced.arch:
        other.current_arch = list(traced.arch)
        other.best_arch = list(traced.arch)
    return other


def space_of(model: nn.Module) -> SearchSpace:
    """The space initialize_latency(type, model, inputs) made for model, or,
    where it made none, the first one to_space(model, inputs) returned."""
    space = getattr(model, "_sslat_space", None)
    if space is None:
        raise ValueError("this PyTorch model has no space yet: call sslat.initialize_latency(type, model, inputs) "
                         "or sslat.torch.to_space(model, inputs)")
    return space
