"""A model's run as a search space: the recorded layers grouped into the rows
of a space file, each choice container a block of its recorded candidates."""
import torch
import torch.nn as nn

from . import _labels
from ._layers import MappingError, differs
from ._record import Recorder, is_choice, mapped_class


class Candidate:
    """One candidate as it ran alone on its block's input: its layers (in
    file order), the file's elements and the real output."""

    def __init__(self, layers, elements, output):
        self.layers, self.elements, self.output = layers, elements, output


class Block:
    """A choice container as the model ran it: its path, its input, and (once
    traced) its candidates and their labels."""

    def __init__(self, module, path, x, output):
        self.module, self.path, self.input, self.output = module, path, x, output
        self.candidates, self.labels = [], []

    @property
    def default(self):
        return int(self.module.default_operation_index)


class Trace:
    """What to_space read from a model: the space dict, and for each of its
    rows either the recorded layers of a fixed row or the block's index."""

    def __init__(self, space, rows, blocks, output, output_index):
        self.space, self.rows, self.blocks = space, rows, blocks
        self.output = output  # the model's real output that the space's network ends in
        self.output_index = output_index  # its place in the model's outputs

    @property
    def arch(self):
        return [block.default for block in self.blocks]

    def layers_at(self, arch):
        """The recorded layers of architecture arch, in the order of its graph's nodes."""
        layers = []
        for row in self.rows:
            layers.extend(self.blocks[row].candidates[arch[row]].layers if isinstance(row, int) else row)
        return layers


def run_recorded(module, x, where, blocks, keep_outputs=False, prefix=""):
    """Run module on x with a recorder. Choice containers are recorded as
    blocks (appended to blocks) when blocks is a list; inside a candidate
    (blocks None) one is refused. prefix: module's path in the model.
    Returns the recorder, the outputs' sources and the outputs."""
    recorder = Recorder(where, keep_outputs)
    names = {m: ".".join(part for part in (prefix, n) if part) or "model" for n, m in module.named_modules()}
    hooks, seen, versions = [], set(), {}

    def watch(m):
        base, choice = mapped_class(m), is_choice(m)

        def pre(m, inputs, keywords):
            recorder.stack.append(names[m])
            recorder.modules.append(m)
            if choice and blocks is None:
                raise MappingError("%s: a choice container inside a candidate (nested choices), in %s: make the "
                                   "inner candidates candidates of the outer choice" % (names[m], where))
            if choice or base is not None:
                if recorder.depth == 0 and base is nn.MultiheadAttention:
                    recorder.check_self_attention(m, inputs, keywords, names[m])
                elif recorder.depth == 0 and len(inputs) != 1:
                    raise MappingError("%s (%s): called with %d positional inputs (sslat maps one), in %s"
                                       % (names[m], type(m).__name__, len(inputs), where))
                if choice and recorder.depth == 0:
                    versions[m] = inputs[0]._version
                recorder.depth += 1

        def post(m, inputs, keywords, output):
            try:
                if choice or base is not None:
                    recorder.depth -= 1
                    if recorder.depth == 0 and choice:
                        return block(m, inputs[0], output)
                    if recorder.depth == 0:
                        recorder.module(m, base, inputs, output)
                return None
            finally:
                recorder.stack.pop()
                recorder.modules.pop()

        hooks.append(m.register_forward_pre_hook(pre, with_kwargs=True))
        hooks.append(m.register_forward_hook(post, with_kwargs=True))

    def block(m, x, output):
        what = "choice '%s' (%s)" % (names[m], type(m).__name__)
        if m in seen:
            raise MappingError("%s is called twice, in %s: sslat's blocks are independent, so the space would "
                               "let the two calls pick different candidates; use two choices" % (what, where))
        if not isinstance(output, torch.Tensor):
            raise MappingError("%s returns %s: a block gives one tensor, in %s"
                               % (what, type(output).__name__, where))
        seen.add(m)
        if x._version != versions[m]:
            raise MappingError("%s: its candidate writes into the block's input in place (an inplace=True "
                               "activation first?), so the model's other readers of that input see the "
                               "change, in %s: use the out-of-place form" % (what, where))
        source = recorder.source_of(x, what)
        recorder.depth += 1  # copies the recorder does not see
        if output is x:  # a skip at its default: the block's value must not replace its input's
            output = output.clone()
        # as they are now: the model may write into them in place later
        blocks.append(Block(m, names[m], x.clone(), output.clone()))
        recorder.depth -= 1
        recorder.emit(("choice", len(blocks) - 1), [source], output, type(m).__name__)
        return output  # the forward hook's value replaces the block's output

    try:  # the hooks go whatever happens, the ones registered before a failure too
        for m in module.modules():
            watch(m)
        recorder.mark_input(x)
        with torch.no_grad(), recorder:
            output = module(x)
    finally:
        for h in hooks:
            h.remove()
    outputs = [output] if isinstance(output, torch.Tensor) else list(output) if isinstance(output, (tuple, list)) else []
    if not outputs or not all(isinstance(o, torch.Tensor) for o in outputs):
        raise MappingError("%s returns %s: sslat maps tensors and lists of tensors" % (where, type(output).__name__))
    # the last output last: it is the network's (a detector's other scales stay as side outputs)
    return recorder, [recorder.source_of(o, "the output") for o in outputs], outputs


