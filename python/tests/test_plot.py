"""sslat plot / sslat.plot: the Pareto front as a figure a paper can use.
The SVG is parsed and rendered in headless Chromium, the PDF parsed with
pypdf; both are checked for what the figure must show and for what it must
not carry (no script, no link)."""
import json
import re
import struct
import subprocess
import zlib
from xml.etree import ElementTree

import pytest

import sslat
from conftest import EXAMPLES, TINY_SPACE
from test_report import chromium

SPACE = EXAMPLES / "mobilenet_v2_space.json"
SVG = "{http://www.w3.org/2000/svg}"
BLUE = (0x00, 0x72, 0xB2)  # the first front's colour


def run(command, *args, check=True):
    result = subprocess.run([command, *map(str, args)], capture_output=True, text=True)
    if check:
        assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def tables(tmp_path_factory, sslat_command=None):
    """MAC tables of the MobileNetV2 space (two counters: two fronts in one
    unit), a value table of made-up top-1 terms, a fixed network's table."""
    import os
    command = os.environ.get("SSLAT_COMMAND", str(EXAMPLES.parent / "build" / "sslat"))
    folder = tmp_path_factory.mktemp("plot")
    paths = {name: folder / (name + ".sslat") for name in ("mac", "thop", "top1", "resnet18", "tiny", "tiny_top1")}
    run(command, "measure", "-c", "mac", SPACE, "-o", paths["mac"])
    run(command, "measure", "-c", "mac_thop", SPACE, "-o", paths["thop"])
    run(command, "measure", "-c", "mac", EXAMPLES / "resnet18.json", "-o", paths["resnet18"])
    space = sslat.SearchSpace(str(SPACE))
    values = [[0.05 * b + 0.01 * c for c in range(n)] for b, n in enumerate(space.candidate_counts)]
    sslat.value_table(values, "top1", "%", constant=60.0, space=space).save_to_file(str(paths["top1"]))
    # a timed table: the band of the entries' spread
    (folder / "tiny.json").write_text(json.dumps(TINY_SPACE))
    result = run(command, "measure", "-c", "cpu", folder / "tiny.json", "--threads", "1", "--runs", "5", "--warmup",
                 "1", "-o", paths["tiny"], check=False)
    if result.returncode == 3:
        del paths["tiny"]
    else:
        assert result.returncode == 0, result.stderr
        tiny = sslat.SearchSpace(TINY_SPACE)
        sslat.value_table([[1.0, 2.0, 0.5], [1.0, 1.5]], "top1", "%", constant=50, space=tiny).save_to_file(
            str(paths["tiny_top1"]))
    return command, folder, paths


def svg_root(path):
    root = ElementTree.fromstring(path.read_text())
    assert root.tag == SVG + "svg"
    return root


def texts(root):
    return [t.text for t in root.iter(SVG + "text")]


def no_script_or_link(text):
    assert "<script" not in text and "javascript" not in text.lower()
    assert not re.search(r"(xlink:)?href\s*=", text)
    assert not re.search(r"https?://(?!www\.w3\.org/2000/svg)", text)


