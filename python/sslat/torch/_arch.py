"""The architecture a search chose, back into the PyTorch model: set_arch makes
the supernet run it, arch_of reads which one it runs, subnet cuts it out as a
plain module with the model's own weights (to fine-tune or export).

An architecture is one candidate per block in the space's block order, which
is the order the model runs its choice containers; each block is named by
its container's module path (to_space's names, `sslat show` lists them), so
a block is found in the model by its name, never by position alone, and a
space that is not this model's is refused instead of setting the wrong
containers.
"""
import copy
import operator
from typing import List, Optional, Sequence, Union

import torch.nn as nn

from ..search import ArchitecturePoint
from ..space import SearchSpace
from ._record import is_choice

Arch = Union[str, Sequence[Union[int, str]]]


def _space_for(model, space, what):
    """space, or the model's own; one that is not the model's (another hash) is refused."""
    if not isinstance(model, nn.Module):
        raise TypeError("%s: the model must be an nn.Module, not %s" % (what, type(model).__name__))
    own = getattr(model, "_sslat_space", None)
    if space is None:
        if own is None:
            raise ValueError("%s: this PyTorch model has no space yet: call sslat.initialize_latency(type, model, "
                             "inputs), or pass space=sslat.torch.to_space(model, inputs)" % what)
        return own
    if not isinstance(space, SearchSpace):
        raise TypeError("%s: space must be a SearchSpace (from sslat.torch.to_space), not %s"
                        % (what, type(space).__name__))
    if own is not None and own.hash != space.hash:
        raise ValueError("%s: space '%s' (hash %016x) is not the space sslat.initialize_latency made for this model "
                         "('%s', hash %016x): another model's, or this model read at another input or with "
                         "like=FILE; pass the model's own (space=None)"
                         % (what, space.name, space.hash, own.name, own.hash))
    return space


def _block(space, b):
    return "block %d '%s'" % (b, space.block_names[b])


def _containers(model, space, what):
    """The model's choice container of each block of space, in block order.
    Every block must name a choice container of the model with the block's
    candidates, and every choice container of the model must be a block."""
    names, counts, labels = space.block_names, space.candidate_counts, space.candidate_labels
    containers, block_of = [], {}
    for b, name in enumerate(names):
        where = "%s: block %d '%s' of space '%s'" % (what, b, name, space.name)
        try:
            module = model.get_submodule(name)
        except AttributeError:
            if name != "model" or not is_choice(model):  # to_space names a model that is itself a choice "model"
                raise ValueError("%s is no module of this model: the space is not this model's (to_space names "
                                 "each block by its container's module path; a space read with like=FILE has the "
                                 "file's names: use to_space(model, x) without like)" % where) from None
            module = model
        if not is_choice(module):
            raise ValueError("%s is a %s, not a choice container: the space is not this model's"
                             % (where, type(module).__name__))
        if id(module) in block_of:
            raise ValueError("%s is the container of block %d too: each block is its own container"
                             % (where, block_of[id(module)]))
        if len(module.search_variants) != counts[b]:
            raise ValueError("%s has %d candidates, the model's container %d: the space is not this model's"
                             % (where, counts[b], len(module.search_variants)))
        own = getattr(module, "labels", None)
        if own is not None and list(own) != labels[b]:
            raise ValueError("%s has the candidates %s, the model's container %s: the space is not this model's"
                             % (where, labels[b], list(own)))
        block_of[id(module)] = b
        containers.append(module)
    for path, module in model.named_modules():
        if is_choice(module) and id(module) not in block_of:
            raise ValueError("%s: the model's choice container '%s' (%s) is no block of space '%s': the space is "
                             "not this model's (read it again: sslat.torch.to_space(model, inputs))"
                             % (what, path or "model", type(module).__name__, space.name))
    return containers


def _items(arch, space, what):
    """arch as one item per block: a list as given, or the CLI's "0,3,1" (the
    labels line `sslat budget` prints under it, space-separated, too)."""
    if isinstance(arch, ArchitecturePoint):  # budget_top's and pareto_front's answers
        arch = arch.arch
    if isinstance(arch, str):
        text = arch
        parts = [part.strip() for part in text.split(",")] if "," in text else text.split()
        items = [int(part) if part.isascii() and part.isdigit() else part for part in parts]
        for b, part in enumerate(parts):
            if not part:
                raise ValueError("%s: arch '%s': item %d is empty" % (what, text, b))
    elif isinstance(arch, (bytes, set, frozenset, dict)) or not hasattr(arch, "__len__"):  # no order, or no items
        raise ValueError("%s: arch is a sequence of candidate indices or labels, or a string \"0,3,1\", not %s"
                         % (what, type(arch).__name__))
    else:
        items = list(arch)
    n = space.block_count
    if len(items) != n:
        which = ("%s is the first without a candidate" % _block(space, len(items)) if len(items) < n else
                 "there is no block after %s" % _block(space, n - 1) if n else "it has none")
        raise ValueError("%s: arch has %d entries, space '%s' has %d blocks: %s" % (what, len(items), space.name, n,
                                                                                   which))
    return items


