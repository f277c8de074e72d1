"""Live feedback while denoising: ``$/progress`` work-done reports and ``remask/denoiseStep``."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsp_support import URI, config, diagnostics_for, initialize, open_doc, pos, wait_for
from lsprotocol import types


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient):
    # Threshold 1: one token per step, so a fill has many steps; progress from the first one,
    # since a fill of this model can end inside the default 200 ms.
    await initialize(lsp_client, {"commitThreshold": 1.0, "lineCommitThreshold": 1.0,
                                  "progressDelayMs": 0})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_long_fill_reports_progress_and_steps(client):
    open_doc(client, "def mean(xs):\n    return ???\n")
    await diagnostics_for(client, 1)
    first = len(client.steps)
    await client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(URI), position=pos(1, 14),
        context=types.InlineCompletionContext(types.InlineCompletionTriggerKind.Invoked)))
    steps = [s for s in client.steps[first:] if s["kind"] == "fill"]
    assert len(steps) > 1 and all(s["uri"] == URI and s["version"] == 1 for s in steps)
    assert all(isinstance(s["text"], str) and s["masked"] >= 0 for s in steps)
    assert steps[-1]["masked"] <= steps[0]["masked"]
    await wait_for(lambda: any(isinstance(r[-1], types.WorkDoneProgressEnd)
                               for r in client.progress_reports.values() if r))
    reports = [r for r in client.progress_reports.values() if r]
    for r in reports:  # each token: one begin, reports, one end
        assert isinstance(r[0], types.WorkDoneProgressBegin)
        assert isinstance(r[-1], types.WorkDoneProgressEnd)
        assert all(isinstance(x, types.WorkDoneProgressReport) for x in r[1:-1])
