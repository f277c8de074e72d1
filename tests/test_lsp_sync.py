r"""Document sync: the server's copy of a document stays the client's, whatever the changes.

LSP lines end only at ``\n``, ``\r\n`` and ``\r``; form feeds (common in the standard library)
and the other breaks ``str.splitlines`` knows are ordinary characters, a column past a line's
end means the line's end, and a whole-document change is an edit like any other (clients such
as kak-lsp send nothing else), so it gets the same follow-up proposals.
"""

from __future__ import annotations

import pytest
from lsp_support import change, diagnostics_for, open_doc, pos
from lsprotocol import types

# every character str.splitlines breaks at that LSP does not
NOT_BREAKS = ["\f", "\v", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029"]
RENAME = "def total(xs):\n    return sum(xs)\n\n\nprint(total([1, 2]))\nn = total([])\n"


def uri(name: str) -> str:
    return f"file:///tmp/remask-lsp-sync/{name}.py"


def holes(diags: list[types.Diagnostic]) -> list[types.Range]:
    return [d.range for d in diags if d.code == "hole"]


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("sep", NOT_BREAKS, ids=[f"U+{ord(c):04X}" for c in NOT_BREAKS])
async def test_splitlines_breaks_are_not_line_breaks(client, sep):
    u = uri(f"sep{ord(sep):x}")
    open_doc(client, f"import os\n{sep}\ndef f():\n    return 2\n", uri=u)
    await diagnostics_for(client, 1, u)
    change(client, 2, pos(3, 11), pos(3, 12), "???", uri=u)  # LSP line 3: "    return 2"
    assert holes(await diagnostics_for(client, 2, u)) == [types.Range(pos(3, 11), pos(3, 14))]
    change(client, 3, pos(4, 0), pos(4, 0), f"x = 1{sep}\n", uri=u)  # and the copy stays right
    assert holes(await diagnostics_for(client, 3, u)) == [types.Range(pos(3, 11), pos(3, 14))]


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("text, at, hole", [
    ("x = ", pos(0, 99), pos(0, 4)),  # the last line, no newline after it
    ("x = 1\ny = ", pos(1, 50), pos(1, 4)),
    ("t = '🎉' + ", pos(0, 99), pos(0, 11)),  # 🎉 is two UTF-16 units
    ("x = \r\n", pos(0, 99), pos(0, 4)),  # never inside the CRLF
])
async def test_a_column_past_the_line_end_is_the_line_end(client, text, at, hole):
    u = uri(f"eol-{text.encode().hex()}")
    open_doc(client, text, uri=u)
    await diagnostics_for(client, 1, u)
    change(client, 2, at, at, "???", uri=u)
    end = pos(hole.line, hole.character + 3)
    assert holes(await diagnostics_for(client, 2, u)) == [types.Range(hole, end)]


@pytest.mark.asyncio(loop_scope="module")
async def test_whole_document_changes_get_follow_up_proposals(client):
    u = uri("whole")
    open_doc(client, RENAME, uri=u)
    await diagnostics_for(client, 1, u)
    for version, name in enumerate(["tota", "", "am", "amount"], start=2):  # typed key by key
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=u, version=version),
            [types.TextDocumentContentChangeWholeDocument(
                RENAME.replace("def total", f"def {name}"))]))
    assert {d.code for d in await diagnostics_for(client, 5, u)} == {"rename"}
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(u), types.Range(pos(0, 4), pos(0, 10)),
        types.CodeActionContext([])))
    assert any(a.title.startswith("Rename") for a in actions or []), actions
