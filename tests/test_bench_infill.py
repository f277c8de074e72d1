"""``remask bench infill`` and its parts on the real data, the real sandbox and the real model."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from remask.bench.humaneval import SPLITS, Task, load_tasks, subset
from remask.bench.infill import (
    edit_similarity,
    first_passing_examples,
    generate_all,
    is_exact,
    judge_all,
    summarize,
    task_sampler,
)
from remask.bench.report import report
from remask.bench.sandbox import SandboxConfig
from remask.cli import main
from remask.diffing.rewriter import Rewriter, RewriterConfig
from remask.infill.engine import BUNDLED_AR
from remask.infill.sampler import SamplerConfig

KEYS = {"pass@1", "empty_rate", "exact_match", "edit_sim", "forward_passes_per_task",
        "tokens_per_forward", "latency_p50_s", "latency_p95_s", "cpu_s_per_task",
        "accepted_tokens_per_s"}


@pytest.mark.parametrize("split,count", [("single-line", 1033), ("multi-line", 5815),
                                         ("random-span", 1640), ("random-span-light", 164)])
def test_every_split_loads_by_its_real_file_name(split, count):
    tasks = load_tasks(split)
    assert len(tasks) == count
    assert {t.problem for t in tasks} == set(range(164))


def test_bad_split_or_folder_is_one_clear_error(tmp_path):
    with pytest.raises(ValueError, match="unknown split"):
        load_tasks("two-line")
    with pytest.raises(ValueError, match="not found"):
        load_tasks("single-line", tmp_path)
    (tmp_path / SPLITS["single-line"]).write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="not HumanEval-Infilling data"):
        load_tasks("single-line", tmp_path)


def test_limit_is_a_deterministic_sample_like_the_split():
    tasks = load_tasks("multi-line")
    ten = subset(tasks, 10)
    assert [t.task_id for t in ten] == [t.task_id for t in subset(tasks, 10)]
    sample = subset(tasks, 164)
    assert len({t.task_id for t in sample}) == 164 and len({t.problem for t in sample}) > 50
    # as many one-line spans as in the whole split (18%), not every problem's first line
    share = sum(t.canonical_solution.count("\n") == 1 for t in sample) / len(sample)
    assert 0.08 < share < 0.3


def test_exact_match_ignores_only_trailing_whitespace():
    assert is_exact("    return x  \n\n", "    return x\n")
    assert not is_exact("return x\n", "    return x\n")


def test_edit_similarity_ranks_near_misses_above_junk():
    ref = "    return sorted(set(l))\n"
    assert edit_similarity("    return sorted(set(l))  \n\n", ref) == 1.0
    near = edit_similarity("    return sorted(l)\n", ref)
    junk = edit_similarity("    x = x = x = x\n", ref)
    assert 1.0 > near > junk > 0.0
    assert edit_similarity("", ref) == 0.0 and edit_similarity("", "") == 1.0


def test_summary_of_canonical_and_generated_completions(engine):
    tasks = subset(load_tasks("single-line"), 3)
    results = generate_all(engine, tasks, SamplerConfig())
    assert all(r.forward_passes >= 1 and r.seconds > 0 for r in results)
    # the harness, fed the reference middles, passes them all and counts every token accepted
    for t, r in zip(tasks, results, strict=True):
        r.completion, r.exact, r.edit_sim = t.canonical_solution, True, 1.0
    judge_all(tasks, results, SandboxConfig())
    s = summarize(results)
    assert KEYS <= set(s)
    assert s["pass@1"] == 1.0 and s["exact_match"] == 1.0 and s["empty_rate"] == 0.0
    assert s["not_run"] == 0
    assert s["edit_sim"] == 1.0
    assert s["accepted_tokens_per_s"] == s["generated_tokens_per_s"] > 0
    # and fed empty middles, fails them (none of these three passes without its line)
    for r in results:
        r.completion = ""
    judge_all(tasks, results, SandboxConfig())
    s = summarize(results)
    assert s["pass@1"] == 0.0 and s["empty_rate"] == 1.0 and s["accepted_tokens_per_s"] == 0.0


def test_cli_prints_the_table_and_writes_json(tmp_path, capsys):
    out = tmp_path / "infill.json"
    assert main(["bench", "infill", "--split", "random-span-light", "--limit", "2",
                 "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "pass@1" in printed and "accepted_tokens_per_s" in printed
    data = json.loads(out.read_text())
    (row,) = data["rows"]
    assert KEYS <= set(row) and row["tasks"] == 2
    assert len(data["meta"]["per_task"]) == 2
    assert data["meta"]["sandbox_network"] in ("netns", "socket-patched")


def test_oracle_length_at_one_token_per_step_fills_exactly_that_many(tmp_path, engine):
    out = tmp_path / "oracle.json"
    # the argmax rows alone: drawn rows would differ, and their ranking cost passes
    assert main(["bench", "infill", "--limit", "2", "--oracle-length", "--threshold", "none",
                 "--samples", "0", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    tasks = {t.task_id: t for t in load_tasks("single-line")}
    for r in data["meta"]["per_task"]:
        n = len(engine.tokenizer.encode(tasks[r["task_id"]].canonical_solution))
        assert r["tokens"] == r["steps"] == n
        assert r["forward_passes"] == n + 1  # and one pass over the context
    assert data["rows"][0]["kept_tokens_per_step"] == 1.0


def test_a_step_budget_bounds_every_tasks_denoising_steps(tmp_path):
    out = tmp_path / "steps.json"
    assert main(["bench", "infill", "--limit", "3", "--steps", "2", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["meta"]["steps"] == 2
    for r in data["meta"]["per_task"]:
        # a ranked fill: the context's pass, two steps, the AR ranker's prefill and scoring,
        # the denoiser's scoring (its context is the fill's)
        assert r["steps"] == 2 and r["forward_passes"] == 6
    row = data["rows"][0]
    assert row["kept_tokens_per_step"] == sum(r["tokens"] for r in data["meta"]["per_task"]) / 6


def test_drawn_rows_join_the_batch_not_the_passes(tmp_path):
    """``--samples`` rows ride in the argmax rows' batch: as many passes, more positions."""
    runs = {}
    for n in (0, 8):
        out = tmp_path / f"samples{n}.json"
        assert main(["bench", "infill", "--limit", "2", "--steps", "2", "--samples", str(n),
                     "--json", str(out)]) == 0
        data = json.loads(out.read_text())
        assert data["meta"]["samples"] == n
        runs[n] = data["meta"]["per_task"]
    for argmax, drawn in zip(runs[0], runs[8], strict=True):
        assert argmax["forward_passes"] == drawn["forward_passes"] == 6
        assert drawn["tokens_processed"] > argmax["tokens_processed"]


