"""`remask train --plot`: the training curve drawn from the bundles' own training.json."""

from __future__ import annotations

import json

from remask.infill.curve import load_heldout_changes, plot


def _bundle(path, curve, changes=None):
    path.mkdir()
    info = {"curve": curve} | ({"heldout_changes": changes} if changes else {})
    (path / "training.json").write_text(json.dumps(info))
    return path


def test_the_plot_marks_where_the_heldout_set_changed(tmp_path):
    curve = [{"tokens": t * 1_000_000, "objective": "diffusion", "middle_ce": ce}
             for t, ce in ((10, 3.0), (20, 2.5), (30, 2.2), (40, 2.0))]
    change = {"tokens": 25_000_000, "why": "corpus widened"}
    with_change = _bundle(tmp_path / "a", curve, [change])
    without = _bundle(tmp_path / "b", curve)
    assert load_heldout_changes(with_change) == [change]
    assert load_heldout_changes(without) == []
    marked, plain = tmp_path / "marked.png", tmp_path / "plain.png"
    plot([with_change], marked)
    plot([without], plain)
    assert marked.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert marked.read_bytes() != plain.read_bytes()  # the marker and its legend entry
