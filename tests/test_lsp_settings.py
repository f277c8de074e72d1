"""Settings from initializationOptions and workspace/didChangeConfiguration."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsp_support import (
    TIMEOUT,
    URI,
    change,
    config,
    diagnostics_for,
    initialize,
    open_doc,
    pos,
    wait_for,
)
from lsprotocol import types

from remask.diffing.canvas import HOLE_SAMPLES
from remask.infill.sampler import SamplerConfig
from remask.lsp.settings import KINDS, Settings

TEXT = "x = ???\n"
INF = float("inf")  # what JSON's 1e999 reads as


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient):
    # JSON's 1e999 reads as inf: it once raised past the checks and left every request waiting
    await initialize(lsp_client, {"remask": {"kinds": ["repair"], "debounceMs": "soon",
                                             "spanCap": 0, "candidates": 2,
                                             "lineCommitThreshold": 0, "holeSamples": -1,
                                             "progressDelayMs": INF}})
    yield
    await lsp_client.shutdown_session()


@pytest.mark.asyncio(loop_scope="module")
async def test_bad_values_are_reported_one_line_each(client):
    await wait_for(lambda: len(client.messages) >= 5)
    warnings = [m.message for m in client.messages if m.type == types.MessageType.Warning]
    assert len(warnings) == 5 and all("\n" not in w for w in warnings)
    assert any("progressDelayMs" in w and "keeping 200" in w for w in warnings)
    assert any("holeSamples" in w and "between 0 and 64" in w for w in warnings)
    assert any("debounceMs" in w for w in warnings) and any("spanCap" in w for w in warnings)
    assert any("lineCommitThreshold" in w and "(0, 1]" in w for w in warnings)
    assert not any(m.type == types.MessageType.Error for m in client.messages)


@pytest.mark.asyncio(loop_scope="module")
async def test_kinds_that_are_off_give_no_hints(client):
    open_doc(client, TEXT)
    assert [d for d in await diagnostics_for(client, 1) if d.code == "hole"] == []


@pytest.mark.asyncio(loop_scope="module")
async def test_requests_are_answered_despite_bad_values(client):
    doc = types.TextDocumentIdentifier(URI)
    inline = client.text_document_inline_completion_async(types.InlineCompletionParams(
        text_document=doc, position=pos(0, 7), context=types.InlineCompletionContext(
            types.InlineCompletionTriggerKind.Invoked)))
    await asyncio.wait_for(inline, TIMEOUT)  # answered at all: none or a fill


@pytest.mark.asyncio(loop_scope="module")
async def test_configuration_change_applies_to_the_next_version(client):
    seen = len(client.messages)
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"remask": {"kinds": ["hole", "repair"], "candidates": INF}}))
    change(client, 2, pos(0, 0), pos(0, 1), "y")
    holes = [d for d in await diagnostics_for(client, 2) if d.code == "hole"]
    assert [d.range for d in holes] == [types.Range(pos(0, 4), pos(0, 7))]
    warnings = [m.message for m in client.messages[seen:]]
    assert len(warnings) == 1 and "candidates" in warnings[0] and "keeping 2" in warnings[0]


@pytest.mark.asyncio(loop_scope="module")
async def test_a_setting_left_out_of_a_change_goes_back_to_its_initial_value(client):
    """VS Code sends the whole section: a key missing from it was removed by the user."""
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"remask": {"candidates": 2}}))  # kinds removed: back to ["repair"]
    change(client, 3, pos(0, 0), pos(0, 1), "z")
    assert [d for d in await diagnostics_for(client, 3) if d.code == "hole"] == []


@pytest.mark.asyncio(loop_scope="module")
async def test_a_change_without_settings_keeps_them(client):
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(
        settings={"remask": {"kinds": ["hole"]}}))
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    change(client, 4, pos(0, 0), pos(0, 1), "w")
    assert [d.code for d in await diagnostics_for(client, 4)] == ["hole"]


def test_a_replacing_section_resets_what_it_leaves_out():
    """Keys absent go to ``absent`` (the initial settings); a bad value keeps the current one."""
    initial, _ = Settings().merge({"spanCap": 80})
    current, _ = initial.merge({"spanCap": 90, "candidates": 3, "kinds": ["hole"]}, initial)
    after, problems = current.merge({"remask": {"candidates": 0}}, initial)
    assert (after.span_cap, after.kinds, after.candidates) == (80, KINDS, 3)
    assert len(problems) == 1 and "keeping 3" in problems[0]
    assert current.merge(None, initial) == (current, [])  # nothing sent: nothing changes
    assert current.merge({}, initial) == (initial, [])  # an empty section: all initial


def test_hole_samples_reach_the_rewriter():
    """``holeSamples`` sets how many rows a ``???`` line draws; a bad value keeps the last."""
    settings, problems = Settings().merge({"remask": {"holeSamples": 0}})
    assert problems == [] and settings.rewriter_config(SamplerConfig()).hole_samples == 0
    kept, problems = settings.merge({"holeSamples": 2.5})
    assert kept.hole_samples == 0 and len(problems) == 1 and "holeSamples" in problems[0]
    assert Settings().rewriter_config(SamplerConfig()).hole_samples == HOLE_SAMPLES > 0


@pytest.mark.parametrize("value", [INF, -INF, float("nan"), 10 ** 400])
def test_any_bad_number_is_one_line_and_keeps_the_rest(value):
    for key in ("debounceMs", "candidates", "commitThreshold"):
        settings, problems = Settings().merge({key: value, "kinds": ["hole"]})
        assert settings.kinds == {"hole"} and len(problems) == 1, problems
        assert problems[0].startswith(f"setting '{key}': ") and "; keeping " in problems[0]
