"""Settings from initializationOptions and workspace/didChangeConfiguration."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsp_support import change, config, diagnostics_for, initialize, open_doc, pos, wait_for
from lsprotocol import types

from remask.diffing.canvas import HOLE_SAMPLES
from remask.infill.sampler import SamplerConfig
from remask.lsp.settings import Settings

TEXT = "x = ???\n"


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient):
    await initialize(lsp_client, {"remask": {"kinds": ["repair"], "debounceMs": "soon",
                                             "spanCap": 0, "candidates": 2,
                                             "lineCommitThreshold": 0, "holeSamples": -1}})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_bad_values_are_reported_one_line_each(client):
    await wait_for(lambda: len(client.messages) >= 4)
    warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
    assert len(warnings) == 4 and all("\n" not in w for w in warnings)
    assert any("holeSamples" in w and "between 0 and 64" in w for w in warnings)
    assert any("debounceMs" in w for w in warnings) and any("spanCap" in w for w in warnings)
    assert any("lineCommitThreshold" in w and "(0, 1]" in w for w in warnings)
    assert not any(m.type == types.MessageType.Error for m in client.messages)


@pytest.mark.asyncio(loop_scope="module")
async def test_kinds_that_are_off_give_no_hints(client):
    open_doc(client, TEXT)
    assert [d for d in await diagnostics_for(client, 1) if d.code == "hole"] == []


@pytest.mark.asyncio(loop_scope="module")
async def test_configuration_change_applies_to_the_next_version(client):
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"remask": {"kinds": ["hole", "repair"]}}))
    change(client, 2, pos(0, 0), pos(0, 1), "y")
    holes = [d for d in await diagnostics_for(client, 2) if d.code == "hole"]
    assert [d.range for d in holes] == [types.Range(pos(0, 4), pos(0, 7))]


def test_hole_samples_reach_the_rewriter():
    """``holeSamples`` sets how many rows a ``???`` line draws; a bad value keeps the last."""
    settings, problems = Settings().merge({"remask": {"holeSamples": 0}})
    assert problems == [] and settings.rewriter_config(SamplerConfig()).hole_samples == 0
    kept, problems = settings.merge({"holeSamples": 2.5})
    assert kept.hole_samples == 0 and len(problems) == 1 and "holeSamples" in problems[0]
    assert Settings().rewriter_config(SamplerConfig()).hole_samples == HOLE_SAMPLES > 0
