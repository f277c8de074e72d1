"""``$/cancelRequest`` stops the denoising thread, and the server keeps answering."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsprotocol import types
from lsp_support import URI, config, diagnostics_for, initialize, open_doc, pos, wait_for
from pygls.exceptions import JsonRpcRequestCancelled

TEXT = "def mean(xs):\n    ???\n"


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient):
    await initialize(lsp_client)
    yield
    await lsp_client.shutdown_session()


def ask(client, msg_id: str):
    params = types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(URI), position=pos(1, 7),
        context=types.InlineCompletionContext(types.InlineCompletionTriggerKind.Invoked))
    return client.protocol.send_request_async(types.TEXT_DOCUMENT_INLINE_COMPLETION, params,
                                              msg_id=msg_id)


async def stats(client) -> dict:
    return await client.protocol.send_request_async("remask/stats", None)


@pytest.mark.asyncio(loop_scope="module")
async def test_cancel_request_stops_the_fill(client):
    open_doc(client, TEXT)
    await diagnostics_for(client, 1)
    before = await stats(client)
    pending = ask(client, "fill-1")
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="fill-1"))
    with pytest.raises(JsonRpcRequestCancelled):
        await pending
    after = await stats(client)
    assert after.get("requests_cancelled", 0) == before.get("requests_cancelled", 0) + 1

    async def thread_stopped() -> bool:
        return (await stats(client)).get("cancelled", 0) > before.get("cancelled", 0)
    ok = False
    for _ in range(200):
        if ok := await thread_stopped():
            break
        await wait_for(lambda: True)
    assert ok, "the model thread never saw the cancel"


@pytest.mark.asyncio(loop_scope="module")
async def test_server_answers_after_a_cancel(client):
    result = await ask(client, "fill-2")
    assert result is None or isinstance(result, types.InlineCompletionList)
    assert (await stats(client))["max_rss"] > 0
