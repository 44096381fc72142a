"""ENOT's YOLOv5s search space from Python: the MAC table ENOT's method gives."""
import json

import sslat
from conftest import EXAMPLES

REFERENCE = EXAMPLES.parent / "tests" / "data" / "yolov5s_ss_counts.json"


def test_fused_fvcore_table_is_enots_at_320_px():
    counts = json.loads(REFERENCE.read_text())["counts"]["320 fused"]["mac_fvcore"]
    space = sslat.SearchSpace(EXAMPLES / "yolov5s_ss.json", height=320, width=320)
    assert space.block_count == 8 and space.candidate_counts == [12] * 8
    table = sslat.initialize_latency("mac_fvcore", space, fuse_bn=True)
    assert abs(table.constant_latency - counts["constant"] / 1e6) < 1e-9
    for block, row in enumerate(counts["blocks"]):
        for candidate, macs in enumerate(row):
            assert abs(table.operations_latencies[block][candidate] - macs / 1e6) < 1e-9, (block, candidate)
    # arch 0 through the whole-network path equals the constant plus its candidates
    assert abs(sslat.current_latency(space, [0] * 8) - (counts["constant"] + sum(r[0] for r in counts["blocks"])) / 1e6) < 1e-6
