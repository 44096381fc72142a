"""sslat report: the page is valid, self-contained, and renders in headless Chromium."""
import json
import os
import re
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ElementTree

import pytest

import sslat
from conftest import EXAMPLES, TINY_SPACE

OFA = str(EXAMPLES / "ofa_mobilenet_v3.json")


def run(command, *args, expect=0):
    result = subprocess.run([command, *map(str, args)], capture_output=True, text=True)
    assert result.returncode == expect, result.stderr
    return result


def chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("SSLAT_REQUIRE_CHROMIUM"):
        pytest.fail("headless Chromium is required here (Debian package chromium)")
    pytest.skip("no Chromium on this machine")


def render(page, tmp_path):
    """Load the page in headless Chromium: its DOM after loading, a screenshot, the log."""
    browser = chromium()
    common = [browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
              "--user-data-dir=%s" % (tmp_path / "chromium-profile"), "--enable-logging=stderr",
              "--v=0", "--window-size=1000,2400"]
    dom = subprocess.run(common + ["--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120)
    assert dom.returncode == 0, dom.stderr[-2000:]
    shot = tmp_path / (page.stem + ".png")
    grab = subprocess.run(common + ["--screenshot=%s" % shot, page.as_uri()], capture_output=True,
                          text=True, timeout=120)
    assert grab.returncode == 0 and shot.exists(), grab.stderr[-2000:]
    return dom.stdout, shot, dom.stderr + grab.stderr


def pdf_text(page, tmp_path):
    """The page printed to PDF by headless Chromium (its print stylesheet), as text:
    what a reader of the PDF or a printout sees, SVG labels included."""
    pypdf = pytest.importorskip("pypdf")
    pdf = tmp_path / (page.stem + ".pdf")
    result = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                             "--user-data-dir=%s" % (tmp_path / "chromium-profile"), "--no-pdf-header-footer",
                             "--print-to-pdf=%s" % pdf, page.as_uri()], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0 and pdf.exists(), result.stderr[-2000:]
    return "\n".join(p.extract_text() for p in pypdf.PdfReader(str(pdf)).pages)


def png_size(path):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def check_page(html_path, tmp_path, svg_ids):
    html = html_path.read_text()
    # self-contained: no script, no external resource
    assert "<script" not in html
    assert not re.search(r'(src|href)\s*=\s*"(https?:)?//', html)
    # every inline SVG is well-formed XML on its own
    svgs = re.findall(r"<svg .*?</svg>", html, flags=re.S)
    assert [ElementTree.fromstring(s).get("id") for s in svgs] == svg_ids
    dom, shot, log = render(html_path, tmp_path)
    for svg_id in svg_ids:
        assert 'id="%s"' % svg_id in dom, svg_id
    assert "<parsererror" not in dom
    assert not re.search(r"CONSOLE|Uncaught|Failed to load resource", log), log[-2000:]
    width, height = png_size(shot)
    assert (width, height) == (1000, 2400)
    assert shot.stat().st_size > 40000  # a blank page compresses to a few kB
    return html, dom


def test_ofa_report_renders_with_heat_map_histogram_and_mac_scatter(tmp_path, sslat_command):
    fvcore, mac = tmp_path / "fvcore.sslat", tmp_path / "mac.sslat"
    run(sslat_command, "measure", "-c", "mac_fvcore", OFA, "-o", fvcore)
    run(sslat_command, "measure", "-c", "mac", OFA, "-o", mac)
    page = tmp_path / "ofa.html"
    run(sslat_command, "report", fvcore, "--space", OFA, "--mac", mac, "--arch",
        ",".join(["3"] * 20), "-o", page)
    html, dom = check_page(page, tmp_path, ["heatmap", "histogram", "mac-scatter", "pareto"])
    assert html.count('<g class="cell">') == 190  # OFA: 20 blocks, 190 candidates
    assert html.count('stroke="#e8590c"') >= 20  # the current architecture is outlined
    assert "34867844010000000000" in html  # the exact architecture count
    rho = float(re.search(r"rank correlation of MACs and latency: <b>([-0-9.]+)</b>", html).group(1))
    assert 0.9 < rho <= 1.0  # fvcore and plain MACs order architectures almost alike
    for marker in (">min<", ">median<", ">max<", ">current<"):
        assert marker in html
    # printed: what each heat-map column is, and the front's architectures by label
    table = sslat.SearchSpaceLatencyContainer.load_from_file(fvcore)
    text = pdf_text(page, tmp_path)
    labels = {label for block in table.candidate_labels for label in block}
    if "candidate-labels" in html:  # columns mean different candidates per block: the legend lists them
        assert all(label in text for label in labels)
    else:
        assert all(label in text for label in table.candidate_labels[0])
    front = sslat.pareto_front(table, sslat.SearchSpaceLatencyContainer.load_from_file(mac), points=12)
    assert "Pareto front: latency against mac" in text
    assert " · ".join(front.points[-1].labels) in " ".join(text.split())


def test_cpu_report_with_validation_scatter(tmp_path, sslat_command):
    space = tmp_path / "tiny.json"
    space.write_text(json.dumps(TINY_SPACE))
    table, validation = tmp_path / "cpu.sslat", tmp_path / "validation.json"
    run(sslat_command, "measure", "-c", "cpu", space, "--threads", "1", "--warmup", "2", "--runs", "3",
        "-o", table)
    result = run(sslat_command, "validate", "-c", "cpu", space, table, "-k", "4", "--runs", "3",
                 "--json")
    validation.write_text(result.stdout)
    mac = tmp_path / "mac.sslat"
    run(sslat_command, "measure", "-c", "mac", space, "-o", mac)
    page = tmp_path / "cpu.html"
    run(sslat_command, "report", table, "--space", space, "--mac", mac, "--validation", validation,
        "-o", page)
    html, _ = check_page(page, tmp_path, ["heatmap", "histogram", "mac-scatter", "pareto",
                                          "validation-scatter"])
    rows = json.loads(validation.read_text())["architectures"]
    assert html.count("</circle>") >= len(rows)
    assert re.search(r"%d architectures\. MAPE [0-9.]+%%" % len(rows), html)
    # printed, not only in collapsed metadata: how the table was made, and which point is which
    text = " ".join(pdf_text(page, tmp_path).split())
    for shown in ("1 thread", "cache hot", "quality", "drift", "oneDNN primitives timed", "ir_k3_e6",
                  "skip"):
        assert shown in text, shown
    assert html.count('class="point-label"') == len(rows)
    assert re.search(r'class="point-label"[^>]*>min<', html) and re.search(r'class="point-label"[^>]*>max<', html)


def test_a_noisy_table_is_flagged_and_its_noisy_entries_hatched(tmp_path, sslat_command):
    space = tmp_path / "tiny.json"
    space.write_text(json.dumps(TINY_SPACE))
    table = tmp_path / "cpu.sslat"
    run(sslat_command, "measure", "-c", "cpu", space, "--threads", "1", "--warmup", "2", "--runs", "3",
        "-o", table)
    data = json.loads(run(sslat_command, "export", table, "--json").stdout)
    # every entry quiet but two: one spread 8 % (hatched), one 40 % (hatched densely)
    for block in data["operations_stats"]:
        for entry in block:
            entry["stddev"] = 0.01 * entry["mean"]
    data["operations_stats"][0][1]["stddev"] = 0.08 * data["operations_stats"][0][1]["mean"]
    data["operations_stats"][1][0]["stddev"] = 0.40 * data["operations_stats"][1][0]["mean"]
    data["blocks"][0]["candidates"][0] = "k3\x01\x1b[31m"  # control bytes in a label: never raw in the page
    data["metadata"]["quality.verdict"] = "disturbed"
    data["metadata"]["quality.cause"] = "other processes kept 1.9 cores busy"
    edited, noisy = tmp_path / "edited.json", tmp_path / "noisy.sslat"
    edited.write_text(json.dumps(data))
    run(sslat_command, "import", edited, "-o", noisy)
    page = tmp_path / "noisy.html"
    run(sslat_command, "report", noisy, "-o", page)
    html, _ = check_page(page, tmp_path, ["heatmap", "histogram"])
    assert html.count('fill="url(#noise-some)"') == 1 and html.count('fill="url(#noise-high)"') == 1
    assert "\x01" not in html and "\x1b" not in html and "k3&#xFFFD;&#xFFFD;[31m" in html
    text = " ".join(pdf_text(page, tmp_path).split())
    assert "Read this table with care" in text and "other processes kept 1.9 cores busy" in text
    # the same page from Python, for the same table
    container = sslat.SearchSpaceLatencyContainer.load_from_file(noisy)
    assert container.report(name=str(noisy)) == page.read_text()
    # the same table with an ok verdict has no warning (the measured one may itself be
    # noisy on a busy machine: its verdict is set here, not left to the machine)
    data["metadata"]["quality.verdict"], data["metadata"]["quality.cause"] = "ok", "none"
    edited.write_text(json.dumps(data))
    ok_table, quiet = tmp_path / "ok.sslat", tmp_path / "quiet.html"
    run(sslat_command, "import", edited, "-o", ok_table)
    run(sslat_command, "report", ok_table, "-o", quiet)
    assert "Read this table with care" not in quiet.read_text()
    # the advice fits how the table was measured: fewer threads only for a table that used several,
    # and a fit's disturbed reference runs are said too
    advice = {}
    for threads in ("1", "2"):
        data["metadata"].update({"quality.verdict": "disturbed", "host.threads": threads,
                                 "quality.cause": "other processes kept 1.9 cores busy",
                                 "context.architectures": "12", "context.runtime": "onnxruntime",
                                 "context.quality.verdict": "disturbed",
                                 "context.quality.cause": "worker threads were not running for part of 9 of 20"})
        edited.write_text(json.dumps(data))
        table, page = tmp_path / ("t%s.sslat" % threads), tmp_path / ("t%s.html" % threads)
        run(sslat_command, "import", edited, "-o", table)
        run(sslat_command, "report", table, "-o", page)
        advice[threads] = page.read_text()
    assert "already measured on one thread" in advice["1"] and "--threads" not in advice["1"].split(
        'id="quality-warning"')[1].split("</div>")[0]
    assert "fewer --threads than its free cores" in advice["2"]
    for html in advice.values():
        assert 'id="reference-warning"' in html and "worker threads were not running for part of 9 of 20" in html


def test_python_report_matches_the_cli_and_refuses_bad_input(tmp_path, sslat_command):
    mac, fvcore = tmp_path / "mac.sslat", tmp_path / "fvcore.sslat"
    run(sslat_command, "measure", "-c", "mac", OFA, "-o", mac)
    run(sslat_command, "measure", "-c", "mac_fvcore", OFA, "-o", fvcore)
    page = tmp_path / "cli.html"
    run(sslat_command, "report", fvcore, "--space", OFA, "--value", mac, "-o", page)
    space = sslat.SearchSpace(OFA)
    html = sslat.report(sslat.SearchSpaceLatencyContainer.load_from_file(fvcore), tmp_path / "py.html",
                        space=space, value=sslat.SearchSpaceLatencyContainer.load_from_file(mac),
                        name=str(fvcore))
    assert html == page.read_text() == (tmp_path / "py.html").read_text()
    with pytest.raises(sslat.InvalidArgumentError, match="indices"):
        sslat.report(sslat.SearchSpaceLatencyContainer.load_from_file(fvcore), arch=[1, 2])
    with pytest.raises(sslat.ParseError, match="architectures"):
        sslat.report(sslat.SearchSpaceLatencyContainer.load_from_file(fvcore), validation={"architectures": []})
    other = sslat.initialize_latency("mac", sslat.SearchSpace(EXAMPLES / "proxylessnas.json"))
    with pytest.raises(sslat.SpaceError, match="not a table of the latency table's space"):
        sslat.report(sslat.SearchSpaceLatencyContainer.load_from_file(fvcore), mac=other)


def test_report_refuses_mismatched_and_malformed_inputs(tmp_path, sslat_command):
    ofa, proxyless = tmp_path / "ofa.sslat", tmp_path / "proxyless.sslat"
    run(sslat_command, "measure", "-c", "mac", OFA, "-o", ofa)
    run(sslat_command, "measure", "-c", "mac", EXAMPLES / "proxylessnas.json", "-o", proxyless)
    out = tmp_path / "r.html"
    result = run(sslat_command, "report", ofa, "--mac", proxyless, "-o", out, expect=2)
    assert "proxyless.sslat" in result.stderr and "proxylessnas" in result.stderr
    result = run(sslat_command, "report", ofa, "--value", proxyless, "-o", out, expect=2)
    assert "--value" in result.stderr and "proxylessnas" in result.stderr
    bad = tmp_path / "v.json"
    bad.write_text('{"architectures": [{"label": "a", "predicted_ms": 1.0, "measured_ms": -2}]}')
    result = run(sslat_command, "report", ofa, "--validation", bad, "-o", out, expect=2)
    assert "architectures[0].measured_ms" in result.stderr
    bad.write_text('{"architectures": [')
    result = run(sslat_command, "report", ofa, "--validation", bad, "-o", out, expect=2)
    assert "v.json:1:" in result.stderr
    result = run(sslat_command, "report", ofa, "--space", EXAMPLES / "proxylessnas.json", "-o", out,
                 expect=2)
    assert "was not made for these layers" in result.stderr
    result = run(sslat_command, "report", ofa, "--arch", "1,2", "-o", out, expect=2)
    assert "--arch" in result.stderr
    assert not out.exists()  # nothing half-written
