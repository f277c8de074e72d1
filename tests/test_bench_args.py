"""What every ``remask bench`` does at its edges: ``--json`` and numeric flags checked first.

A benchmark runs for minutes to hours; a flag it cannot honour must be one line and exit 2
before any work, not a traceback after it (or a hang, or a crash inside OpenMP).
"""

from __future__ import annotations

import json
import math

import pytest

import remask.bench.infill
from remask.bench.report import report
from remask.cli import main


def _no_work(*_args, **_kwargs):
    raise AssertionError("the benchmark started")


@pytest.mark.parametrize("bench", [["infill", "--limit", "1"], ["edits", "--limit", "1"],
                                   ["lines", "--real-edits", "--limit", "1"],
                                   ["inline", "--limit", "1"]])
@pytest.mark.parametrize("where", ["dir", "under-a-file"])
def test_a_json_out_that_cannot_be_written_is_refused_before_the_bench(
        bench, where, tmp_path, capsys, monkeypatch):
    # Before, the bench ran to the end and then died with IsADirectoryError or
    # FileExistsError: the table printed, the figures lost, a traceback.
    for module in ("infill", "edits", "lines", "inline"):
        monkeypatch.setattr(f"remask.bench.{module}.load_engine", _no_work)
    (tmp_path / "file").write_text("x")
    out = tmp_path if where == "dir" else tmp_path / "file" / "r.json"
    assert main(["bench", *bench, "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"remask bench {bench[0]}: --json ") and err.count("\n") == 1


def test_a_json_out_that_fails_at_the_end_is_one_line_and_no_file(tmp_path, capsys,
                                                                   monkeypatch):
    out = tmp_path / "r.json"
    real = remask.bench.infill.generate_all

    def generate_then_block(*args, **kwargs):
        out.mkdir()  # the path turns into a folder while the bench runs
        return real(*args, **kwargs)

    monkeypatch.setattr(remask.bench.infill, "generate_all", generate_then_block)
    assert main(["bench", "infill", "--limit", "1", "--samples", "0", "--json", str(out)]) == 2
    err = capsys.readouterr().err
    assert "not written" in err and err.count("\n") == 1
    assert list(out.iterdir()) == [] and [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_the_json_is_strict_json_with_null_for_a_figure_that_is_not_finite(tmp_path, capsys):
    # Python writes NaN / Infinity, which jq, JavaScript and Go refuse: one diverged loss
    # made the whole file unreadable to them.
    path = tmp_path / "r.json"
    report([{"ce": math.nan, "ratio": math.inf, "ok": 1.5}], ["ce", "ratio", "ok"], "t", path,
           {"per_task": [{"x": -math.inf}]})

    def strict(name: str) -> None:
        raise ValueError(f"not JSON: {name}")

    data = json.loads(path.read_text(), parse_constant=strict)
    assert data["rows"] == [{"ce": None, "ratio": None, "ok": 1.5}]
    assert data["meta"]["per_task"] == [{"x": None}]


@pytest.mark.parametrize("argv, message", [
    (["infill", "--timeout", "nan"], "--timeout must be > 0 and finite"),
    (["infill", "--timeout", "inf"], "--timeout must be > 0 and finite"),
    (["infill", "--threads", "100000"], "--threads must be from 1 to"),
    (["speed", "--threads", "100000"], "--threads must be from 1 to"),
    (["quality", "--timeout", "inf"], "--timeout must be > 0 and finite"),
    (["quality", "--threads", "100000"], "--threads must be from 1 to"),
    (["inline", "--timeout", "nan"], "--timeout must be > 0 and finite"),
    (["lines", "--real-edits", "--threads", "100000"], "--threads must be from 1 to"),
    (["infill", "--samples", "100000"], "--samples must be from 0 to"),  # 200 GB of rows
    (["speed", "--samples", "100000"], "--samples must be from 0 to"),
    (["lines", "--real-edits", "--samples", "100000"], "--samples must be from 0 to"),
    (["edits", "--candidates", "100000"], "--candidates must be from 1 to"),
    (["lsp", "--pause", "inf"], "finite --pause"),
    (["lsp", "--pause", "nan"], "finite --pause"),
    (["lsp", "--cps", "20", "inf"], "finite 0 < MIN <= MAX cps"),
    (["stress", "--seconds", "inf"], "finite --seconds"),
    (["stress", "--seconds", "nan"], "finite --seconds"),
])
def test_a_number_no_bench_can_honour_is_one_line_and_exit_2(argv, message, capsys,
                                                             monkeypatch):
    # Before: nan seconds judged every task failed (exit 0), inf ones waited forever on a
    # hung program or never stopped typing, and 100000 threads died of SIGSEGV in OpenMP.
    for module in ("infill", "quality", "inline", "lines", "speed"):
        monkeypatch.setattr(f"remask.bench.{module}.load_engine", _no_work)
    monkeypatch.setattr("remask.bench.lsp.asyncio.run", _no_work)
    assert main(["bench", *argv, "--limit", "1"] if argv[0] not in ("lsp", "stress")
                else ["bench", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
