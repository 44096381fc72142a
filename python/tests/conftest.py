"""Shared fixtures: the repository's example spaces and a tiny space for timed runs."""
import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"

# Small enough that the cpu calculator measures it in a second or two.
TINY_SPACE = {
    "sslat": 1,
    "name": "tiny",
    "input": {"shape": [3, 32, 32], "batch": 1},
    "layers": [
        "cn_k3_s2_c16_nr6",
        {"choice": ["ir_k3_e3", "ir_k5_e6", "skip"], "c": 16, "s": 1, "act": "relu6"},
        {"choice": ["ir_k3_e3", "ir_k3_e6"], "c": 24, "s": 2, "act": "relu6"},
        "gap",
        "fc10",
    ],
    "arch": [1, 0],
}


@pytest.fixture
def tiny_space():
    import sslat
    return sslat.SearchSpace(TINY_SPACE)


@pytest.fixture
def sslat_command():
    """The sslat command next to the library the package loaded (build/sslat)."""
    path = os.environ.get("SSLAT_COMMAND", str(REPO / "build" / "sslat"))
    if not os.access(path, os.X_OK):
        pytest.fail("the sslat command is not at %s (set SSLAT_COMMAND)" % path)
    return path
