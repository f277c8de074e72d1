"""A model that fails to load: the user is told why, and the syntax-only features keep working."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsp_support import URI, config, diagnostics_for, initialize, open_doc, pos, wait_for
from lsprotocol import types

MISSING = "/nonexistent/remask-model"


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient):
    await initialize(lsp_client, {"remask": {"model": MISSING}})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_load_failure_is_shown(client):
    await wait_for(lambda: any(m.type == types.MessageType.Error for m in client.messages))
    errors = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert len(errors) == 1 and MISSING in errors[0] and "\n" not in errors[0]


@pytest.mark.asyncio(loop_scope="module")
async def test_hole_hints_still_published(client):
    open_doc(client, "def f():\n    return ???\n")
    holes = [d for d in await diagnostics_for(client, 1) if d.code == "hole"]
    assert [d.range for d in holes] == [types.Range(pos(1, 11), pos(1, 14))]


@pytest.mark.asyncio(loop_scope="module")
async def test_model_features_answer_empty(client):
    doc = types.TextDocumentIdentifier(URI)
    assert await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=doc, position=pos(1, 14), context=types.InlineCompletionContext(
            types.InlineCompletionTriggerKind.Invoked))) is None
    assert await client.text_document_code_action_async(types.CodeActionParams(
        doc, types.Range(pos(1, 0), pos(2, 0)), types.CodeActionContext([]))) is None


@pytest.mark.asyncio(loop_scope="module")
async def test_setting_a_good_model_recovers(client):
    steps = len(client.steps)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"remask": {"model": None}}))  # back to the bundled model
    params = types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(URI), position=pos(1, 14),
        context=types.InlineCompletionContext(types.InlineCompletionTriggerKind.Invoked))
    for _ in range(300):  # the reload runs on the model thread; ask until the model answers
        await client.text_document_inline_completion_async(params)
        if len(client.steps) > steps:
            break
        await asyncio.sleep(0.1)
    assert len(client.steps) > steps, "the bundled model never ran after the reload"
    assert sum(m.type == types.MessageType.Error for m in client.messages) == 1
