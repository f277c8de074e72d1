"""``remask bench speed``: four configurations, same tasks, one run, peak RSS per process."""

from __future__ import annotations

import json

import pytest

from remask.bench.speed import configs
from remask.cli import main
from remask.diffing.canvas import HOLE_SAMPLES
from remask.infill.engine import BUNDLED, BUNDLED_AR

COLUMNS = {"pass@1", "forward_passes_per_task", "tokens_processed_per_task", "latency_p50_s",
           "latency_p95_s", "cpu_s_per_task", "accepted_tokens_per_s", "ratio_to_ar",
           "accepted_tokens_per_cpu_s", "cpu_ratio_to_ar",
           "peak_rss_mib"}


@pytest.fixture(scope="module")
def speed_run(tmp_path_factory):
    """One real run over two tasks (each row in its own child process)."""
    out = tmp_path_factory.mktemp("speed") / "speed.json"
    code = main(["bench", "speed", "--limit", "2", "--json", str(out)])
    return code, json.loads(out.read_text())


def test_the_rows_in_order():
    rows = configs(BUNDLED, BUNDLED_AR, [0.8])
    assert [r.model for r in rows] == [BUNDLED_AR, BUNDLED, BUNDLED, BUNDLED]
    assert rows[1].sampler.threshold is None and rows[1].sampler.tokens_per_step == 1
    assert [r.sampler.threshold for r in rows[2:]] == [0.8, 0.8]
    assert [r.use_cache for r in rows[1:]] == [False, False, True]
    sweep = configs(BUNDLED, BUNDLED_AR, [0.5, 0.9])
    assert [r.sampler.threshold for r in sweep[2:]] == [0.5, 0.5, 0.9, 0.9]
    assert len({r.name for r in sweep}) == 6
    budgets = configs(BUNDLED, BUNDLED_AR, [0.9], budgets=[4, 2])
    assert [(r.use_cache, r.sampler.max_steps) for r in budgets[4:]] == [(True, 4), (True, 2)]
    assert len({r.name for r in budgets}) == 6
    # every diffusion row draws as a ??? hole does, or not at all with samples=0
    assert {r.sampler.samples for r in budgets[1:]} == {HOLE_SAMPLES} and HOLE_SAMPLES > 0
    assert {r.sampler.samples for r in configs(BUNDLED, BUNDLED_AR, [0.9], samples=0)[1:]} == {0}


def test_one_run_gives_the_table_and_json(speed_run):
    code, data = speed_run
    assert code == 0
    rows = data["rows"]
    assert [r["config"] for r in rows][0] == "AR (KV cache)" and len(rows) == 4
    assert all(COLUMNS <= set(r) and r["tasks"] == 2 for r in rows)
    assert all(r["peak_rss_mib"] >= r["rss_before_model_mib"] > 0 for r in rows)
    per_task = data["meta"]["per_task"]
    assert len({tuple(t["task_id"] for t in ts) for ts in per_task.values()}) == 1  # same tasks


def test_rows_measure_what_they_claim(speed_run):
    _, data = speed_run
    ar, one_step, threshold, cached = data["rows"]
    # AR commits one token per forward pass after its one prefill pass
    committed = ar["tokens_per_forward"] * ar["forward_passes_per_task"]
    assert ar["forward_passes_per_task"] == pytest.approx(committed + 1)
    # one token per step in each candidate length's row: the kept candidate's tokens per pass
    assert one_step["kept_tokens_per_forward"] <= 1.0 < one_step["tokens_per_forward"]
    # the context cache computes the prefix and suffix once instead of every step
    assert cached["tokens_processed_per_task"] < threshold["tokens_processed_per_task"]
    assert ar["generated_ratio_to_ar"] == pytest.approx(1.0)
    # accepted tokens per CPU-second: the passing completions' tokens over the rows' CPU time
    for r, tasks in zip(data["rows"], data["meta"]["per_task"].values(), strict=True):
        accepted = sum(t["tokens"] for t in tasks if t["status"] == "passed")
        cpu = sum(t["cpu_seconds"] for t in tasks)
        assert r["accepted_tokens_per_cpu_s"] == pytest.approx(accepted / cpu)


@pytest.mark.parametrize("argv,message", [
    (["--threshold", "none"], "--threshold must be a number"),
    (["--model", str(BUNDLED_AR)], "not a diffusion model"),
    (["--ar-model", str(BUNDLED)], "not an AR model"),
    (["--limit", "-1"], "--limit must be at least 1"),
    (["--steps", "0"], "--steps must be at least 1"),
])
def test_bad_input_exits_2_with_one_line(argv, message, capsys):
    assert main(["bench", "speed", *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
