"""The terminal status line of fill / repair / propagate, driven by the real bundled model."""

from __future__ import annotations

import io
import re

from rich.console import Console

from remask.cli.progress import model_status
from remask.diffing.rewriter import Rewriter

TEXT = "def mean(xs):\n    return ???\n"


def fill_under_status(engine, terminal: bool) -> tuple[str, list[str]]:
    out = io.StringIO()
    console = Console(file=out, force_terminal=terminal, width=200)
    seen: list[str] = []
    with model_status(console) as status:
        status.engine = engine

        def on_step(n, step):
            status.on_step(n, step)
            seen.append(engine.provisional(step)[0])

        Rewriter(engine).fill_at(TEXT, TEXT.index("???") + 1, on_step=on_step)
    return out.getvalue(), seen


def test_the_status_line_shows_the_steps_on_a_terminal(engine):
    shown, seen = fill_under_status(engine, terminal=True)
    assert seen, "the fill took no step"
    steps = re.findall(r"denoising span (\d+) · step (\d+) · (\d+) masked", shown)
    assert steps  # at least the last update is drawn when the status stops
    last = seen[-1].replace("\n", "⏎")[:60]
    assert last in shown


def test_nothing_is_written_off_a_terminal(engine):
    shown, seen = fill_under_status(engine, terminal=False)
    assert seen and shown == ""
