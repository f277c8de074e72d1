"""Open, change and inline completion against the real server and the real bundled model."""

from __future__ import annotations

import pytest
from lsp_support import (
    URI,
    apply,
    change,
    diagnostics_for,
    open_doc,
    pos,
    wait_for,
)
from lsprotocol import types

from remask.diffing.canvas import HOLE_SAMPLES

# a marker in a comment is prose (no hint), but filled when completion is asked for right there
TEXT = "def area(w, h):\n    # TODO: ???\n    return ???\n"


@pytest.mark.asyncio(loop_scope="module")
async def test_open_hints_the_hole(client):
    open_doc(client, TEXT, version=1)
    diags = await diagnostics_for(client, 1)
    holes = [d for d in diags if d.code == "hole"]
    assert [d.range for d in holes] == [types.Range(pos(2, 11), pos(2, 14))]
    assert all(d.severity == types.DiagnosticSeverity.Hint and d.source == "remask"
               for d in diags)


@pytest.mark.asyncio(loop_scope="module")
async def test_change_moves_the_hint_with_the_text(client):
    change(client, 2, pos(1, 4), pos(1, 4), "# area\n    ")
    diags = await diagnostics_for(client, 2)
    assert [d.range for d in diags if d.code == "hole"] == [types.Range(pos(3, 11), pos(3, 14))]


@pytest.mark.asyncio(loop_scope="module")
async def test_inline_completion_replaces_the_hole_for_this_version(client):
    text = "def area(w, h):\n    # area\n    # TODO: ???\n    return ???\n"
    cursor = pos(2, 15)
    before = len(client.steps)
    result = await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(URI), position=cursor,
        context=types.InlineCompletionContext(types.InlineCompletionTriggerKind.Invoked)))
    await wait_for(lambda: len(client.steps) > before)  # the model really denoised
    assert all(s["version"] == 2 and s["uri"] == URI for s in client.steps[before:])
    assert result is not None and result.items, "a hole in a comment always has a fill"
    for item in result.items:
        rng = item.range
        # the range holds the cursor and whatever of the marker the fill changes
        assert rng.start.line == rng.end.line == 2 and rng.end.character >= 15
        new = apply(text, [types.TextEdit(rng, item.insert_text)])
        assert "???" not in new.splitlines()[2]
        assert new.splitlines()[:2] == text.splitlines()[:2]  # nothing before the range moved


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("text, column", [
    ("def mean(values):\n    ???\n", 7),  # a hole on a line of its own
    ("def mean(values):\n    return sum(val\n", 18),  # the rest of a line being typed
])
async def test_a_typed_completion_draws_no_rows_and_one_asked_for_draws(client, text, column):
    """Typing may go on, so a completion nobody asked for takes the argmax rows alone."""
    uri = "file:///tmp/remask-lsp-test/hole.py"
    open_doc(client, text, uri=uri)
    first = {}
    for trigger in (types.InlineCompletionTriggerKind.Automatic,
                    types.InlineCompletionTriggerKind.Invoked):
        before = len(client.steps)
        await client.text_document_inline_completion_async(types.InlineCompletionParams(
            text_document=types.TextDocumentIdentifier(uri), position=pos(1, column),
            context=types.InlineCompletionContext(trigger)))
        # (the proposals computed on open stream steps of their own, kind "propose")
        await wait_for(lambda b=before: any(s["uri"] == uri and s["kind"] == "fill"
                                            for s in client.steps[b:]))
        steps = [s for s in client.steps[before:] if s["uri"] == uri and s["kind"] == "fill"]
        first[trigger] = steps[0]  # every row is still open at the first step
        assert max(s["drawn"] for s in steps) == first[trigger]["drawn"]
    typed = first[types.InlineCompletionTriggerKind.Automatic]
    asked = first[types.InlineCompletionTriggerKind.Invoked]
    assert typed["drawn"] == 0 and typed["rows"] > 1
    assert asked["drawn"] == HOLE_SAMPLES and asked["rows"] == typed["rows"] + HOLE_SAMPLES
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        types.TextDocumentIdentifier(uri)))


@pytest.mark.asyncio(loop_scope="module")
async def test_close_clears_hints(client):
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        types.TextDocumentIdentifier(URI)))
    await wait_for(lambda: client.published[-1].uri == URI and not client.published[-1]
                   .diagnostics)
