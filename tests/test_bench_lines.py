"""``remask bench lines``: line tasks cut from a real held-out split, filled by the real model."""

from __future__ import annotations

import ast
import json
import sysconfig
import textwrap
from pathlib import Path

import pytest

from remask.bench.infill import is_exact
from remask.bench.lines import (
    BLOCK_LINES,
    PER_FILE,
    SPAN_CHARS,
    cut_tasks,
    heldout_files,
    real_edits_files,
)
from remask.cli import main
from remask.infill.corpus import write_split

STDLIB = Path(sysconfig.get_paths()["stdlib"])
FILES = ("textwrap.py", "shlex.py", "fnmatch.py", "colorsys.py", "bisect.py")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    """A held-out split of five real standard-library files, written as ``remask train`` does."""
    root = tmp_path_factory.mktemp("corpus")
    write_split(root, "heldout", [(name, (STDLIB / name).read_bytes()) for name in FILES])
    return root


@pytest.fixture(scope="module")
def held(corpus) -> list[tuple[str, str]]:
    return heldout_files(corpus)


def test_each_task_is_one_whole_statement_line_of_a_function_body(held):
    tasks = cut_tasks(held, 100)
    assert len(tasks) == len({t.task_id for t in tasks}) == len(FILES) * PER_FILE
    sources = {name: (STDLIB / name).read_text() for name in FILES}
    per_file: dict[str, int] = {}
    for t in tasks:
        name, line = t.task_id.rsplit(":", 1)
        per_file[name] = per_file.get(name, 0) + 1
        assert t.prompt + t.canonical_solution + t.suffix == sources[name]
        assert t.prompt.count("\n") == int(line) - 1 and t.canonical_solution.endswith("\n")
        (stmt,) = ast.parse(textwrap.dedent(t.canonical_solution)).body  # one statement
        assert not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant))
        assert t.canonical_solution[0] in " \t"  # indented: inside a body, not a module line
    assert max(per_file.values()) <= PER_FILE
    assert [t.task_id for t in cut_tasks(held, 100)] == [t.task_id for t in tasks]  # seeded
    assert [t.task_id for t in cut_tasks(held, 5)] == [t.task_id for t in tasks[:5]]


def _function_ranges(src: str) -> list[tuple[int, int]]:
    """Character ranges of ``src``'s function bodies' lines, docstrings included."""
    starts = [0]
    for line in src.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return [(starts[fn.body[0].lineno - 1], starts[fn.end_lineno])
            for fn in ast.walk(ast.parse(src))
            if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)]


def test_a_block_task_is_a_run_of_whole_statement_lines_of_one_body(held):
    tasks = cut_tasks(held, 100, kind="block")
    assert len(tasks) >= 2 * len(FILES) and len({t.task_id for t in tasks}) == len(tasks)
    sources = {name: (STDLIB / name).read_text() for name in FILES}
    for t in tasks:
        name = t.task_id.split(":")[0]
        src = sources[name]
        assert t.prompt + t.canonical_solution + t.suffix == src
        assert t.prompt.endswith("\n") and t.canonical_solution.endswith("\n")
        assert 2 <= t.canonical_solution.count("\n") <= BLOCK_LINES
        assert ast.parse(textwrap.dedent(t.canonical_solution)).body  # whole statements
        a = len(t.prompt)
        assert any(s <= a and a + len(t.canonical_solution) <= e
                   for s, e in _function_ranges(src))  # inside a function
    assert [t.task_id for t in cut_tasks(held, 100, kind="block")] == \
        [t.task_id for t in tasks]


def test_a_span_task_is_characters_from_anywhere_in_a_body(held):
    tasks = cut_tasks(held, 100, kind="span")
    sources = {name: (STDLIB / name).read_text() for name in FILES}
    assert len(tasks) >= 2 * len(FILES)
    for t in tasks:
        src = sources[t.task_id.split(":")[0]]
        assert t.prompt + t.canonical_solution + t.suffix == src
        assert SPAN_CHARS[0] <= len(t.canonical_solution) <= SPAN_CHARS[1]
        assert t.canonical_solution.strip()
        a = len(t.prompt)
        assert any(s <= a and a + len(t.canonical_solution) <= e
                   for s, e in _function_ranges(src))
    # cut anywhere: some spans start or end mid-line, some cross lines
    assert any("\n" in t.canonical_solution for t in tasks)
    assert any(not t.prompt.endswith("\n") for t in tasks)


def test_an_expr_task_is_the_value_of_a_one_line_assignment_or_return(held):
    tasks = cut_tasks(held, 100, kind="expr")
    assert len(tasks) == len({t.task_id for t in tasks}) >= 2 * len(FILES)
    sources = {name: (STDLIB / name).read_text() for name in FILES}
    kinds = set()
    for t in tasks:
        name, line = t.task_id.rsplit(":", 1)
        assert t.prompt + t.canonical_solution + t.suffix == sources[name]
        assert t.prompt.count("\n") == int(line) - 1 and t.suffix.startswith("\n")
        head = t.prompt[t.prompt.rfind("\n") + 1:]
        line_src = head.lstrip() + t.canonical_solution
        (stmt,) = ast.parse(line_src).body
        assert isinstance(stmt, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Return)
        assert ast.get_source_segment(line_src, stmt.value) \
            == t.canonical_solution  # the whole value, nothing else
        kinds.add(type(stmt))
    assert {ast.Assign, ast.Return} <= kinds


