"""Default candidate labels: short words from the candidate module's class and
what it ran (InvertedResidual with a 5×5 depthwise conv at expansion 6 →
"ir_k5_e6"), unique within their block."""
import re

# Classes NAS spaces are built from, by the abbreviation their papers use.
_WORDS = {"InvertedResidual": "ir", "MBConv": "mb", "FusedMBConv": "fmb", "DepthwiseSeparableConv": "ds",
          "EdgeResidual": "er", "UniversalInvertedResidual": "uir", "GhostBottleneck": "ghost",
          "BasicBlock": "basic", "Bottleneck": "bottleneck", "Identity": "skip", "Conv2d": "conv",
          "Sequential": "seq", "ConvNormAct": "cna", "ConvBnAct": "cba", "SqueezeExcite": "se"}
_ALLOWED = re.compile(r"[^A-Za-z0-9_.+\-=:]")
LABEL_LIMIT = 63  # the space format's


def is_label(text):
    """One word the space format takes as a label."""
    return 0 < len(text) <= LABEL_LIMIT and not _ALLOWED.search(text)


def class_word(module):
    """InvertedResidual → "ir"; an unknown MultiWordName → its initials; one word → itself."""
    name = type(module).__name__
    if name in _WORDS:
        return _WORDS[name]
    words = re.findall(r"[A-Z]+(?![a-z])|[A-Z][a-z0-9]*|[a-z0-9]+", name)
    word = "".join(w[0] for w in words).lower() if len(words) > 1 else name.lower()
    return _ALLOWED.sub("", word)[:16] or "block"


def _number(value):
    return ("%d" % value) if float(value).is_integer() else ("%.2f" % value).rstrip("0")


def default_label(module, specs, in_channels):
    """module's label from the layers it ran (specs: the space-file layers of
    the candidate, without "from"): kernel, expansion, stride, squeeze-excite."""
    if not specs:
        return "skip"
    word = class_word(module)
    convs = [s for s in specs if isinstance(s, dict) and s.get("op") == "conv"]
    parts = [word]
    kernel = max((c["k"] for c in convs), default=1)
    if kernel > 1:
        parts.append("k%d" % kernel)
    widest = max((c["c"] for c in convs[:-1]), default=in_channels)
    if len(convs) > 1 and widest != in_channels:
        parts.append("e" + _number(widest / in_channels))
    stride = max((c.get("s", 1) for c in convs), default=1)
    if stride > 1:
        parts.append("s%d" % stride)
    if "mul" in specs:
        parts.append("se")
    return "_".join(parts)[:LABEL_LIMIT]


def unique(labels):
    """The labels with repeats numbered: ["ir_k3", "ir_k3"] → ["ir_k3", "ir_k3.2"]."""
    seen, out = {}, []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else ("%s.%d" % (label[:LABEL_LIMIT - 4], seen[label])))
    return out if len(set(out)) == len(out) else ["%s.%d" % (label[:LABEL_LIMIT - 4], i) for i, label in
                                                 enumerate(labels)]
