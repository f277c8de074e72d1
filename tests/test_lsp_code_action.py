"""A code action's workspace edit names the version it was computed for and applies to it."""

from __future__ import annotations

import pytest
from lsp_support import (
    URI,
    adds_no_syntax_error,
    apply,
    change,
    diagnostics_for,
    open_doc,
    pos,
)
from lsprotocol import types

BEFORE = "def total(xs):\n    return sum(xs)\n\n\nprint(total([1, 2]))\nn = total([])\n"
AFTER = BEFORE.replace("def total", "def amount")


async def actions(client, line: int, uri: str = URI) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri),
        range=types.Range(pos(line, 0), pos(line + 1, 0)),
        context=types.CodeActionContext(diagnostics=[])))
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


def only_edit(action: types.CodeAction) -> types.TextDocumentEdit:
    changes = action.edit.document_changes
    assert action.edit.changes is None and len(changes) == 1
    return changes[0]


@pytest.mark.asyncio(loop_scope="module")
async def test_rename_action_names_its_version_and_applies_cleanly(client):
    open_doc(client, BEFORE, version=1)
    await diagnostics_for(client, 1)
    change(client, 2, pos(0, 4), pos(0, 9), "amount")
    hints = await diagnostics_for(client, 2)
    assert {d.code for d in hints} >= {"rename"}, hints
    at_edit = await actions(client, 0)  # where the user typed: every proposal is offered
    assert any(a.title.startswith("Rename") for a in at_edit), [a.title for a in at_edit]
    found = await actions(client, 4)  # at a reference: the proposals touching it
    renames = [a for a in found if a.title.startswith("Rename")]
    assert renames, [a.title for a in found]
    for a in found:
        assert a.kind == types.CodeActionKind.QuickFix
        edit = only_edit(a)
        assert edit.text_document.uri == URI and edit.text_document.version == 2
        new = apply(AFTER, edit.edits)
        assert new != AFTER and adds_no_syntax_error(AFTER, new)
        assert new.splitlines()[:2] == AFTER.splitlines()[:2]  # the user's own edit is kept


@pytest.mark.asyncio(loop_scope="module")
async def test_after_another_change_actions_name_the_new_version(client):
    change(client, 3, pos(5, 0), pos(5, 1), "m")  # n = ... → m = ...
    await diagnostics_for(client, 3)
    for a in await actions(client, 4):
        assert only_edit(a).text_document.version == 3


TWO = ("def total(xs):\n    return sum(xs)\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"
       "\n\nprint(total([1]), mean([2]))\n")
URI2 = "file:///tmp/remask-test/two.py"


@pytest.mark.asyncio(loop_scope="module")
async def test_a_taken_fix_is_the_base_for_the_next_edit_at_once(client):
    """Accept a rename, then rename again inside the debounce: the second is still seen.

    The server diffs each edit against the last settled text; taking a proposal must settle
    it, or the next edit would be diffed across two changes and its spans lost.
    """
    open_doc(client, TWO, uri=URI2, version=1)
    change(client, 2, pos(0, 4), pos(0, 9), "amount", uri=URI2)
    first = await actions(client, 0, URI2)
    renamed = TWO.replace("def total", "def amount")
    edit = only_edit(next(a for a in first if a.title.startswith("Rename")))
    taken = apply(renamed, edit.edits)
    assert "total" not in taken
    client.text_document_did_change(types.DidChangeTextDocumentParams(  # as a client applies it
        types.VersionedTextDocumentIdentifier(uri=URI2, version=3),
        [types.TextDocumentContentChangePartial(range=e.range, text=e.new_text)
         for e in sorted(edit.edits, key=lambda e: (e.range.start.line, e.range.start.character),
                         reverse=True)]))
    change(client, 4, pos(4, 4), pos(4, 8), "avg", uri=URI2)  # no pause: within the debounce
    second = [a for a in await actions(client, 4, URI2) if a.title.startswith("Rename")]
    assert second, "the rename after a taken fix found no references"
    edit = only_edit(second[0])
    assert edit.text_document.version == 4
    final = apply(taken.replace("def mean", "def avg"), edit.edits)
    assert "mean" not in final and "avg([2])" in final and adds_no_syntax_error(taken, final)


SERVER = ("class Server(Base):\n    def __init__(self, host, port, ssl=None):\n"
          "        Base.__init__(self, host, port, ssl)\n        self.ready = False\n")
URI3 = "file:///tmp/remask-test/server.py"


async def signature_edited(client, text: str, uri: str, start: types.Position,
                           end: types.Position, new: str) -> list[types.Diagnostic]:
    """Open ``text`` as version 1, edit its def as version 2; the hints for version 2."""
    open_doc(client, text, uri=uri, version=1)
    await diagnostics_for(client, 1, uri)
    change(client, 2, start, end, new, uri=uri)
    return await diagnostics_for(client, 2, uri)


@pytest.mark.asyncio(loop_scope="module")
async def test_a_parameter_added_to_a_def_is_passed_on_by_the_quick_fix(client):
    hints = await signature_edited(client, SERVER, URI3, pos(1, 43), pos(1, 43),
                                   ", fd=None")  # after ssl=None
    assert [(d.code, d.range.start.line) for d in hints] == [("signature", 2)], hints
    [fix] = [a for a in await actions(client, 2, URI3) if "signature" in a.title]
    assert fix.title == "Update 1 use of the signature"
    edit = only_edit(fix)
    assert edit.text_document.version == 2
    after = SERVER.replace("ssl=None)", "ssl=None, fd=None)")
    assert apply(after, edit.edits) == after.replace("port, ssl)", "port, ssl, fd)")


REQUEST = ("class Request:\n    def __init__(self, url, referer=None):\n        self.url = url\n"
           "        if referer is not None:\n            self.referer = referer\n"
           "        self.depth = 0\n")
URI4 = "file:///tmp/remask-test/request.py"


@pytest.mark.asyncio(loop_scope="module")
async def test_a_parameter_removed_from_a_def_leaves_its_default_in_the_quick_fix(client):
    hints = await signature_edited(client, REQUEST, URI4, pos(1, 26), pos(1, 40),
                                   "")  # ", referer=None" goes
    assert [d.code for d in hints] == ["dangling"], hints
    assert "default None" in hints[0].message
    [fix] = [a for a in await actions(client, 3, URI4) if "dangling" in a.title]
    edit = only_edit(fix)
    assert edit.text_document.version == 2
    after = REQUEST.replace(", referer=None", "")
    assert apply(after, edit.edits) == after.replace(
        "        if referer is not None:\n            self.referer = referer\n", "")
