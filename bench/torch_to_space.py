"""Time of sslat.torch.to_space beside thop and fvcore counting the same model.

    PYTHONPATH=python SSLAT_LIBRARY=build/libsslat.so python bench/torch_to_space.py

Medians of 5 runs after one warm-up, torch already imported: to_space alone,
to_space + the four MAC tables (initialize_latency), thop.profile and fvcore's
FlopCountAnalysis(...).total() on the model (for the YOLOv5s space: on its
arch-0 network, one count, where sslat's tables cover all 96 candidates)."""
import importlib
import pathlib
import statistics
import sys
import time
import warnings

import torch
import torchvision

import sslat
import sslat.torch as st

warnings.filterwarnings("ignore")
ROOT = pathlib.Path(__file__).resolve().parents[1]


def median_seconds(function, runs=5):
    function()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def yolo_space_model():
    """tests/reference/yolo_reference.py's twin of ENOT's YOLOv5s space with Choice blocks."""
    sys.path.insert(0, str(ROOT / "tests" / "reference"))
    yolo = importlib.import_module("yolo_reference")
    return yolo.SearchNetwork(st.Choice).eval()


def main():
    import thop
    from fvcore.nn import FlopCountAnalysis
    cases = [("mobilenet_v2", torchvision.models.mobilenet_v2().eval(), (1, 3, 224, 224)),
             ("yolov5s_ss (96 candidates)", yolo_space_model(), (1, 3, 640, 640))]
    print("| model | to_space | to_space + 4 MAC tables | thop.profile | fvcore total |")
    print("|---|---|---|---|---|")
    for name, model, shape in cases:
        x = torch.zeros(shape)

        def tables():
            space = st.to_space(model, x)
            for rule in ("mac", "mac_thop", "mac_fvcore", "mac_pthflops"):
                sslat.initialize_latency(rule, space)

        def fvcore():
            analysis = FlopCountAnalysis(model, x)
            analysis.unsupported_ops_warnings(False)
            analysis.uncalled_modules_warnings(False)
            analysis.total()

        row = [median_seconds(lambda: st.to_space(model, x)), median_seconds(tables),
               median_seconds(lambda: thop.profile(model, inputs=(x,), verbose=False)), median_seconds(fvcore)]
        print("| %s | %s |" % (name, " | ".join("%.0f ms" % (1000 * t) for t in row)))


if __name__ == "__main__":
    main()
