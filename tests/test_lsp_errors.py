"""Bad input: malformed params get a JSON-RPC error, unknown documents an empty answer, and the
server stays up through both."""

from __future__ import annotations

import pytest
from lsp_support import URI, diagnostics_for, open_doc, pos, server_stats
from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.protocol.json_rpc import JsonRPCRequestMessage

UNKNOWN = "file:///tmp/remask-lsp-test/never-opened.py"


async def raw_request(client, method: str, params: object, msg_id: str):
    """Send params as given (no client-side validation) and await the answer."""
    future = client.protocol._request_futures[msg_id] = __import__("asyncio").Future()
    client.protocol._send_data(JsonRPCRequestMessage(id=msg_id, method=method, jsonrpc="2.0",
                                                     params=params))
    return await future


async def still_up(client) -> None:
    stats = await server_stats(client)
    assert stats["max_rss"] > 0


@pytest.mark.asyncio(loop_scope="module")
@pytest.mark.parametrize("method, params", [
    (types.TEXT_DOCUMENT_CODE_ACTION, {"textDocument": 5}),
    (types.TEXT_DOCUMENT_CODE_ACTION, {"textDocument": {"uri": URI}, "range": "everything",
                                       "context": {"diagnostics": []}}),
    (types.TEXT_DOCUMENT_INLINE_COMPLETION, {"textDocument": {"uri": URI},
                                             "position": {"line": -1, "character": "x"}}),
    (types.TEXT_DOCUMENT_INLINE_COMPLETION, None),
])
async def test_malformed_params_get_an_error(client, method, params):
    with pytest.raises(JsonRpcException) as info:
        await raw_request(client, method, params, f"bad-{method}-{params!r}")
    assert info.value.code in (-32602, -32603)  # InvalidParams (or InternalError)
    await still_up(client)


@pytest.mark.asyncio(loop_scope="module")
async def test_unknown_document_gets_an_empty_answer(client):
    doc = types.TextDocumentIdentifier(UNKNOWN)
    assert await client.text_document_code_action_async(types.CodeActionParams(
        doc, types.Range(pos(0, 0), pos(1, 0)), types.CodeActionContext([]))) is None
    assert await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=doc, position=pos(0, 0), context=types.InlineCompletionContext(
            types.InlineCompletionTriggerKind.Invoked))) is None
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=UNKNOWN, version=2),
        [types.TextDocumentContentChangeWholeDocument("x = ???\n")]))
    await still_up(client)


@pytest.mark.asyncio(loop_scope="module")
async def test_positions_past_the_end_are_clamped(client):
    open_doc(client, "x = ???\n")
    await diagnostics_for(client, 1)
    result = await client.text_document_code_action_async(types.CodeActionParams(
        types.TextDocumentIdentifier(URI), types.Range(pos(40, 3), pos(99, 99)),
        types.CodeActionContext([])))
    assert result is None or all(a.edit.document_changes[0].text_document.version == 1
                                 for a in result)
    await still_up(client)
