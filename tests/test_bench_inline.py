"""``remask bench inline``: half-typed HumanEval lines, filled through ``Rewriter.fill_at``."""

from __future__ import annotations

import json

import pytest

from remask.bench.humaneval import load_tasks, subset
from remask.bench.inline import half_typed
from remask.bench.sandbox import SandboxConfig
from remask.cli import main
from remask.diffing.canvas import HOLE_SAMPLES, LINE_LENGTHS


def test_half_typed_keeps_the_line_break_out_of_the_hole_and_the_reference_passes():
    """Typing the reference's second half back at the cursor gives the original program,
    which passes its tests: the split loses nothing."""
    for t in subset(load_tasks("single-line"), 6):
        text, typed, brk = half_typed(t)
        line = t.canonical_solution
        assert line.startswith(typed) and len(typed.strip()) >= 1
        assert brk == ("\n" if line.endswith("\n") else "")
        cursor = len(t.prompt) + len(typed)
        assert text[cursor:].startswith("\n")  # the cursor ends what the user has typed
        rest = line[len(typed):len(line) - len(brk)]
        assert "\n" not in rest
        assert text[:cursor] + rest + text[cursor:] == t.prompt + line + t.suffix
        assert t.judge(typed + rest + brk, SandboxConfig()).status == "passed"


def test_a_run_reports_every_column_and_each_tasks_line(tmp_path, capsys):
    out = tmp_path / "inline.json"
    assert main(["bench", "inline", "--limit", "3", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    row = data["rows"][0]
    lines = {t.task_id: t.canonical_solution for t in subset(load_tasks("single-line"), 3)}
    assert set(lines) == {r["task_id"] for r in data["meta"]["per_task"]}
    assert row["tasks"] == 3 and 0.0 <= row["pass@1"] <= 1.0
    assert row["latency_p95_ms"] >= row["latency_p50_ms"] > 0
    assert row["denoising_steps_per_task"] > 0  # a refused fill is paid for too
    for r in data["meta"]["per_task"]:
        assert r["completion"].startswith(r["typed"])
        assert r["fill"] is None or "\n" not in r["fill"]  # a one-line fill writes no break
        assert r["status"] != "unjudged"
        line = lines[r["task_id"]]
        assert r["prefix"] == (bool(r["fill"] and r["fill"].strip())
                               and line.startswith(r["typed"] + r["fill"]))
        assert r["prefix"] or not (r["exact"] and (r["fill"] or "").strip())
    assert row["prefix_match"] == sum(r["prefix"] for r in data["meta"]["per_task"]) / 3
    assert "pass@1" in capsys.readouterr().out


def test_quick_fills_as_a_suggestion_shown_while_typing(tmp_path):
    """``--quick`` denoises the argmax rows alone; a fill asked for draws rows beside them."""
    rows = {}
    for quick in (False, True):
        out = tmp_path / f"inline-{quick}.json"
        assert main(["bench", "inline", "--limit", "3", "--json", str(out),
                     *(["--quick"] if quick else [])]) == 0
        data = json.loads(out.read_text())
        assert data["meta"]["quick"] is quick
        rows[quick] = [r["rows"] for r in data["meta"]["per_task"]]
    assert rows[True] == [len(LINE_LENGTHS)] * 3
    assert rows[False] == [len(LINE_LENGTHS) + HOLE_SAMPLES] * 3


@pytest.mark.parametrize("argv,message", [(["--limit", "0"], "--limit must be at least 1"),
                                          (["--timeout", "0"], "--timeout must be > 0")])
def test_bad_input_exits_2_with_one_line(argv, message, capsys):
    assert main(["bench", "inline", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
