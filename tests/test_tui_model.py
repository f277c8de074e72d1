"""The TUI driven by the real bundled model under Textual's pilot.

These assert behaviour, not model quality: the app shows what the Rewriter returns for the
buffer (the same call made directly here), accepting applies exactly that text, and the live
view and the status bar were driven by the run.
"""

from __future__ import annotations

import pytest
from textual.worker import WorkerCancelled, WorkerState

from remask.diffing.rewriter import Rewriter
from remask.diffing.syntax import parse
from remask.tui.app import RemaskApp, TuiConfig
from remask.tui.denoise_view import DenoiseView
from remask.tui.proposal_panel import ProposalPanel
from remask.tui.status import StatusBar

pytestmark = pytest.mark.slow

SOURCE = '''def mean(values):
    total = 0
    for v in values:
        total += v
    return total / len(values)


def report(values):
    print(mean(values), len(values))
'''


@pytest.fixture
def make_app(tmp_path, engine):
    path = tmp_path / "mod.py"
    path.write_text(SOURCE)
    return lambda: RemaskApp(path, SOURCE, Rewriter(engine), TuiConfig(auto_delay=None))


async def finish(pilot) -> None:
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def until(pilot, condition, limit: float = 120.0) -> None:
    """Let the app run until ``condition`` holds (an idle timer starts these runs, not a key)."""
    for _ in range(int(limit / 0.05)):
        if condition():
            return
        await pilot.pause(0.05)


def assert_run_was_shown(app: RemaskApp) -> None:
    status = app.query_one(StatusBar)
    assert status.latency is not None
    if status.passes and app.rewriter.engine.is_diffusion:
        assert app.query_one(DenoiseView).step > 0  # on_step reached the live view


async def test_break_a_statement_then_accept_the_repair(make_app, engine):
    app = make_app()
    async with app.run_test() as pilot:
        row = SOURCE.splitlines().index("    return total / len(values)")
        app.editor.cursor_location = (row, len("    return total / len(values)"))
        await pilot.press("backspace")  # drop the closing paren: the statement breaks
        broken = app.editor.text
        assert parse(broken, "mod.py").has_errors()  # the edit really broke it
        await pilot.press("ctrl+r")
        await finish(pilot)
        assert_run_was_shown(app)
        expected = Rewriter(engine).repair(broken, str(app.path))
        assert expected is not None  # a missing closer always has a mechanical repair
        shown = app.query_one(ProposalPanel).candidate
        assert shown is not None and shown.text == expected.text
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert app.editor.text == expected.text
        assert not parse(app.editor.text, "mod.py").has_errors()


async def test_rename_a_parameter_then_accept_the_propagation(make_app, engine):
    app = make_app()
    async with app.run_test() as pilot:
        app.editor.cursor_location = (0, len("def mean(values"))
        await pilot.press(*["backspace"] * len("values"), *"xs")
        renamed = app.editor.text
        assert renamed.startswith("def mean(xs):")
        cursor = len("def mean(xs")
        await pilot.press("ctrl+g")
        await finish(pilot)
        assert_run_was_shown(app)
        expected = Rewriter(engine).propose(SOURCE, renamed, str(app.path), cursor)
        assert expected  # the references to the renamed parameter are spans
        shown = app.query_one(ProposalPanel).candidate
        assert shown is not None and shown.text == expected[0].text
        await pilot.press("ctrl+o")
        await pilot.pause()
        assert app.editor.text == expected[0].text
        assert app.editor.text.startswith("def mean(xs):")  # the user's bytes are kept


async def test_reject_a_model_proposal_leaves_the_buffer_byte_identical(make_app):
    app = make_app()
    async with app.run_test() as pilot:
        app.editor.cursor_location = (0, len("def mean(values"))
        await pilot.press(*["backspace"] * len("values"), *"xs", "ctrl+g")
        await finish(pilot)
        before = app.editor.text.encode()
        assert app.query_one(ProposalPanel).candidate is not None
        await pilot.press("escape")
        await pilot.pause()
        assert app.editor.text.encode() == before
        assert app.query_one(ProposalPanel).candidate is None


async def test_idle_typing_proposes_follow_ups_by_itself(tmp_path, engine):
    path = tmp_path / "mod.py"
    path.write_text(SOURCE)
    app = RemaskApp(path, SOURCE, Rewriter(engine), TuiConfig(auto_delay=0.05))
    async with app.run_test() as pilot:
        app.editor.cursor_location = (0, len("def mean(values"))
        await pilot.press(*["backspace"] * len("values"))
        status, panel = app.query_one(StatusBar), app.query_one(ProposalPanel)
        await until(pilot, lambda: status.latency is not None)  # an idle run saw it half-typed
        await pilot.press("x", "s")
        await until(pilot, lambda: panel.candidate is not None)  # the next one, the rename
        renamed = app.editor.text
        expected = Rewriter(engine).propose(SOURCE, renamed, str(path), len("def mean(xs"))
        shown = app.query_one(ProposalPanel).candidate
        assert expected and shown is not None and shown.text == expected[0].text


async def test_a_newer_edit_cancels_the_running_request(make_app):
    app = make_app()
    async with app.run_test() as pilot:
        row = SOURCE.splitlines().index("    return total / len(values)")
        app.editor.cursor_location = (row, len("    return total / len(values)"))
        await pilot.press("backspace")
        app.action_run("repair")
        (worker,) = list(app.workers)
        app.editor.insert("x")  # typed while the request runs
        with pytest.raises(WorkerCancelled):
            await app.workers.wait_for_complete()
        await pilot.pause()
        assert worker.state == WorkerState.CANCELLED
        assert app.query_one(ProposalPanel).candidate is None
        assert app.query_one(StatusBar).latency is None  # the stale result was never shown
        assert "cancelled" in app.query_one(StatusBar).activity
        assert app.editor.text == SOURCE.replace("len(values)\n", "len(valuesx\n", 1)


async def test_fill_at_cursor_shows_what_the_rewriter_fills(tmp_path, engine):
    text = SOURCE.replace("    return total / len(values)", "    return ???")
    path = tmp_path / "mod.py"
    path.write_text(text)
    app = RemaskApp(path, text, Rewriter(engine), TuiConfig(auto_delay=None))
    async with app.run_test() as pilot:
        row = text.splitlines().index("    return ???")
        app.editor.cursor_location = (row, len("    return ?"))
        await pilot.press("ctrl+f")
        await finish(pilot)
        assert_run_was_shown(app)
        cursor = text.index("???") + 1
        expected = Rewriter(engine).fill_at(text, cursor, str(path))
        shown = app.query_one(ProposalPanel).candidate
        assert (shown and shown.text) == (expected and expected.text)
        await pilot.press("ctrl+o")  # applies the fill, or does nothing when there is none
        await pilot.pause()
        assert app.editor.text == (expected.text if expected else text)


@pytest.mark.parametrize(("text", "typed"), [
    ("def f(x):\n\tif x:\n\t\treturn 1\n\treturn 0\n", "\t"),
    ("def f(x):\n    return x\n", "    "),
])
async def test_the_tab_key_indents_as_the_file_does(tmp_path, engine, text, typed):
    """Four spaces typed into a file indented with tabs made it a TabError."""
    path = tmp_path / "tabs.py"
    path.write_text(text)
    app = RemaskApp(path, text, Rewriter(engine), TuiConfig(auto_delay=None))
    async with app.run_test() as pilot:
        app.editor.cursor_location = (1, 0)
        await pilot.press("tab")
        assert app.editor.text.split("\n")[1] == typed + text.split("\n")[1]