def test_cli_fills_an_expr_as_remask_fill_fills_a_marker_there(corpus, held, tmp_path, capsys):
    out = tmp_path / "expr.json"
    assert main(["bench", "lines", "--kind", "expr", "--corpus", str(corpus), "--limit", "2",
                 "--samples", "0", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    (row,) = data["rows"]
    assert row["tasks"] == 2 and row["model"].endswith("(rewriter)")
    tasks = {t.task_id: t for t in cut_tasks(held, 2, kind="expr")}
    fill = tmp_path / "task.py"
    for r in data["meta"]["per_task"]:
        t = tasks[r["task_id"]]
        fill.write_text(t.prompt + "???" + t.suffix)
        capsys.readouterr()
        main(["fill", str(fill), "--json", "--samples", "0"])
        (hole,) = json.loads(capsys.readouterr().out)["holes"]
        assert r["completion"] == (hole["text"] or "")


def test_cli_fills_the_lines_and_writes_json(corpus, held, tmp_path, capsys):
    out = tmp_path / "lines.json"
    assert main(["bench", "lines", "--corpus", str(corpus), "--limit", "2", "--samples", "0",
                 "--json", str(out)]) == 0
    assert "edit_sim" in capsys.readouterr().out
    data = json.loads(out.read_text())
    (row,) = data["rows"]
    assert row["tasks"] == 2 and 0 <= row["edit_sim"] <= 1 and row["forward_passes_per_task"] > 1
    tasks = {t.task_id: t for t in cut_tasks(held, 2)}
    for r in data["meta"]["per_task"]:
        assert r["exact"] == is_exact(r["completion"], tasks[r["task_id"]].canonical_solution)


def test_inline_held_out_types_half_of_each_line_and_fills_the_rest(corpus, held, tmp_path):
    """``bench inline --held-out``: the same lines, half typed, filled through ``fill_at``;
    nothing to run, so exact match and edit similarity but no pass@1."""
    out = tmp_path / "inline.json"
    assert main(["bench", "inline", "--held-out", "--corpus", str(corpus), "--limit", "2",
                 "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    (row,) = data["rows"]
    assert row["tasks"] == 2 and row["pass@1"] is None and 0 <= row["edit_sim"] <= 1
    tasks = {t.task_id: t for t in cut_tasks(held, 2)}
    assert {r["task_id"] for r in data["meta"]["per_task"]} == set(tasks)
    for r in data["meta"]["per_task"]:
        line = tasks[r["task_id"]].canonical_solution
        assert line.startswith(r["typed"]) and r["completion"].startswith(r["typed"])
        assert r["status"] == "unjudged"
        assert r["exact"] == is_exact(r["completion"], line)
        # a prefix match is a fill the removed line goes on with
        assert r["prefix"] == (bool(r["fill"] and r["fill"].strip())
                               and line.startswith(r["typed"] + r["fill"]))
    assert row["prefix_match"] == sum(r["prefix"] for r in data["meta"]["per_task"]) / 2
    assert main(["bench", "inline", "--held-out", "--corpus", "/nonexistent"]) == 2


@pytest.mark.parametrize("argv, message", [
    (["--corpus", "/nonexistent"], "no held-out corpus"),
    (["--limit", "0"], "--limit and --threads must be at least 1"),
    (["--kind", "span", "--corpus", "/nonexistent"], "no held-out corpus"),
])
def test_bad_input_exits_2_with_one_line(argv, message, capsys, tmp_path):
    assert main(["bench", "lines", "--json", str(tmp_path / "x.json"), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "x.json").exists()


def test_real_edits_files_are_each_committed_file_once_and_give_tasks_of_it():
    files = real_edits_files()
    names = [name for name, _ in files]
    assert len(names) == len(set(names)) and all(n.endswith(".py") for n in names)
    assert len({"/".join(n.split("/")[:2]) for n in names}) == 9  # the nine projects
    text = dict(files)
    tasks = cut_tasks(files, 50, kind="expr")
    assert len(tasks) == 50
    for t in tasks:
        assert t.prompt + t.canonical_solution + t.suffix == text[t.task_id.rsplit(":", 1)[0]]
    with pytest.raises(ValueError, match="no real-edits set"):
        real_edits_files(Path("/nonexistent/real-edits.jsonl.gz"))


def test_cli_cuts_from_the_real_edits_files(tmp_path, capsys):
    out = tmp_path / "real.json"
    assert main(["bench", "lines", "--real-edits", "--kind", "expr", "--limit", "1",
                 "--samples", "0", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    (task,) = cut_tasks(real_edits_files(), 1, kind="expr")
    assert [r["task_id"] for r in data["meta"]["per_task"]] == [task.task_id]
    assert data["meta"]["files"].endswith("real-edits.jsonl.gz")
    assert "real-edits expr tasks" in capsys.readouterr().out
