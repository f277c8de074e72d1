"""``remask bench lsp`` end to end on a small real file: the table's rows and the JSON."""

from __future__ import annotations

import json
from pathlib import Path

from remask.cli import main

EXAMPLE = Path(__file__).parents[1] / "examples" / "stats.py"


def test_bench_lsp_writes_its_figures(tmp_path, capsys):
    out = tmp_path / "lsp.json"
    assert main(["bench", "lsp", str(EXAMPLE), "--lines", "1", "--pause", "0",
                 "--cps", "40", "50", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert [r["measure"] for r in data["rows"]] == [
        "inline completion, per keystroke", "code actions, asked after the line",
        "fill_at in-process, no server"]
    assert data["rows"][2]["n"] == 1 and data["rows"][2]["p50_ms"] > 0
    assert data["meta"]["stale"]["wrong_version_edits"] == 0
    assert 0 < data["meta"]["server_peak_rss_mb"] < 4096
    assert "edit → proposal latency" in capsys.readouterr().out


def test_bench_lsp_bad_input(capsys):
    assert main(["bench", "lsp", "--cps", "0", "5"]) == 2
    assert main(["bench", "lsp", "/nonexistent/file.py"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 2 and "Traceback" not in err
