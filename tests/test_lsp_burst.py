"""A burst of changes: only the latest version is ever answered."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsp_support import (
    URI,
    change,
    config,
    diagnostics_for,
    initialize,
    open_doc,
    pos,
    server_stats,
    wait_for,
)
from lsprotocol import types

LINE = "    scaled = [v * factor for v in values]"
TEXT = "def scale(values, factor):\n\n    return scaled\n"


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient):
    # A long debounce: the burst below is written in one go, so no gap reaches it.
    await initialize(lsp_client, {"remask": {"debounceMs": 400}})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_burst_is_answered_for_the_latest_version_only(client):
    open_doc(client, TEXT, version=1)
    await diagnostics_for(client, 1)
    await wait_for(lambda: client.steps == [] or client.steps[-1]["version"] == 1)
    seen_steps = len(client.steps)
    pending = None
    for i, ch in enumerate(LINE):  # one didChange per character, no waiting in between
        change(client, i + 2, pos(1, i), pos(1, i), ch)
        if i == 5:  # an inline completion asked mid-burst, for version 7
            pending = asyncio.ensure_future(client.text_document_inline_completion_async(
                types.InlineCompletionParams(
                    text_document=types.TextDocumentIdentifier(URI), position=pos(1, i + 1),
                    context=types.InlineCompletionContext(
                        types.InlineCompletionTriggerKind.Automatic))))
            await asyncio.sleep(0)  # written now, between versions 7 and 8
    last = len(LINE) + 1
    stale = await pending
    assert stale is None, "an answer for version 7 arrived after version 8 was sent"
    actions = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(URI),
        range=types.Range(pos(1, 0), pos(1, len(LINE))),
        context=types.CodeActionContext(diagnostics=[])))
    for a in actions or []:
        assert a.edit.document_changes[0].text_document.version == last
    await diagnostics_for(client, last)
    published = {p.version for p in client.published if p.uri == URI}
    assert published <= {1, last}, sorted(published)
    assert {s["version"] for s in client.steps[seen_steps:]} <= {7, last}
    stats = await server_stats(client)
    assert sum(stats.get(k, 0) for k in ("stale_analyses", "stale_fills", "cancelled")) >= 1