def test_the_ar_baseline_runs_through_the_same_bench(tmp_path):
    out = tmp_path / "ar.json"
    assert main(["bench", "infill", "--limit", "1", "--model", str(BUNDLED_AR),
                 "--json", str(out)]) == 0
    assert json.loads(out.read_text())["meta"]["diffusion"] is False


def test_through_the_rewriter_a_completion_never_adds_a_syntax_error(engine):
    """``--rewriter`` scores what ``remask fill`` would write: parse-valid middles or none."""
    tasks = subset(load_tasks("single-line"), 6)
    rewriter = Rewriter(engine, RewriterConfig(sampler=task_sampler()))
    results = generate_all(engine, tasks, task_sampler(), rewriter=rewriter)
    for t, r in zip(tasks, results, strict=True):
        assert r.forward_passes >= 1
        if r.completion:
            ast.parse(t.program(r.completion))
    # the engine alone writes broken candidates for these holes; the rewriter never offers one
    broken = [text for t in tasks
              for text in engine.fill(t.prompt, t.suffix, sampler=task_sampler()).texts
              if not parses(t.program(text))]
    assert broken


def parses(source: str) -> bool:
    try:
        ast.parse(source)
    except SyntaxError:
        return False
    return True


def test_cli_rewriter_rows_are_labelled(tmp_path):
    out = tmp_path / "rw.json"
    assert main(["bench", "infill", "--limit", "1", "--rewriter", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["meta"]["rewriter"] is True and data["rows"][0]["model"].endswith("(rewriter)")


@pytest.mark.parametrize("argv,message", [
    (["--rewriter", "--oracle-length"], "never knows the length"),
    (["--limit", "0"], "--limit must be at least 1"),
    (["--steps", "0"], "--steps must be at least 1"),
    (["--samples", "-1"], "--samples must be from 0 to"),
    (["--samples", "100000"], "--samples must be from 0 to"),  # memory gone before a step
    (["--data", "/nonexistent"], "not found"),
    (["--model", "/nonexistent"], "no such model directory"),
])
def test_bad_input_exits_2_with_one_line(argv, message, capsys, tmp_path):
    assert main(["bench", "infill", "--json", str(tmp_path / "x.json"), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert not (tmp_path / "x.json").exists()


def test_bench_lists_the_benchmarks(capsys):
    with pytest.raises(SystemExit):
        main(["bench", "--help"])
    printed = capsys.readouterr().out
    assert "infill" in printed and "speed" in printed


def test_report_writes_json_atomically_and_returns_it(tmp_path, capsys):
    path = tmp_path / "sub" / "r.json"
    data = report([{"name": "a", "x": 0.5, "extra": 1}], ["name", "x"], "t", path, {"k": 1})
    assert json.loads(path.read_text()) == json.loads(json.dumps(data))
    assert data["rows"][0]["extra"] == 1 and data["meta"]["k"] == 1 and "env" in data["meta"]
    assert [p.name for p in path.parent.iterdir()] == ["r.json"]
    assert "0.5" in capsys.readouterr().out


def test_report_leaves_no_file_when_rows_cannot_be_written(tmp_path):
    path = tmp_path / "r.json"
    with pytest.raises(ValueError):
        report([{"x": float("nan"), "self": None}], ["x"], "t", path,
               {"loop": _circular()})
    assert list(Path(tmp_path).iterdir()) == []


def _circular() -> dict:
    d: dict = {}
    d["d"] = d
    return d


def test_verify_examples_keeps_the_first_candidate_its_doctests_pass():
    prompt = 'def double(x):\n    """Twice x.\n\n    >>> double(2)\n    4\n    """\n'
    task = Task("t/0", prompt, "", "    return x * 2\n", "", "double")
    wrong, right = "    return x + 1\n", "    return x * 2\n"
    assert first_passing_examples(task, [wrong, right, "    return 4\n"]) == right
    assert first_passing_examples(task, [wrong]) == ""  # none passes: no proposal
