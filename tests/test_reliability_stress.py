"""``remask bench stress``: a small flood against a real server, and its bad flags.

The heavy run (1,000 changes in 10 s) is the bench itself; here a small one shows the bench
reports what it claims: the server held, every request answered, no stale answer, RSS read,
and after the flood renames still come back as clean, versioned edits.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import pytest

from remask.bench import stress


def _args(**kw) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    stress.register(p.add_subparsers())
    base = dict(changes=1000, seconds=10.0, inline_every=20, action_every=100, renames=3,
                seed=0, model=None, json=None)
    return argparse.Namespace(**{**base, **kw})


@pytest.mark.parametrize("bad", [dict(changes=0), dict(seconds=0.0), dict(inline_every=0),
                                 dict(renames=-1)])
def test_bad_flags_exit_2_in_one_line(bad, capsys) -> None:
    assert stress.run(_args(**bad)) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and err.startswith("remask bench stress:")


@pytest.mark.slow
def test_small_flood_holds_and_reports(tmp_path: Path) -> None:
    out = tmp_path / "stress.json"
    res = subprocess.run([sys.executable, "-m", "remask.cli", "bench", "stress", "--changes",
                          "120", "--seconds", "2", "--inline-every", "15", "--action-every",
                          "40", "--renames", "2", "--json", str(out)],
                         capture_output=True, text=True, timeout=400)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-2000:]
    data = json.loads(out.read_text())
    tally = data["meta"]["tally"]
    assert data["meta"]["held"] is True
    assert tally["changes"] == 120
    assert tally["inline_sent"] == tally["inline_answered"] == 8
    assert tally["actions_sent"] == tally["actions_answered"] == 3
    assert tally["stale_answers"] == 0
    assert tally["renames"] == 2 and tally["rename_edits"] >= 2  # edits flow after the load
    assert tally["rename_clean"] == tally["rename_edits"]
    assert tally["peak_rss_kib"] > 50_000 and tally["rss_samples"] > 0
    assert "didChange flood" in res.stdout
