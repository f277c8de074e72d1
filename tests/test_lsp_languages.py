"""Only Python documents are served: by languageId, or by a .py/.pyi path when the client's
languageId is something else; any other document gets no hints and null answers at once."""

from __future__ import annotations

import asyncio

import pytest
from lsp_support import diagnostics_for, pos
from lsprotocol import types

from remask.lsp.documents import is_python

TEXT = "def f():\n    return ???\n"


def open_as(client, name: str, language_id: str) -> str:
    uri = f"file:///tmp/remask-lsp-languages/{name}"
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id=language_id, version=1, text=TEXT)))
    return uri


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("name, language_id", [
    ("a.py", "python"), ("b.py", "python-ts"), ("c.py", "plaintext"), ("d.pyi", ""),
    ("untitled", "python"),
])
async def test_python_documents_are_served(client, name, language_id):
    uri = open_as(client, name, language_id)
    assert [d.code for d in await diagnostics_for(client, 1, uri)] == ["hole"]


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("name, language_id", [("e.js", "javascript"), ("notes.md", "")])
async def test_other_documents_get_nothing(client, name, language_id):
    uri = open_as(client, name, language_id)
    witness = open_as(client, f"after-{name}.py", "python")  # analysed after the other one
    await diagnostics_for(client, 1, witness)
    await asyncio.sleep(0.5)
    assert [p for p in client.published if p.uri == uri] == []
    doc = types.TextDocumentIdentifier(uri)
    inline = client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=doc, position=pos(1, 14), context=types.InlineCompletionContext(
            types.InlineCompletionTriggerKind.Invoked)))
    assert await asyncio.wait_for(inline, 5) is None
    assert await client.text_document_code_action_async(types.CodeActionParams(
        doc, types.Range(pos(0, 0), pos(2, 0)), types.CodeActionContext([]))) is None


def test_is_python():
    assert is_python("python", None) and is_python("Python3", "/x/y.txt")
    assert is_python("", "/x/y.PY") and is_python("plaintext", "/x/stubs.pyi")
    assert not is_python("javascript", "/x/y.js") and not is_python("", None)
