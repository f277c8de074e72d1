"""Bad documents and bad bytes reach the real server over stdio; it stays up and offers nothing
it should not.

Documents remask must refuse (NULs, 10.8 MB, lone surrogates standing for undecodable bytes) get
one warning, no hints and no proposals; valid-but-odd documents (CRLF/BOM/tabs, every line
broken, deep nesting, not Python) get answers whose edits name the version they were computed
for and keep the file parsing no worse. Below the protocol, message bodies that are not UTF-8
JSON get a JSON-RPC parse error and the next request is still answered.
"""

from __future__ import annotations

import pytest
from lsp_support import (
    RawClient,
    adds_no_syntax_error,
    apply,
    diagnostics_for,
    frame,
    server_stats,
    wait_for,
)
from lsprotocol import types
from test_reliability_inputs import ODD, broken_models

REFUSED = {  # name -> (text, what the warning must say)
    "binary.py": ("\x7fELF\x02\x01\x01\x00" + "".join(map(chr, range(256))) * 8, "binary"),
    "huge.py": ("x = 1\n" * 1_800_000, "cap"),
    "undecodable.py": ("x = 'caf\udce9'\n", "not UTF-8"),  # how editors escape a bad byte
}


def uri(name: str) -> str:
    return f"file:///tmp/remask-lsp-inputs/{name}"


def open_text(client, name: str, text: str, version: int = 1) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri(name), language_id="python", version=version, text=text)))


async def ask_everything(client, name: str, text: str):
    """Code actions over the whole document and an inline completion at its end."""
    lines = text.split("\n")
    end = types.Position(len(lines) - 1, len(lines[-1].encode("utf-16-le")) // 2)
    doc = types.TextDocumentIdentifier(uri(name))
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        doc, types.Range(types.Position(0, 0), end), types.CodeActionContext([])))
    inline = await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=doc, position=end, context=types.InlineCompletionContext(
            types.InlineCompletionTriggerKind.Invoked)))
    return actions, inline


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("name", sorted(REFUSED))
async def test_unusable_document_is_refused_once_and_left_alone(client, name):
    text, reason = REFUSED[name]
    open_text(client, name, text)
    assert await diagnostics_for(client, 1, uri(name)) == []
    actions, inline = await ask_everything(client, name, text)
    assert actions is None and inline is None
    warned = [m.message for m in client.messages if name in m.message]
    assert len(warned) == 1 and reason in warned[0], warned
    # fixing the buffer turns remask back on: the hole now gets its hint
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri(name), version=2),
        [types.TextDocumentContentChangeWholeDocument("x = ???\n")]))
    assert [d.severity for d in await diagnostics_for(client, 2, uri(name))] == [
        types.DiagnosticSeverity.Hint]
    assert len([m for m in client.messages if name in m.message]) == 1


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("name", sorted(ODD))
async def test_odd_document_gets_answers_for_its_own_version(client, name):
    text = ODD[name].decode("utf-8")
    open_text(client, name, text, version=3)
    await diagnostics_for(client, 3, uri(name))
    actions, inline = await ask_everything(client, name, text)
    for action in actions or []:
        (change,) = action.edit.document_changes
        assert change.text_document.version == 3
        assert adds_no_syntax_error(text, apply(text, change.edits))
    if inline is not None:
        assert all(item.range is not None for item in inline.items)
    for m in client.messages:
        assert name not in m.message  # odd, not refused


@pytest.mark.asyncio(loop_scope="module")
async def test_unloadable_models_are_reported_and_the_server_carries_on(client, tmp_path):
    """Switching to a corrupt or wrong-shape model says why in one line; hints stay on."""
    for label, model in broken_models(tmp_path).items():
        seen = len(client.messages)
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
            {"remask": {"model": str(model)}}))
        await wait_for(lambda: len(client.messages) > seen)  # noqa: B023 (awaited here)
        errors = [m.message for m in client.messages[seen:]
                  if m.type == types.MessageType.Error]
        assert len(errors) == 1 and str(model) in errors[0] and "\n" not in errors[0], label
        open_text(client, f"after-{label}.py", "x = ???\n")
        assert [d.code for d in await diagnostics_for(client, 1, uri(f"after-{label}.py"))
                ] == ["hole"]
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        {"remask": {"model": None}}))  # back to the bundled model: proposals come back
    text = "def total(xs):\n    return sum(xs)\n\n\nprint(total([1]))\n"
    open_text(client, "back.py", text)
    await diagnostics_for(client, 1, uri("back.py"))
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri("back.py"), version=2),
        [types.TextDocumentContentChangePartial(
            range=types.Range(types.Position(0, 4), types.Position(0, 9)), text="amount")]))
    actions, _ = await ask_everything(client, "back.py", text.replace("total(xs)", "amount(xs)"))
    assert any(a.title.startswith("Rename") for a in actions or []), actions


@pytest.mark.asyncio(loop_scope="module")
async def test_server_survives_it_all_with_bounded_memory(client):
    stats = await server_stats(client)
    assert stats["refused"] >= len(REFUSED)
    assert stats["max_rss"] < 1_000_000_000  # a 10.8 MB buffer among them


def test_bytes_that_are_not_json_get_parse_errors_and_the_server_stays_up():
    client = RawClient()
    try:
        client.request(1, "initialize", {"capabilities": {}})
        client.read_until(lambda m: m.get("id") == 1)
        client.send(frame(b'{"jsonrpc": "2.0", "method": "initialized", "params": {}}'))
        bad = [
            b'{"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument":'
            b' {"uri": "file:///tmp/l.py", "languageId": "python", "version": 1,'
            b' "text": "x = \'caf\xe9\'\\n"}}}',  # Latin-1 inside a UTF-8 stream
            b'{"jsonrpc": "2.0", "id": 7, "method": "remask/stats"} and then garbage',
            b"not json at all",
            b"\x00\xff\xfe" * 100,
        ]
        for body in bad:
            client.send(frame(body))
        client.send(b"Content-Length: abc\r\n\r\n")  # a header that isn't a length
        client.request(2, "remask/stats", None)
        seen = client.read_until(lambda m: m.get("id") == 2)
        parse_errors = [m for m in seen if m.get("error", {}).get("code") == -32700]
        assert len(parse_errors) == len(bad)
        assert all("id" in m and m["id"] is None for m in parse_errors)
        assert seen[-1]["result"]["max_rss"] > 0
        assert client.proc.poll() is None
    finally:
        client.close()