def png_pixels(path):
    """(width, height, rows of RGB) of a non-interlaced 8-bit RGB / RGBA PNG (Chromium's screenshots)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat, header = 8, b"", None
    while at < len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        chunk = data[at + 8:at + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", chunk)
        elif kind == b"IDAT":
            idat += chunk
        at += 12 + length
    width, height, depth, color, _, _, interlace = header
    assert depth == 8 and color in (2, 6) and interlace == 0, header
    step = 3 if color == 2 else 4
    raw, rows, previous = zlib.decompress(idat), [], bytearray(width * step)
    stride = width * step
    for y in range(height):
        kind, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = line[i - step] if i >= step else 0
            up, corner = previous[i], previous[i - step] if i >= step else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, step)])
        previous = line
    return width, height, rows


def render_svg(svg, tmp_path):
    """The SVG as an image in a page, screenshot by headless Chromium at 4x its size."""
    page = tmp_path / (svg.stem + ".html")
    page.write_text('<html><body style="margin:0"><img src="%s" style="width:1008px"></body></html>' % svg.name)
    shot = tmp_path / (svg.stem + ".png")
    result = subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                             "--user-data-dir=%s" % (tmp_path / "chromium-profile"), "--window-size=1008,756",
                             "--screenshot=%s" % shot, page.as_uri()], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    return png_pixels(shot)


def near(pixel, color, tolerance=40):
    return all(abs(a - b) <= tolerance for a, b in zip(pixel, color))


def test_the_svg_shows_the_numbered_front_references_and_the_choice_and_renders(tables, tmp_path):
    command, folder, paths = tables
    svg, pdf = tmp_path / "front.svg", tmp_path / "front.pdf"
    arch = "4,1,1,3,3,3,5,5,5,5,1,1,3,5,5,1"
    result = run(command, "plot", paths["mac"], paths["top1"], "-o", svg, "-o", pdf, "--arch", arch, "--points", "6",
                 "--ref", "mbv2=" + ",".join(["1"] * 16), "--ref", "resnet18=%s@69.8" % paths["resnet18"])
    # stdout: the numbered points with their architectures, as the figure numbers them
    listed = [line.split()[0] for line in result.stdout.splitlines() if re.match(r"^\d+ ", line)]
    assert listed == ["1", "2", "3", "4", "5", "6"], result.stdout
    assert "front 1: mobilenet_v2_space mac" in result.stdout
    text = svg.read_text()
    no_script_or_link(text)
    root = svg_root(svg)
    assert (root.get("width"), root.get("height")) == ("252pt", "189pt")  # one column of a paper
    assert root.find(SVG + "title").text == "Pareto front of latency against top1"
    assert "front 1 (mobilenet_v2_space mac): latency of space mobilenet_v2_space" in root.find(SVG + "desc").text
    words = texts(root)
    assert "latency in MMAC (lower is better)" in words and "top1 in % (higher is better)" in words
    assert [w for w in words if w in "123456"] == ["1", "2", "3", "4", "5", "6"]
    assert {"mbv2", "resnet18", "chosen"} <= set(words)
    fronts = [p for p in root.iter(SVG + "path") if p.get("stroke") == "#0072b2" and p.get("fill") == "none"]
    assert len(fronts) == 1 and fronts[0].get("d").count("L") > 10  # the step line
    assert len([c for c in root.iter(SVG + "circle") if c.get("fill") == "#0072b2"]) == 6
    # rendered: the front's blue is drawn, most of the page stays white
    width, height, rows = render_svg(svg, tmp_path)
    assert (width, height) == (1008, 756)
    blue = sum(near(p, BLUE) for row in rows for p in row)
    white = sum(p == (255, 255, 255) for row in rows for p in row)
    assert blue > 500 and white > 0.6 * width * height, (blue, white)  # a blank render has no blue
    # the same figure as PDF: one page of that size, the same words, no action of any kind
    pypdf = pytest.importorskip("pypdf")
    raw = pdf.read_bytes()
    assert raw.startswith(b"%PDF-1.4") and raw.rstrip().endswith(b"%%EOF")
    for forbidden in (b"/JavaScript", b"/JS", b"/URI", b"/Launch", b"/EmbeddedFile", b"/OpenAction"):
        assert forbidden not in raw
    reader = pypdf.PdfReader(str(pdf))
    assert len(reader.pages) == 1
    box = reader.pages[0].mediabox
    assert (float(box.width), float(box.height)) == (252.0, 189.0)
    extracted = reader.pages[0].extract_text()
    for word in ("latency in MMAC (lower is better)", "top1 in % (higher is better)", "mbv2", "resnet18", "chosen"):
        assert word in extracted, (word, extracted)
    assert reader.metadata.title == "Pareto front of latency against top1"
    assert "mobilenet_v2_space" in reader.metadata.subject
    fonts = {f["/BaseFont"] for f in reader.pages[0]["/Resources"]["/Font"].values()}
    assert fonts == {"/Helvetica", "/Helvetica-Bold"}  # the standard fonts: nothing to embed or fetch


def test_several_fronts_share_the_axes_with_a_legend_and_other_units_are_refused(tables, tmp_path):
    command, folder, paths = tables
    svg = tmp_path / "two.svg"
    run(command, "plot", paths["mac"], paths["top1"], paths["thop"], paths["top1"], "-o", svg, "--label", "torchvision",
        "--label", "thop")
    root = svg_root(svg)
    assert {"torchvision", "thop"} <= set(texts(root))
    strokes = {p.get("stroke") for p in root.iter(SVG + "path") if p.get("fill") == "none"}
    assert {"#0072b2", "#d55e00"} <= strokes  # one colour per front
    # one figure, one x axis and one y axis
    if "tiny" in paths:
        mixed = run(command, "plot", paths["mac"], paths["top1"], paths["tiny"], paths["tiny_top1"], "-o",
                    tmp_path / "x.svg", check=False)
        assert mixed.returncode == 2 and "one figure has one x axis" in mixed.stderr, mixed.stderr
    other = run(command, "plot", paths["mac"], paths["top1"], paths["thop"], paths["mac"], "-o", tmp_path / "x.svg",
                check=False)
    assert other.returncode == 2 and "one figure has one y axis" in other.stderr, other.stderr
    assert not (tmp_path / "x.svg").exists()


@pytest.mark.parametrize("args,says", [
    (["{mac}", "{top1}", "{thop}", "-o", "{out}.svg"], "tables come in pairs"),
    (["{mac}", "{top1}", "-o", "{out}.png"], "a figure is written as .svg or .pdf"),
    (["{mac}", "{top1}", "-o", "{out}.svg", "--arch", "1,2"], "2 indices for a space of 16 blocks"),
    (["{mac}", "{top1}", "-o", "{out}.svg", "--ref", "nameonly"], "NAME=ARCH or NAME=TABLE.sslat@VALUE"),
    (["{mac}", "{top1}", "-o", "{out}.svg", "--ref", "r=r.sslat@x"], "the value after @ is a number"),
    (["{mac}", "{top1}", "-o", "{out}.svg", "--ref", "r={mac}@3"], "is a table of a search space"),
    (["{mac}", "{top1}", "-o", "{out}.svg", "--label", "a", "--label", "b"], "2 --label for 1 fronts"),
    (["{mac}", "{top1}", "-o", "{out}.svg", "--size", "10x10"], "120 to 2000 pt wide"),
    (["{mac}", "{resnet18}", "-o", "{out}.svg"], "is not of the latency table's space"),
])
def test_bad_plots_are_refused_naming_what(tables, tmp_path, args, says):
    command, folder, paths = tables
    values = dict({k: str(v) for k, v in paths.items()}, out=str(tmp_path / "fig"))
    result = run(command, "plot", *[a.format(**values) for a in args], check=False)
    assert result.returncode in (1, 2) and says in result.stderr, result.stderr
    assert not list(tmp_path.glob("fig*"))


def test_a_timed_front_has_its_band_of_the_entries_spread(tables, tmp_path):
    command, folder, paths = tables
    if "tiny" not in paths:
        pytest.skip("the cpu calculator cannot run here")
    svg = tmp_path / "band.svg"
    run(command, "plot", paths["tiny"], paths["tiny_top1"], "-o", svg)
    root = svg_root(svg)
    bands = [p for p in root.iter(SVG + "path") if p.get("fill") == "#0072b2" and p.get("fill-opacity") == "0.20"]
    assert len(bands) == 2  # the band and its legend swatch
    assert "band: latency +/- 1 sd of the entries' spread" in texts(root)
    # an analytic front has none
    run(command, "plot", paths["mac"], paths["top1"], "-o", tmp_path / "flat.svg")
    assert "fill-opacity" not in (tmp_path / "flat.svg").read_text()


def test_python_draws_the_clis_figure_and_the_report_embeds_it(tables, tmp_path):
    command, folder, paths = tables
    mac = sslat.SearchSpaceLatencyContainer.load_from_file(str(paths["mac"]))
    top1 = sslat.SearchSpaceLatencyContainer.load_from_file(str(paths["top1"]))
    arch = [1] * 16
    resnet18 = sslat.SearchSpaceLatencyContainer.load_from_file(str(paths["resnet18"])).constant_latency
    sslat.plot(tmp_path / "py.svg", (mac, top1), references=[("mbv2", arch), ("other", resnet18, 61.0)], chosen=arch)
    run(command, "plot", paths["mac"], paths["top1"], "-o", tmp_path / "cli.svg", "--ref", "mbv2=" + ",".join(["1"] * 16),
        "--ref", "other=%s@61" % paths["resnet18"], "--arch", ",".join(["1"] * 16))
    py, cli = (tmp_path / "py.svg").read_text(), (tmp_path / "cli.svg").read_text()
    assert "mbv2" in py and "other" in py and "chosen" in py
    assert py.count("<circle") == cli.count("<circle") >= 3  # the numbered points (the front may have fewer than 8)
    # the front itself, drawn alike
    front = lambda text: re.search(r'<path d="([^"]+)" fill="none" stroke="#0072b2"', text).group(1)  # noqa: E731
    assert front(py) == front(cli)
    sslat.plot(tmp_path / "py.pdf", [(mac, top1)], points=0)
    assert (tmp_path / "py.pdf").read_bytes().startswith(b"%PDF-1.4")
    with pytest.raises(sslat.InvalidArgumentError, match="written as .svg or .pdf"):
        sslat.plot(tmp_path / "py.png", (mac, top1))
    with pytest.raises(sslat.InvalidArgumentError, match="the chosen architecture, of the first front's space: the "
                       "architecture has 2 indices but the table has 16 blocks"):
        sslat.plot(tmp_path / "py.svg", (mac, top1), chosen=[1, 2])
    with pytest.raises(sslat.InvalidArgumentError, match="arch\\[3\\] = 9 is out of range"):
        sslat.plot(tmp_path / "py.svg", (mac, top1), chosen=[1, 1, 1, 9] + [1] * 12)
    with pytest.raises(ValueError, match="labels: one string per front"):
        sslat.plot(tmp_path / "py.svg", (mac, top1), labels=["a", "b"])
    # the report's front is this drawing at the report's size, numbered as its table
    page = tmp_path / "report.html"
    run(command, "report", paths["mac"], "--value", paths["top1"], "-o", page)
    html = page.read_text()
    embedded = re.search(r'<svg [^>]*id="pareto".*?</svg>', html, flags=re.S).group(0)
    run(command, "plot", paths["mac"], paths["top1"], "-o", tmp_path / "wide.svg", "--size", "560x300",
        "--points", "12")
    assert front(embedded) == front((tmp_path / "wide.svg").read_text())
    table = html[html.index('id="pareto-points"'):]
    numbers = [int(n) for n in re.findall(r"<tr><td>(\d+)</td>", table.split("</table>")[0])]
    assert numbers == list(range(1, len(numbers) + 1)) and len(numbers) >= 3  # up to 12: the front's points
    assert embedded.count("<circle") == len(numbers)  # each numbered on the drawing
