"""Value tables: a user's own per-candidate values (an accuracy predictor's
terms, energy, memory) with a name and a unit, from CSV / JSON through
`sslat import --values` and from Python through sslat.value_table; every
output that shows them uses that name and unit."""
import json
import subprocess

import pytest

import sslat
from conftest import EXAMPLES

SPACE = EXAMPLES / "mobilenet_v2_space.json"


def run(command, *args, check=True):
    result = subprocess.run([command, *map(str, args)], capture_output=True, text=True)
    if check:
        assert result.returncode == 0, result.stderr
    return result


@pytest.fixture
def space():
    return sslat.SearchSpace(str(SPACE))


def top1_rows(space):
    """block,candidate,value rows (by name and label for even blocks, by index for odd ones) and the values."""
    rows, values = ["block,candidate,value", "constant,,60.5"], []
    for b in range(space.block_count):
        block = []
        for c in range(space.candidate_counts[b]):
            value = 0.05 * b + 0.01 * c
            block.append(value)
            if b % 2:
                rows.append("%d,%d,%r" % (b, c, value))
            else:
                rows.append("%s,%s,%r" % (space.block_names[b], space.candidate_labels[b][c], value))
        values.append(block)
    return rows, values


def test_csv_and_json_values_make_the_same_named_table_bound_to_the_space(sslat_command, space, tmp_path):
    rows, values = top1_rows(space)
    (tmp_path / "top1.csv").write_text("# my predictor's terms\n" + "\n".join(rows) + "\n")
    run(sslat_command, "import", "--values", tmp_path / "top1.csv", "--name", "top1", "--unit", "%", "--space",
        SPACE, "-o", tmp_path / "csv.sslat")
    by_name = {space.block_names[b]: {space.candidate_labels[b][c]: v for c, v in enumerate(block)}
               for b, block in enumerate(values)}
    (tmp_path / "list.json").write_text(json.dumps({"constant": 60.5, "values": values}))
    (tmp_path / "names.json").write_text(json.dumps({"constant": 60.5, "values": by_name}))
    for name in ("list", "names"):
        run(sslat_command, "import", "--values", tmp_path / (name + ".json"), "--name", "top1", "--unit", "%",
            "--space", SPACE, "-o", tmp_path / (name + ".sslat"))
    tables = [sslat.SearchSpaceLatencyContainer.load_from_file(str(tmp_path / (n + ".sslat")))
              for n in ("csv", "list", "names")]
    for table in tables:
        assert table.latency_type == "value" and table.value_name == "top1" and table.unit == "%"
        assert table.space_hash == space.hash  # bound like any table
        assert table.constant_latency == 60.5
        assert table.operations_latencies == values
        assert table.metadata["value.name"] == "top1"
    # round trips: JSON export and import, the binary, bytes
    exported = tmp_path / "again.json"
    run(sslat_command, "export", tmp_path / "csv.sslat", "--json", "-o", exported)
    run(sslat_command, "import", exported, "-o", tmp_path / "again.sslat")
    again = sslat.SearchSpaceLatencyContainer.load_from_file(str(tmp_path / "again.sslat"))
    assert (again.value_name, again.unit, again.operations_latencies) == ("top1", "%", values)
    copy = sslat.SearchSpaceLatencyContainer.load_from_bytes(tables[0].save_to_bytes())
    assert (copy.value_name, copy.unit) == ("top1", "%")


BAD_VALUES = [
    ("block,candidate,value\n0,0,1\n", "has no value: every candidate"),
    ("block,value\n", "three fields"),
    ("blk,cand,val\n0,0,1\n", "the header block,candidate,value"),
    ("block,candidate,value\n0,0,1\n0,0,2\n", "line 3: a second value"),
    ("block,candidate,value\nnope,0,1\n", "line 2: the space has no block 'nope'"),
    ("block,candidate,value\n0,ir_k9_e9,1\n", "line 2: block 0 (blk00) has no candidate 'ir_k9_e9'"),
    ("block,candidate,value\n0,0,-1\n", "not a finite number >= 0"),
    ("block,candidate,value\n0,0,abc\n", "value 'abc' is not a number"),
    ("block,candidate,value\n\n# a comment\n\n0,0,abc\n", "line 5: value 'abc' is not a number"),  # blank lines count
    ('{"constant": 1, "values": [[1]]}', "values has 1 lists; the space has 16 blocks"),
    ('{"values": {"blk00": {"ir_k3_e3": "x"}}}', "values.blk00.ir_k3_e3: not a number"),
    ('{"value": []}', "unknown key 'value'"),
]


