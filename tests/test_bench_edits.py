"""``remask bench edits``: the reversed-edit cases are consistent, and the command reports real
rows (table + JSON) from the real bundled model; bad input is one line and exit 2."""

from __future__ import annotations

import argparse
import ast
import json
import random

import pytest

from remask.bench import edits
from remask.bench.edit_cases import (
    add_argument_case,
    clean,
    pass_param_case,
    real_cases,
    rename_case,
    repair_case,
    replace_all,
)

CODE = '''def scale(values, factor):
    total = 0
    for v in values:
        total += v * factor
    return total


def main():
    data = [1, 2, 3]
    print(scale(data, 2), scale([4], 3))
'''


def parse_args(*argv):
    parser = argparse.ArgumentParser()
    edits.register(parser.add_subparsers())
    return parser.parse_args(["edits", *argv])


def test_reversed_cases_are_consistent():
    rng = random.Random(0)
    rename = rename_case("m.py", CODE, rng)
    assert rename.expected == CODE and rename.before != CODE and rename.after != rename.before
    ast.parse(rename.before)
    add = add_argument_case("m.py", CODE, rng)
    assert add.expected == CODE and "def scale(values, factor)" in add.after
    assert add.before.count("scale(") == CODE.count("scale(") and add.before != add.after
    ast.parse(add.after)
    rep = repair_case("m.py", CODE, rng)
    assert rep.before == rep.expected == CODE and len(rep.after) == len(CODE) - 1
    with pytest.raises(SyntaxError):
        ast.parse(rep.after)


FORWARDING = '''class Reader(Base):
    def read(self, size, *, timeout=None, retries=3):
        return self._inner.read(size, timeout=timeout, retries=retries)


def open_reader(path):
    return Reader(path)
'''


def test_a_pass_param_case_takes_a_forwarded_parameter_out_of_def_and_call():
    case = pass_param_case("m.py", FORWARDING, random.Random(0))
    assert case.expected == FORWARDING and case.kind == "pass-param"
    name = case.id.rsplit(".", 1)[1]
    assert f"{name}={name}" not in case.before and f"{name}={name}" not in case.after
    assert name not in case.before.split("\n")[1] and name in case.after.split("\n")[1]
    ast.parse(case.before)
    assert pass_param_case("m.py", CODE, random.Random(0)) is None  # scale() passes nothing on


def test_real_cases_and_reference_points():
    cases = real_cases()
    assert len(cases) == 192
    case = next(c for c in cases if c.kind == "rename")
    assert clean(case, case.expected) and clean(case, case.after)
    assert replace_all(case) != case.after


def test_command_writes_rows_for_each_kind(tmp_path, capsys):
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text(CODE)
    out = tmp_path / "edits.json"
    assert edits.run(parse_args("--source", str(src), "--limit", "1", "--json", str(out))) == 0
    data = json.loads(out.read_text())
    rows = {r["kind"]: r for r in data["rows"]}
    assert set(rows) == {"rename", "add-argument", "repair", "all"}
    for r in rows.values():
        for k in ("exact", "model exact", "parse", "proposed"):
            assert 0.0 <= r[k] <= 1.0
        assert r["p50 s"] <= r["p95 s"]
    assert len(data["meta"]["cases"]) == 3
    assert "remask bench edits" in capsys.readouterr().out


def test_real_mode_reports_clean_and_baseline(tmp_path):
    out = tmp_path / "real.json"
    argv = ["--real", "--limit", "1", "--rounds", "0", "--json", str(out)]
    assert edits.run(parse_args(*argv)) == 0
    data = json.loads(out.read_text())
    assert "clean" in data["columns"] and "replace-all exact" in data["columns"]
    assert data["rows"][-1]["kind"] == "all" and data["rows"][-1]["cases"] == 1


@pytest.mark.parametrize("argv", [["--limit", "0"], ["--source", "/nonexistent"],
                                  ["--candidates", "0"], ["--rounds", "-1"],
                                  ["--model", "/nonexistent"]])
def test_bad_input(argv, capsys, tmp_path):
    out = tmp_path / "x.json"
    assert edits.run(parse_args(*argv, "--json", str(out))) == 2
    err = capsys.readouterr().err
    assert err.startswith("remask bench edits: ") and err.count("\n") == 1
    assert not out.exists()