def _rows(recorder, outputs):
    """The recorded layers the outputs need, in order, each with "from" where
    it does not read the one before it: [(Layer, sources or None)]."""
    needed, stack = set(), list(outputs)
    while stack:
        i = stack.pop()
        if i == "input" or i in needed:
            continue
        needed.add(i)
        stack.extend(recorder.layers[i].sources)
    keep = sorted(needed)
    index = {old: new for new, old in enumerate(keep)}
    rows = []
    for new, old in enumerate(keep):
        layer = recorder.layers[old]
        mapped = ["input" if s == "input" else index[s] for s in layer.sources]
        default = [new - 1] if new > 0 else ["input"]
        rows.append((layer, None if mapped == default else mapped))
    return rows


def _with_from(spec, sources):
    """A layer (a type word or an object) with its "from", when it has one."""
    if sources is None:
        return spec
    spec = dict(spec) if isinstance(spec, dict) else {"op": spec}
    spec["from"] = sources if len(sources) > 1 else sources[0]
    return spec


def trace_candidate(module, x, block, number, keep_outputs=False):
    where = "candidate %d of block '%s'" % (number, block)
    prefix = "%ssearch_variants.%d" % ("" if block == "model" else block + ".", number)
    version = x._version
    recorder, sources, outputs = run_recorded(module, x, where, None, keep_outputs, prefix)
    if x._version != version:
        raise MappingError("%s writes into the block's input in place (an inplace=True activation first?): in "
                           "the model the block's other readers would see the change; use the out-of-place "
                           "form" % where)
    if len(outputs) != 1:
        raise MappingError("%s returns %d tensors: a candidate gives one" % (where, len(outputs)))
    if sources == ["input"]:  # an identity candidate
        return Candidate([], ["skip"], outputs[0])
    rows = _rows(recorder, sources)
    return Candidate([layer for layer, _ in rows], [_with_from(layer.spec, s) for layer, s in rows], outputs[0])


def _runs(rows):
    """Group the constant part's chain runs: a row joins the one before when it
    reads only that row and is its only reader, so a conv and its BN share one
    subgraph (--fuse-bn folds within a subgraph). Returns the groups (lists of
    row indices) and each row's group."""
    readers = [0] * len(rows)
    for i, (_, sources) in enumerate(rows):
        for source in (sources if sources is not None else [i - 1] if i > 0 else []):
            if source != "input":
                readers[source] += 1
    groups, group_of = [], []
    for i, (layer, sources) in enumerate(rows):
        block = isinstance(layer.spec, tuple)
        joins = (groups and not block and sources is None and readers[i - 1] == 1
                 and not isinstance(rows[i - 1][0].spec, tuple))
        if joins:
            groups[-1].append(i)
        else:
            groups.append([i])
        group_of.append(len(groups) - 1)
    return groups, group_of


