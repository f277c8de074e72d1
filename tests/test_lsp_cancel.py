"""``$/cancelRequest`` stops the denoising thread, and the server keeps answering."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsp_support import URI, config, diagnostics_for, initialize, open_doc, pos, server_stats
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

TEXT = "def mean(xs):\n    ???\n"


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient):
    # Threshold 1: one token committed per step, so a fill lasts many steps and the cancel
    # (sent right behind the request) always lands mid-fill.
    await initialize(lsp_client, {"commitThreshold": 1.0, "lineCommitThreshold": 1.0})
    yield
    await lsp_client.shutdown_session()


def ask(client, msg_id: str):
    params = types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(URI), position=pos(1, 7),
        context=types.InlineCompletionContext(types.InlineCompletionTriggerKind.Invoked))
    # pytest-lsp's send_request_async is a coroutine: schedule it so the request goes out now.
    return asyncio.ensure_future(client.protocol.send_request_async(
        types.TEXT_DOCUMENT_INLINE_COMPLETION, params, msg_id=msg_id))


async def stats(client) -> dict:
    return await server_stats(client)


async def wait_for_idle(client) -> None:
    """Wait until the analysis of the opened document is done, so the model thread is free."""
    for _ in range(1200):
        if (await stats(client)).get("analyses", 0) >= 1:
            return
        await asyncio.sleep(0.05)
    pytest.fail("the first analysis never finished")


@pytest.mark.asyncio(loop_scope="module")
async def test_cancel_request_stops_the_fill(client):
    open_doc(client, TEXT)
    await diagnostics_for(client, 1)
    await wait_for_idle(client)
    before = await stats(client)
    pending = ask(client, "fill-1")
    await asyncio.sleep(0)  # the request is written before the cancel
    client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="fill-1"))
    with pytest.raises(JsonRpcRequestCancelled):
        await pending
    after = await stats(client)
    assert after.get("requests_cancelled", 0) == before.get("requests_cancelled", 0) + 1

    for _ in range(400):
        if (await stats(client)).get("cancelled", 0) > before.get("cancelled", 0):
            break
        await asyncio.sleep(0.05)
    else:
        pytest.fail("the model thread never saw the cancel")


@pytest.mark.asyncio(loop_scope="module")
async def test_server_answers_after_a_cancel(client):
    result = await ask(client, "fill-2")
    assert result is None or isinstance(result, types.InlineCompletionList)
    assert (await stats(client))["max_rss"] > 0


def test_a_request_cancelled_before_it_ran_leaves_no_stamp():
    """Each inline request is stamped with the version it arrived at and its handler takes the
    oldest stamp; one cancelled before its handler ran must take its stamp with it, or every
    later request on the document is judged against an older version and dropped as stale."""
    from remask.lsp.protocol import RemaskServer

    server = RemaskServer("remask-test", "0")
    state = server.docs.open(URI, None, TEXT, 3)
    params = {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 7},
              "context": {"triggerKind": 2}}
    for msg_id in ("a", "b"):
        server.protocol.structure_message({"jsonrpc": "2.0", "id": msg_id, "params": params,
                                           "method": types.TEXT_DOCUMENT_INLINE_COMPLETION})
        state.version += 1
    assert list(state.inline_arrivals.items()) == [("a", 3), ("b", 4)]
    server.protocol._handle_cancel_notification("a")  # its handler never ran
    assert list(state.inline_arrivals.items()) == [("b", 4)]


def test_the_analysis_of_an_edit_waits_while_an_inline_completion_is_asked():
    """Mapping spans runs beside the model thread: while a fill the user waits for is asked,
    the debounced analysis waits, and goes on once the fill is done."""
    from remask.lsp.server import analyze, server

    async def scenario() -> None:
        state = server.docs.open(URI, None, TEXT, 1)
        with state.ask():
            task = asyncio.ensure_future(analyze(state))
            await asyncio.sleep(0.05)
            assert not task.done()  # held back while the completion is asked
            server.docs.close(URI)  # (so the analysis, once let go, has nothing to do)
        await asyncio.wait_for(task, 5)

    asyncio.run(scenario())