def _indices(arch, space, what):
    """arch as candidate indices, each checked against its block."""
    labels, counts = space.candidate_labels, space.candidate_counts
    indices = []
    for b, item in enumerate(_items(arch, space, what)):
        if isinstance(item, str):
            if item not in labels[b]:
                raise ValueError("%s: %s has no candidate labelled '%s': its labels are %s"
                                 % (what, _block(space, b), item, ", ".join(labels[b])))
            indices.append(labels[b].index(item))
            continue
        try:
            if isinstance(item, bool):
                raise TypeError
            index = operator.index(item)
        except TypeError:
            raise ValueError("%s: %s: %r is neither a candidate index nor a label" % (what, _block(space, b), item)) \
                from None
        if not 0 <= index < counts[b]:
            raise ValueError("%s: %s: candidate %d is out of range: the block has %d candidates (0 to %d)"
                             % (what, _block(space, b), index, counts[b], counts[b] - 1))
        indices.append(index)
    return indices


def _running(containers, space, what):
    """Each container's default_operation_index, checked against its block."""
    arch = []
    for b, container in enumerate(containers):
        index = container.default_operation_index
        try:
            if isinstance(index, bool):
                raise TypeError
            index = operator.index(index)
        except TypeError:
            index = None
        if index is None or not 0 <= index < space.candidate_counts[b]:
            raise ValueError("%s: %s: the container's default_operation_index is %r, not one of its %d candidates"
                             % (what, _block(space, b), container.default_operation_index,
                                space.candidate_counts[b]))
        arch.append(index)
    return arch


def set_arch(model: nn.Module, arch: Arch, space: Optional[SearchSpace] = None) -> nn.Module:
    """Make model run architecture arch of space (default: the model's space,
    sslat.torch.space_of): each block's container gets its candidate as
    default_operation_index. arch: candidate indices or labels in the space's
    block order, or the CLI's "0,3,1". Nothing is set unless all of arch and
    the space fit the model. The space's current_arch follows, so
    sslat.current_latency(model) is the latency of what the model now runs.
    Returns model."""
    what = "set_arch"
    space = _space_for(model, space, what)
    containers = _containers(model, space, what)
    indices = _indices(arch, space, what)
    for container, index in zip(containers, indices):
        container.default_operation_index = index
    space.current_arch = list(indices)
    return model


def arch_of(model: nn.Module, space: Optional[SearchSpace] = None) -> List[int]:
    """The architecture model runs: each block's default_operation_index, in
    the space's block order (default: the model's space)."""
    what = "arch_of"
    space = _space_for(model, space, what)
    return _running(_containers(model, space, what), space, what)


def _depth(path):
    return path.count(".") + 1 if path else 0


def subnet(model: nn.Module, arch: Optional[Arch] = None, space: Optional[SearchSpace] = None) -> nn.Module:
    """A deep copy of model with each choice container replaced by its chosen
    candidate (arch, default: what the model runs now): a plain nn.Module with
    the model's own trained weights (copies: training it leaves the supernet
    as it was) and each module's train/eval mode, to fine-tune or export. The
    model itself is left as it was."""
    what = "subnet"
    space = _space_for(model, space, what)
    containers = _containers(model, space, what)
    indices = _running(containers, space, what) if arch is None else _indices(arch, space, what)
    # the model's space is not copied: the subnet is not that space's network
    own = getattr(model, "_sslat_space", None)
    net = copy.deepcopy(model, {} if own is None else {id(own): None})
    if "_sslat_space" in net.__dict__:
        del net.__dict__["_sslat_space"]
    chosen = {id(container): index for container, index in zip(_containers(net, space, what), indices)}
    # every path of each container (a module registered twice has two), the
    # deepest first: replacing an outer container first would move the inner ones
    paths = [(path, module) for path, module in net.named_modules(remove_duplicate=False) if is_choice(module)]
    for path, container in sorted(paths, key=lambda entry: -_depth(entry[0])):
        candidate = container.search_variants[chosen[id(container)]]
        if not path:
            return candidate  # the model is itself a choice
        parent, _, name = path.rpartition(".")
        setattr(net.get_submodule(parent), name, candidate)
    return net
