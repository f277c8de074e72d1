"""Snapshots of the TUI built from constructed inputs, so they don't move when the model does.

The editor-with-proposal view gets a real ``Proposal`` made here; the live-denoising view gets
a fixed ``StepTrace`` sequence and a fixed vocabulary instead of the model's tokenizer.
Update with ``pytest tests/test_tui_snapshots.py --snapshot-update`` and review the SVGs.
"""

from __future__ import annotations

from pathlib import Path

from textual.app import App, ComposeResult

from remask.diffing.edits import minimal_edits
from remask.diffing.proposal import Proposal, Span
from remask.diffing.rewriter import Rewriter
from remask.infill.sampler import StepTrace
from remask.tui import app as tui_app
from remask.tui.app import RemaskApp, TuiConfig
from remask.tui.denoise_view import DenoiseView

BEFORE = '''def scale(values, factor):
    """Multiply every value by factor."""
    return [v * factor for v in values]


def total(values, factor):
    return sum(scale(values, factor))
'''

MASK = 3
VOCAB = {10: "    return", 11: " sum", 12: "(", 13: "scale", 14: "(values", 15: ",", 16: " k",
         17: "))", 18: "\n"}


def decode(ids: list[int]) -> list[str]:
    return [VOCAB.get(i, "") for i in ids]


class DenoiseHarness(App[None]):
    """Just the live view, styled by the app's own stylesheet."""

    CSS_PATH = Path(tui_app.__file__).with_name("app.tcss")

    def compose(self) -> ComposeResult:
        yield DenoiseView(decode, MASK, id="denoise")


def test_editor_with_proposal(snap_compare, engine):
    after = BEFORE.replace("def scale(values, factor)", "def scale(values, k)")
    start = after.index("factor for v")
    new = after.replace("v * factor", "v * k").replace("by factor", "by k")
    prop = Proposal("rename", "Rename 'factor' to 'k' (2 references)",
                    [Span(start, start + 6, "rename", "reference to renamed parameter 'factor'")],
                    new, minimal_edits(after, new))
    app = RemaskApp(Path("scale.py"), after, Rewriter(engine), TuiConfig(auto_delay=None))

    def offer(pilot) -> None:
        pilot.app.editor.cursor_blink = False  # a blinking cursor makes the snapshot flaky
        pilot.app.offer(after, [prop])

    assert snap_compare(app, terminal_size=(120, 30), run_before=offer)


def test_live_denoising_at_a_fixed_step(snap_compare):
    steps = [
        StepTrace(2, 0, 0, 0, canvas=[10, MASK, MASK, MASK, MASK, MASK, MASK, 18],
                  proposal=[10, 11, 12, 13, 14, 15, 15, 18]),
        # The guess at position 6 is a special token with no text: it shows as a bare mask.
        StepTrace(3, 1, 0, 0, canvas=[10, 11, 12, MASK, MASK, MASK, MASK, 18],
                  proposal=[10, 11, 12, 13, 14, 15, 7, 17], rows=18, drawn=12),
    ]

    def feed(pilot) -> None:
        view = pilot.app.query_one(DenoiseView)
        view.begin("Propagate last edit")
        for i, st in enumerate(steps, 1):
            view.show_step(i, st)

    assert snap_compare(DenoiseHarness(), terminal_size=(60, 10), run_before=feed)