@pytest.mark.parametrize("text,says", BAD_VALUES)
def test_bad_values_are_refused_naming_the_place(sslat_command, tmp_path, text, says):
    path = tmp_path / ("values.json" if text.startswith("{") else "values.csv")
    path.write_text(text)
    out = tmp_path / "top1.sslat"
    result = run(sslat_command, "import", "--values", path, "--name", "top1", "--space", SPACE, "-o", out,
                 check=False)
    assert result.returncode == 2, result.stderr
    assert says in result.stderr and str(path) in result.stderr, result.stderr
    assert not out.exists()


@pytest.mark.parametrize("name,unit,says", [
    ("mac", "%", "is a latency type's name"), ("top,1", "%", "without quotes, backslashes or commas"),
    ("", "%", "1 to 40 characters"), ("x" * 41, "%", "1 to 40 characters"), ("top1", "u" * 17, "0 to 16"),
    ("top1", "a\tb", "printable ASCII")])
def test_a_bad_name_or_unit_is_refused(sslat_command, space, tmp_path, name, unit, says):
    rows, _ = top1_rows(space)
    (tmp_path / "v.csv").write_text("\n".join(rows))
    result = run(sslat_command, "import", "--values", tmp_path / "v.csv", "--name", name, "--unit", unit,
                 "--space", SPACE, "-o", tmp_path / "v.sslat", check=False)
    assert result.returncode == 2 and says in result.stderr, result.stderr
    with pytest.raises(sslat.InvalidArgumentError, match=says.split(" (")[0]):
        sslat.value_table([[1.0] * n for n in space.candidate_counts], name, unit)


def test_value_options_need_each_other(sslat_command, tmp_path):
    for args in (["--values", "v.csv", "--space", SPACE], ["--name", "top1", "--space", SPACE],
                 ["--values", "v.csv", "--name", "top1"]):
        result = run(sslat_command, "import", *args, "-o", tmp_path / "x.sslat", check=False)
        assert result.returncode == 2 and "a value table needs --values FILE, --name NAME and --space" in result.stderr


