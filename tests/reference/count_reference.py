"""Reference MAC / FLOP figures from the Python libraries sslat reproduces.

Not run by CI (it needs PyTorch). Run it in an environment with
torch, torchvision, thop, fvcore and pthflops installed:
    python tests/reference/count_reference.py
and copy the printed figures into tests/test_mac_reference.cc with the
versions it prints. Every model here has a twin search-space file:
torchvision's resnet18/resnet50/mobilenet_v2/efficientnet_b0/mobilenet_v3_large/
mnasnet1_0 are examples/*.json, and `probe` is tests/data/probe.json; a
"fused" model is the twin counted with --fuse-bn.
"""
import warnings

import torch
import torch.nn as nn
import torchvision

warnings.filterwarnings("ignore")


class Probe(nn.Module):
    """The twin of tests/data/probe.json: one of each counted op. conv with
    bias, bn, relu, maxpool, avgpool, then sslat's expansion of
    ir_k3_e2_se0.25_nhs (expand 1x1, dw 3x3, squeeze-excite with x * s,
    project, residual x + y), global pool, flatten, linear."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 16, 3, 1, 1, bias=True)
        self.bn = nn.BatchNorm2d(16)
        self.relu = nn.ReLU()
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.avgpool = nn.AvgPool2d(2, 2)
        self.expand = nn.Sequential(nn.Conv2d(16, 32, 1, bias=False), nn.BatchNorm2d(32),
                                    nn.Hardswish())
        self.dw = nn.Sequential(nn.Conv2d(32, 32, 3, 1, 1, groups=32, bias=False),
                                nn.BatchNorm2d(32), nn.Hardswish())
        self.se_pool = nn.AdaptiveAvgPool2d(1)
        self.se_reduce = nn.Conv2d(32, 8, 1, bias=True)
        self.se_relu = nn.ReLU()
        self.se_expand = nn.Conv2d(8, 32, 1, bias=True)
        self.se_gate = nn.Hardsigmoid()
        self.project = nn.Sequential(nn.Conv2d(32, 16, 1, bias=False), nn.BatchNorm2d(16))
        self.gap = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = self.avgpool(self.maxpool(self.relu(self.bn(self.conv(x)))))
        y = self.dw(self.expand(x))
        s = self.se_gate(self.se_expand(self.se_relu(self.se_reduce(self.se_pool(y)))))
        y = self.project(y * s)
        x = x + y
        return self.fc(torch.flatten(self.gap(x), 1))


class Focus(nn.Module):
    """YOLOv5's Focus(3, 32, k=3): the twin of "focus_k3_c32_nsw"."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(12, 32, 3, 1, 1, bias=False)
        self.bn = nn.BatchNorm2d(32)
        self.act = nn.SiLU()

    def forward(self, x):
        x = torch.cat([x[..., ::2, ::2], x[..., 1::2, ::2], x[..., ::2, 1::2], x[..., 1::2, 1::2]], 1)
        return self.act(self.bn(self.conv(x)))


def count(model, shape):
    import thop
    from fvcore.nn import FlopCountAnalysis
    from pthflops import count_ops

    model.eval()
    x = torch.randn(*shape)
    params = sum(p.numel() for p in model.parameters())
    thop_macs, _ = thop.profile(model, inputs=(x,), verbose=False)
    fv = FlopCountAnalysis(model, x)
    fv.unsupported_ops_warnings(False)
    fv.uncalled_modules_warnings(False)
    fvcore_macs = fv.total()
    try:
        pth_flops, _ = count_ops(model, x, mode="fx", print_readable=False, verbose=False)
    except Exception as error:  # pthflops 0.4.2 cannot trace every model (ShuffleNetV2's x.size())
        pth_flops = "fails: %s: %s" % (type(error).__name__, str(error).splitlines()[0][:80])
    return params, thop_macs, fvcore_macs, pth_flops


def fused(model):
    """The model as it runs for inference: every BN folded into its conv (FX)."""
    from torch.fx.experimental.optimization import fuse
    return fuse(model.eval())


def main():
    import importlib.metadata as md
    versions = {n: md.version(n) for n in ("torch", "torchvision", "thop", "fvcore", "pthflops")}
    print("versions:", versions)
    models = {
        "resnet18": (torchvision.models.resnet18(), (1, 3, 224, 224)),
        "resnet50": (torchvision.models.resnet50(), (1, 3, 224, 224)),
        "mobilenet_v2": (torchvision.models.mobilenet_v2(), (1, 3, 224, 224)),
        "probe": (Probe(), (2, 3, 32, 32)),
        "efficientnet_b0": (torchvision.models.efficientnet_b0(), (1, 3, 224, 224)),
        "mobilenet_v3_large": (torchvision.models.mobilenet_v3_large(), (1, 3, 224, 224)),
        "mnasnet1_0": (torchvision.models.mnasnet1_0(), (1, 3, 224, 224)),
        "shufflenet_v2_x1_0": (torchvision.models.shufflenet_v2_x1_0(), (1, 3, 224, 224)),
        # twin: ["conv_k3_c8", "upsample", "conv_k1_c4"] on 8x10x10
        "upsample": (nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.Upsample(scale_factor=2),
                                   nn.Conv2d(8, 4, 1, bias=False)), (1, 8, 10, 10)),
        "focus": (Focus(), (1, 3, 64, 64)),
        # --fuse-bn: the same networks with BN folded into the convs
        "resnet18 fused": (fused(torchvision.models.resnet18()), (1, 3, 224, 224)),
        "mobilenet_v2 fused": (fused(torchvision.models.mobilenet_v2()), (1, 3, 224, 224)),
        "efficientnet_b0 fused": (fused(torchvision.models.efficientnet_b0()), (1, 3, 224, 224)),
    }
    for name, (model, shape) in models.items():
        params, thop_macs, fvcore_macs, pth = count(model, shape)
        print(f"{name}: params={params} thop={int(thop_macs)} fvcore={int(fvcore_macs)} "
              f"pthflops={pth if isinstance(pth, str) else int(pth)}")


if __name__ == "__main__":
    main()
