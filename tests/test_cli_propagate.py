"""``remask propagate BEFORE AFTER`` end to end through ``main`` with the real bundled model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from remask.cli import main

BEFORE = ("def total(items, scale):\n    return sum(items) * scale\n\n\n"
          "def other(items):\n    return items\n\n\nprint(total([1], scale=2))\n")


def run(capsys, *argv):
    code = main(["propagate", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    before, after = tmp_path / "before.py", tmp_path / "after.py"
    before.write_text(BEFORE)
    after.write_text(BEFORE.replace("def total(items", "def total(values"))
    return before, after


def test_rename_diff_and_write(files, capsys):
    before, after = files
    code, out, err = run(capsys, before, after)
    assert code == 0, err
    assert "+    return sum(values) * scale" in out
    assert "def other(items)" in after.read_text()  # not written without --write
    code, _, _ = run(capsys, before, after, "--write")
    assert code == 0
    assert after.read_text() == BEFORE.replace("items", "values", 2)
    assert before.read_text() == BEFORE


def test_json(files, capsys):
    before, after = files
    code, out, _ = run(capsys, before, after, "--json")
    data = json.loads(out)
    assert code == 0 and data["path"] == str(after)
    assert [s["reason"].split(" ")[0] for s in data["spans"]] == ["use"]
    assert data["text"] == BEFORE.replace("items", "values", 2)


def test_signature_change_updates_the_call(tmp_path, capsys):
    before, after = tmp_path / "b.py", tmp_path / "a.py"
    before.write_text(BEFORE)
    after.write_text(BEFORE.replace("def total(items, scale)", "def total(items, scale, bias)"))
    code, out, err = run(capsys, before, after, "--json")
    assert code == 0, err
    assert "print(total([1], scale=2, bias=bias))" in json.loads(out)["text"]


def test_a_new_parameter_is_passed_on_where_the_body_forwards_the_others(tmp_path, capsys):
    code = ("class Server(Base):\n    def __init__(self, host, port, ssl=None):\n"
            "        Base.__init__(self, host, port,\n                      ssl)\n"
            "        self.ready = False\n")
    before, after = tmp_path / "b.py", tmp_path / "a.py"
    before.write_text(code)
    after.write_text(code.replace("ssl=None)", "ssl=None, fd=None)"))
    code_, out, err = run(capsys, before, after, "--json")
    assert code_ == 0, err
    data = json.loads(out)
    assert "                      ssl, fd)\n" in data["text"]
    assert [s["reason"] for s in data["spans"]] == \
        ["'fd' added to __init__(): pass it to __init__() on line 3"]


@pytest.mark.parametrize("edit", ["# a comment\n", ""])
def test_an_edit_that_calls_for_nothing_is_success_without_the_model(tmp_path, capsys, edit):
    """``fill`` with no hole and ``repair`` with no error exit 0; a comment added, or the
    same file twice, loaded the model and exited 1 as if a proposal had failed."""
    before, after = tmp_path / "before.py", tmp_path / "after.py"
    before.write_text(BEFORE)
    after.write_text(BEFORE + edit)
    code, out, err = run(capsys, before, after, "--write", "--json", "--model", tmp_path / "no")
    assert code == 0 and "no follow-up edit to propose" in err
    assert json.loads(out) == {"path": str(after), "text": BEFORE + edit, "spans": [],
                               "trace": {}}
    assert after.read_text() == BEFORE + edit


@pytest.mark.parametrize("args", [
    ["{before}", "{missing}"],
    ["{missing}", "{after}"],
    ["{before}", "{binary}"],
    ["{before}", "{after}", "--cursor", "99999"],
    ["{before}", "{after}", "--candidates", "0"],
    ["{before}", "{after}", "--candidates", "100000"],
    ["{before}", "{after}", "--verify", " "],
], ids=["missing-after", "missing-before", "binary", "cursor", "candidates", "candidates-max",
        "verify"])
def test_bad_input_is_one_line_exit_2_nothing_written(files, tmp_path, capsys, args):
    before, after = files
    binary = tmp_path / "bin.py"
    binary.write_bytes(b"\x00\x00")
    names = {"before": before, "after": after, "missing": tmp_path / "nope.py",
             "binary": binary}
    snapshot = after.read_bytes()
    code, out, err = run(capsys, *[a.format(**names) for a in args], "--write")
    assert code == 2 and out == ""
    assert err.startswith("remask propagate: ") and err.count("\n") == 1
    assert after.read_bytes() == snapshot


LIB = "def total(items, scale):\n    return sum(items) * scale\n"


@pytest.fixture
def project(tmp_path):
    """A package whose ``lib`` is edited, a module importing it, and BEFORE kept outside."""
    root = tmp_path / "proj"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("")
    (root / "pkg" / "lib.py").write_text(LIB)
    (root / "pkg" / "use.py").write_text(
        "from .lib import total\n\n\ndef report(xs):\n    return total(xs, 2)\n")
    (root / "main.py").write_text("from pkg import lib\n\nprint(lib.total([1], scale=3))\n")
    (root / "notes.py").write_bytes(b"\xff\xfe")  # not UTF-8: said, and left
    (tmp_path / "lib_before.py").write_text(LIB)
    return root


def test_project_follows_a_rename_into_the_importing_modules(project, capsys):
    before, after = project.parent / "lib_before.py", project / "pkg" / "lib.py"
    after.write_text(LIB.replace("def total(", "def grand_total("))
    code, out, err = run(capsys, before, after, "--project", project, "--write")
    assert code == 0, err
    assert "notes.py: not UTF-8" in err
    assert (project / "pkg" / "use.py").read_text() == \
        "from .lib import grand_total\n\n\ndef report(xs):\n    return grand_total(xs, 2)\n"
    assert (project / "main.py").read_text() == \
        "from pkg import lib\n\nprint(lib.grand_total([1], scale=3))\n"
    assert "+print(lib.grand_total([1], scale=3))" in out  # each written file's diff


def test_project_updates_call_sites_of_a_changed_signature_as_json_lines(project, capsys):
    before, after = project.parent / "lib_before.py", project / "pkg" / "lib.py"
    after.write_text(LIB.replace("(items, scale)", "(items, *, scale)"))
    code, out, err = run(capsys, before, after, "--project", project, "--json")
    assert code == 0, err
    found = {Path(d["path"]).name: d for d in map(json.loads, out.splitlines())}
    assert set(found) == {"use.py"}  # main.py passes scale by name already
    assert "return total(xs, scale=2)" in found["use.py"]["text"]
    assert found["use.py"]["spans"][0]["reason"].endswith("(defined in pkg.lib)")
    assert "total(xs, 2)" in (project / "pkg" / "use.py").read_text()  # no --write


def test_project_must_be_a_directory(project, capsys):
    before, after = project.parent / "lib_before.py", project / "pkg" / "lib.py"
    code, out, err = run(capsys, before, after, "--project", project / "main.py")
    assert code == 2 and out == "" and err.count("\n") == 1 and "not a directory" in err