def _check_block(block):
    """Every candidate gives the block's shape, and the block gives its default candidate's values
    (a choice whose forward does more than run one candidate would lose the rest)."""
    shape = tuple(block.output.shape)
    for k, candidate in enumerate(block.candidates):
        if tuple(candidate.output.shape) != shape:
            raise MappingError("choice '%s': candidate %d gives %s, the block %s: the candidates of a block give "
                               "one shape" % (block.path, k, tuple(candidate.output.shape), shape))
    if differs(block.output, block.candidates[block.default].output):
        raise MappingError("choice '%s' (%s) gives other values than its default candidate run alone: its "
                           "forward does more than run one candidate" % (block.path, type(block.module).__name__))


def _block_labels(block):
    given = getattr(block.module, "labels", None)
    if given is not None:
        return list(given)
    channels = int(block.input.shape[1])
    return _labels.unique([_labels.default_label(module, [layer.spec for layer in candidate.layers], channels)
                           for module, candidate in zip(block.module.search_variants, block.candidates)])


def trace(model, x, name, keep_outputs=False):
    """The model's run on x as a Trace: every choice container a block (in
    the order the model runs them, candidates in container order, each run
    alone on the block's real input), everything else the constant part (its
    chain runs as {"sequence": [...]} rows)."""
    blocks = []
    recorder, sources, outputs = run_recorded(model, x, "the model", blocks, keep_outputs)
    rows = _rows(recorder, sources)
    if not rows:
        raise MappingError("the model computes nothing from its input (it returns the input itself)")
    used = {layer.spec[1] for layer, _ in rows if isinstance(layer.spec, tuple)}
    for k, block in enumerate(blocks):
        if k not in used:
            raise MappingError("choice '%s' runs but nothing the model returns reads it: a block that does not "
                               "reach the output has no place in the space" % block.path)
    groups, group_of = _runs(rows)
    layers, trace_rows = [], []
    for number, group in enumerate(groups):
        layer, sources_of_row = rows[group[0]]
        if sources_of_row is not None:  # renumbered: a source is always the last row of its group
            sources_of_row = ["input" if s == "input" else group_of[s] for s in sources_of_row]
            if sources_of_row == ([number - 1] if number > 0 else ["input"]):
                sources_of_row = None
        if isinstance(layer.spec, tuple):
            block = blocks[layer.spec[1]]
            block.candidates = [trace_candidate(c, block.input, block.path, k, keep_outputs)
                                for k, c in enumerate(block.module.search_variants)]
            _check_block(block)
            block.labels = _block_labels(block)
            row = {"choice": [c.elements[0] if len(c.elements) == 1 else c.elements for c in block.candidates],
                   "name": block.path, "labels": block.labels}
            trace_rows.append(layer.spec[1])
        elif len(group) == 1:
            row = layer.spec
            trace_rows.append([layer])
        else:
            row = {"sequence": [rows[i][0].spec for i in group]}
            trace_rows.append([rows[i][0] for i in group])
        layers.append(_with_from(row, sources_of_row))
    space = {"sslat": 1, "name": name or type(model).__name__,
             "input": {"shape": list(x.shape[1:]), "batch": int(x.shape[0])}, "layers": layers}
    if blocks:
        space["arch"] = [block.default for block in blocks]
    # the network's output is its last row's (a detector's other scales are side outputs)
    last = next((k for k, s in enumerate(sources) if s != "input" and recorder.layers[s] is rows[-1][0]), None)
    return Trace(space, trace_rows, blocks, None if last is None else outputs[last], last)
