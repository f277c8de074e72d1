"""The capability profiles of real clients (Neovim, VS Code): what is advertised, and positions
counted in the encoding each one negotiates."""

from __future__ import annotations

import pytest
import pytest_lsp
from lsp_support import change, config, diagnostics_for, initialize, open_doc, pos
from lsprotocol import types

PREFIX = 's = "héllo 🎉"; t = '
TEXT = PREFIX + "???\n"


def units(s: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(s.encode("utf-8"))
    if encoding == "utf-32":
        return len(s)
    return len(s.encode("utf-16-le")) // 2


@pytest_lsp.fixture(config=config(), scope="module", params=["neovim", "visual-studio-code"])
async def client(lsp_client: pytest_lsp.LanguageClient, request):
    caps = pytest_lsp.client_capabilities(request.param)
    lsp_client.init_result = await initialize(lsp_client, caps=caps)
    yield
    await lsp_client.shutdown_session()


def encoding(client) -> str:
    enc = client.init_result.capabilities.position_encoding or "utf-16"
    return str(getattr(enc, "value", enc))


@pytest.mark.asyncio(loop_scope="module")
async def test_advertised_capabilities(client):
    caps = client.init_result.capabilities
    assert caps.inline_completion_provider is not None  # else Neovim never asks
    assert caps.code_action_provider is not None
    sync = caps.text_document_sync
    assert sync.change == types.TextDocumentSyncKind.Incremental and sync.open_close
    offered = client.capabilities.general and client.capabilities.general.position_encodings
    assert encoding(client) == (offered[0] if offered else "utf-16")


@pytest.mark.asyncio(loop_scope="module")
async def test_positions_use_the_negotiated_encoding(client):
    enc = encoding(client)
    uri = f"file:///tmp/remask-lsp-test/{enc}.py"
    open_doc(client, TEXT, uri=uri)
    start = units(PREFIX, enc)
    holes = [d for d in await diagnostics_for(client, 1, uri) if d.code == "hole"]
    assert [d.range for d in holes] == [types.Range(pos(0, start), pos(0, start + 3))]
    after_emoji = units('s = "héllo 🎉', enc)
    change(client, 2, pos(0, after_emoji), pos(0, after_emoji), "!", uri=uri)
    holes = [d for d in await diagnostics_for(client, 2, uri) if d.code == "hole"]
    assert [d.range for d in holes] == [types.Range(pos(0, start + 1), pos(0, start + 4))]
