"""The TUI's proposal handling, saving and quitting, under Textual's pilot.

Proposals here are real ``Proposal`` objects built in the test, so what accept must produce is
known exactly whatever the model says; model-driven runs are in test_tui_model.py.
"""

from __future__ import annotations

import os
import stat

import pytest

from remask.diffing.edits import minimal_edits
from remask.diffing.proposal import Proposal, Span
from remask.diffing.rewriter import Rewriter
from remask.tui.app import RemaskApp, TuiConfig
from remask.tui.confirm import QuitScreen

SOURCE = '''def mean(values):
    total = 0
    for v in values:
        total += v
    return total / len(values)


def clamp(x, low, high):
    return max(low, min(x, high))
'''


def proposal(base: str, new: str, *alternatives: str) -> Proposal:
    start = base.index("total / len")
    return Proposal("repair", "Repair statement", [Span(start, start + 10, "repair", "test")],
                    new, minimal_edits(base, new), list(alternatives))


@pytest.fixture
def app_for(tmp_path, engine):
    def make(text: str = SOURCE) -> RemaskApp:
        path = tmp_path / "mod.py"
        path.write_bytes(text.encode())
        return RemaskApp(path, text, Rewriter(engine), TuiConfig(auto_delay=None))
    return make


async def test_accept_applies_exactly_the_proposal(app_for):
    app = app_for()
    new = SOURCE.replace("total / len(values)", "total / max(len(values), 1)")
    async with app.run_test() as pilot:
        app.offer(SOURCE, [proposal(SOURCE, new)])
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert app.editor.text == new
        assert app.query_one("ProposalPanel").candidate is None


async def test_next_candidate_then_accept_applies_the_alternative(app_for):
    app = app_for()
    first = SOURCE.replace("total / len(values)", "total / max(len(values), 1)")
    second = SOURCE.replace("    total = 0\n", "    total = 0.0\n")
    async with app.run_test() as pilot:
        app.offer(SOURCE, [proposal(SOURCE, first, second)])
        await pilot.press("ctrl+n", "ctrl+o")
        await pilot.pause()
        assert app.editor.text == second


async def test_reject_leaves_the_buffer_byte_identical(app_for):
    app = app_for()
    new = SOURCE.replace("max(low", "min(low")
    async with app.run_test() as pilot:
        app.offer(SOURCE, [proposal(SOURCE, new)])
        await pilot.press("escape")
        await pilot.pause()
        assert app.editor.text.encode() == SOURCE.encode()
        assert app.query_one("ProposalPanel").candidate is None
        await pilot.press("ctrl+o")  # nothing pending: accept does nothing
        assert app.editor.text == SOURCE


async def test_an_edit_drops_the_stale_proposal(app_for):
    app = app_for()
    new = SOURCE.replace("max(low", "min(low")
    async with app.run_test() as pilot:
        app.offer(SOURCE, [proposal(SOURCE, new)])
        await pilot.press("x")
        await pilot.pause()
        assert app.query_one("ProposalPanel").candidate is None
        await pilot.press("ctrl+o")
        assert app.editor.text == "x" + SOURCE


@pytest.mark.parametrize("base", [
    SOURCE.replace("\n", "\r\n"),  # offsets count both characters of each line end
    "# naïve Σ — 😀 façade\n" + SOURCE.replace("total = 0", "total = 0  # ∑ 🚀"),
], ids=["crlf", "non-ascii"])
async def test_accept_applies_exact_offsets(app_for, base):
    new = base.replace("total / len(values)", "total / max(len(values), 1)")
    new = new.replace("max(low", "min(low")  # two edits, applied from the end
    app = app_for(base)
    async with app.run_test() as pilot:
        assert app.editor.text == base
        app.offer(base, [proposal(base, new)])
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert app.editor.text == new


async def test_save_is_atomic_and_keeps_the_mode(app_for, tmp_path):
    app = app_for()
    path = tmp_path / "mod.py"
    os.chmod(path, 0o640)
    async with app.run_test() as pilot:
        await pilot.press("#", "ctrl+s")
        await pilot.pause()
        assert path.read_bytes() == ("#" + SOURCE).encode()
        assert stat.S_IMODE(path.stat().st_mode) == 0o640
        assert sorted(p.name for p in tmp_path.iterdir()) == ["mod.py"]  # no temp file left
        await pilot.press("ctrl+q")  # saved: quits without asking
        await pilot.pause()
    assert app.return_code == 0


