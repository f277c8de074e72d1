"""``remask bench quality``: one table of the model-quality measures, per model."""

from __future__ import annotations

import json
import math

import pytest

from remask.bench.quality import COLUMNS, heldout_ce
from remask.cli import main
from remask.infill.curve import load_history
from remask.infill.engine import BUNDLED
from remask.infill.train import DEFAULT_HOME


def test_table_and_json_without_a_corpus(tmp_path, capsys):
    out = tmp_path / "q.json"
    assert main(["bench", "quality", "--limit", "1", "--model", str(BUNDLED), "--steps", "2",
                 "--corpus", str(tmp_path / "no-corpus"), "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "pass@1 multi-line" in printed
    data = json.loads(out.read_text())
    (row,) = data["rows"]
    assert set(COLUMNS) <= set(row) and row["heldout_middle_ce"] is None
    assert any("no held-out corpus" in n for n in data["notes"])
    assert data["meta"]["tasks"] == {"single-line": 1, "multi-line": 1, "random-span-light": 1}
    assert len(data["meta"]["per_task"]) == 3
    assert data["meta"]["steps"] == 2  # every task held to the budget
    assert all(0 < r["steps"] <= 2 for rs in data["meta"]["per_task"].values() for r in rs)


@pytest.mark.skipif(not (DEFAULT_HOME / "corpus" / "heldout.txt").is_file(),
                    reason="no corpus built by remask train on this machine")
def test_heldout_cross_entropy_from_the_training_corpus(engine):
    ce = heldout_ce(engine, BUNDLED, DEFAULT_HOME / "corpus")
    assert ce is not None and math.isfinite(ce) and ce > 0


def test_bad_input_exits_2_with_one_line(capsys):
    assert main(["bench", "quality", "--limit", "0"]) == 2
    err = capsys.readouterr().err
    assert "--limit must be at least 1" in err and err.count("\n") == 1


def test_record_appends_rows_with_the_models_training_tokens(tmp_path, capsys):
    history = tmp_path / "history.json"
    args = ["bench", "quality", "--limit", "1", "--model", str(BUNDLED),
            "--corpus", str(tmp_path / "no-corpus"), "--record", str(history)]
    assert main(args) == 0 and main(args) == 0
    entries = json.loads(history.read_text())
    tokens = json.loads((BUNDLED / "training.json").read_text())["tokens_total"]
    assert [e["tokens"] for e in entries] == [tokens, tokens]
    assert all(e["model"] == "bundled" and e["limit"] == 1 and "pass@1 single-line" in e
               for e in entries)
    assert load_history(history) == entries  # what `remask train --plot` draws


def test_record_into_a_file_that_is_not_a_history_exits_2(tmp_path, capsys):
    history = tmp_path / "history.json"
    history.write_text('{"not": "a list"}')
    assert main(["bench", "quality", "--limit", "1", "--model", str(BUNDLED),
                 "--corpus", str(tmp_path / "no-corpus"), "--record", str(history)]) == 2
    err = capsys.readouterr().err
    assert "not a JSON list" in err and err.count("\n") == 1
    assert history.read_text() == '{"not": "a list"}'