def test_every_output_labels_the_values_with_their_name_and_unit(sslat_command, space, tmp_path):
    rows, _ = top1_rows(space)
    (tmp_path / "top1.csv").write_text("\n".join(rows))
    top1, mac = tmp_path / "top1.sslat", tmp_path / "mac.sslat"
    run(sslat_command, "import", "--values", tmp_path / "top1.csv", "--name", "top1", "--unit", "%", "--space",
        SPACE, "-o", top1)
    run(sslat_command, "measure", "-c", "mac", SPACE, "-o", mac)
    stats = run(sslat_command, "stats", top1).stdout
    assert stats.startswith("table         top1 (%), a value table, space mobilenet_v2_space"), stats
    pareto = run(sslat_command, "pareto", mac, top1, "--points", "3").stdout
    assert "against top1 (higher is better)" in pareto and "top1 in % per architecture" in pareto
    assert "top1 %" in pareto and "mac (" not in pareto.split("\n")[0]
    front = json.loads(run(sslat_command, "pareto", mac, top1, "--json").stdout)
    assert (front["value_type"], front["value_name"], front["value_unit"]) == ("value", "top1", "%")
    csv = run(sslat_command, "pareto", mac, top1, "--csv").stdout.splitlines()[0]
    assert csv.startswith("rank,latency_MMAC,top1_%,"), csv
    budget = run(sslat_command, "budget", mac, "--limit", "300", "--maximize", top1).stdout
    assert "best by top1" in budget and " % at " in budget
    best = json.loads(run(sslat_command, "budget", mac, "--limit", "300", "--maximize", top1, "--json").stdout)
    assert best["value_name"] == "top1" and best["value_unit"] == "%"
    report = tmp_path / "report.html"
    run(sslat_command, "report", mac, "--value", top1, "-o", report)
    html = report.read_text()
    assert "Pareto front: latency against top1" in html and "top1 in % (higher is better)" in html
    sweep = run(sslat_command, "sweep", SPACE, "-c", "mac", "--resolution", "224,192", "--budget", "300",
                "--value", top1, "-o", tmp_path / "sweep").stdout
    assert "most top1 within 300 MMAC per point" in sweep and "% top1" in sweep
    summary = (tmp_path / "sweep" / "summary.csv").read_text().splitlines()[0]
    assert "budget_300_top1" in summary
    # a value table of another space is refused before any point is measured
    other_space = EXAMPLES / "fbnet.json"
    other = sslat.SearchSpace(str(other_space))
    sslat.value_table([[1.0] * n for n in other.candidate_counts], "top1", "%", space=other).save_to_file(
        str(tmp_path / "other.sslat"))
    refused = run(sslat_command, "sweep", SPACE, "-c", "mac", "--budget", "300", "--value", tmp_path / "other.sslat",
                  "-o", tmp_path / "refused", check=False)
    assert refused.returncode == 2, refused.stderr
    assert "--value: the value table has 22 blocks, the space 16" in refused.stderr
    left = list((tmp_path / "refused").glob("*.sslat*")) if (tmp_path / "refused").exists() else []
    assert left == []  # nothing measured, no table or journal left behind
    # a MAC table keeps its own name
    assert json.loads(run(sslat_command, "stats", mac, "--json").stdout)["value_name"] == "mac"


def test_python_value_tables_round_trip_and_bind_to_the_space(space, tmp_path):
    _, values = top1_rows(space)
    table = sslat.value_table(values, "energy", "mJ", constant=3.5, space=space)
    assert (table.latency_type, table.value_name, table.unit) == ("value", "energy", "mJ")
    assert table.space_hash == space.hash and table.block_names == space.block_names
    path = tmp_path / "energy.sslat"
    table.save_to_file(str(path))
    again = sslat.SearchSpaceLatencyContainer.load_from_file(str(path))
    assert (again.value_name, again.unit, again.constant_latency) == ("energy", "mJ", 3.5)
    # another space's shape is refused
    with pytest.raises(sslat.SpaceError):
        sslat.value_table([[1.0]], "energy", "mJ", space=space)
    # a MAC table cannot be renamed into a value table
    mac = sslat.SearchSpaceLatencyContainer("mac", 1.0, [[1.0]])
    with pytest.raises(sslat.InvalidArgumentError, match="keeps its own name"):
        with mac._handle.use() as pointer:
            sslat._native.call(sslat._lib.sslat_container_name_values, pointer, b"top1", b"%")


def test_a_value_table_without_its_name_or_with_two_units_is_refused_on_import(sslat_command, space, tmp_path):
    _, values = top1_rows(space)
    table = sslat.value_table(values, "top1", "%", space=space)
    exported = json.loads(table.to_json())
    unnamed = dict(exported, metadata={k: v for k, v in exported["metadata"].items() if k != "value.name"})
    (tmp_path / "unnamed.json").write_text(json.dumps(unnamed))
    result = run(sslat_command, "import", tmp_path / "unnamed.json", "-o", tmp_path / "x.sslat", check=False)
    assert result.returncode != 0 and "a value table needs metadata.value.name" in result.stderr, result.stderr
    (tmp_path / "units.json").write_text(json.dumps(dict(exported, unit="mJ")))
    result = run(sslat_command, "import", tmp_path / "units.json", "-o", tmp_path / "x.sslat", check=False)
    assert result.returncode != 0 and "unit differs from metadata.unit" in result.stderr, result.stderr
    assert not (tmp_path / "x.sslat").exists()