async def test_a_file_changed_on_disk_is_overwritten_only_when_saved_twice(app_for, tmp_path):
    app = app_for()
    path = tmp_path / "mod.py"
    async with app.run_test() as pilot:
        path.write_text("# saved by another editor\n")
        await pilot.press("#", "ctrl+s")
        await pilot.pause()
        assert path.read_text() == "# saved by another editor\n"  # kept, and the user told
        assert any("changed on disk" in n.message for n in app._notifications)
        await pilot.press("ctrl+s")  # asked again: the buffer wins
        await pilot.pause()
        assert path.read_text() == "#" + SOURCE
        path.write_text("# and again\n")
        await pilot.press("x", "ctrl+s")  # a later save asks anew
        await pilot.pause()
        assert path.read_text() == "# and again\n"


async def test_a_new_file_is_made_by_the_first_save_and_never_over_another(engine, tmp_path):
    """A name that is no file yet opens empty (``remask tui new.py``); saving makes it, and
    one another program made meanwhile is kept until the user saves again."""
    path = tmp_path / "new.py"
    app = RemaskApp(path, "", Rewriter(engine), TuiConfig(auto_delay=None), new=True)
    async with app.run_test() as pilot:
        assert "new.py [new]" in str(app.query_one("StatusBar").render())
        await pilot.press("x", "ctrl+s")
        await pilot.pause()
        assert path.read_text() == "x"
        await pilot.press("y", "ctrl+s")  # an ordinary file now: saved over its own save
        await pilot.pause()
        assert path.read_text() == "xy"
    other = tmp_path / "other.py"
    app = RemaskApp(other, "", Rewriter(engine), TuiConfig(auto_delay=None), new=True)
    async with app.run_test() as pilot:
        other.write_text("# made by another editor\n")
        await pilot.press("z", "ctrl+s")
        await pilot.pause()
        assert other.read_text() == "# made by another editor\n"
        assert any("changed on disk" in n.message for n in app._notifications)
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert other.read_text() == "z"
    empty = tmp_path / "empty.py"
    app = RemaskApp(empty, "", Rewriter(engine), TuiConfig(auto_delay=None), new=True)
    async with app.run_test() as pilot:
        await pilot.press("ctrl+q")  # nothing typed: quits without asking, makes nothing
        await pilot.pause()
    assert app.return_code == 0 and not empty.exists()


async def test_quitting_with_unsaved_changes_asks(app_for, tmp_path):
    app = app_for()
    async with app.run_test() as pilot:
        await pilot.press("#", "ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        await pilot.click("#cancel")
        await pilot.pause()
        assert not isinstance(app.screen, QuitScreen)
        assert app.editor.text == "#" + SOURCE
        await pilot.press("ctrl+q")
        await pilot.pause()
        await pilot.click("#discard")
        await pilot.pause()
    assert app.return_code == 0
    assert (tmp_path / "mod.py").read_text() == SOURCE


async def test_save_and_quit_writes_the_buffer(app_for, tmp_path):
    app = app_for()
    async with app.run_test() as pilot:
        await pilot.press("#", "ctrl+q")
        await pilot.pause()
        await pilot.click("#save")
        await pilot.pause()
    assert (tmp_path / "mod.py").read_text() == "#" + SOURCE


async def test_escape_in_the_quit_dialog_cancels_and_keeps_the_proposal(app_for):
    app = app_for()
    new = SOURCE.replace("max(low", "min(low")
    async with app.run_test() as pilot:
        await pilot.press("#")
        app.offer("#" + SOURCE, [proposal("#" + SOURCE, "#" + new)])
        await pilot.press("ctrl+q")
        await pilot.pause()
        assert isinstance(app.screen, QuitScreen)
        await pilot.press("ctrl+q", "escape")  # no second dialog; escape closes this one
        await pilot.pause()
        assert not isinstance(app.screen, QuitScreen)
        assert len(app.screen_stack) == 1
        assert app.query_one("ProposalPanel").candidate is not None
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert app.editor.text == "#" + new
