"""A rename in one module is offered to the modules importing it: open ones and ones on disk.

A real ``remask lsp`` over stdio with a workspace folder holding a small package.
"""

from __future__ import annotations

import pytest
import pytest_lsp
from lsp_support import (
    apply,
    capabilities,
    change,
    config,
    diagnostics_for,
    open_doc,
    pos,
    server_stats,
)
from lsprotocol import types
from pygls.uris import from_fs_path

LIB = ("def total(xs, scale):\n    return sum(xs) * scale\n\n\n"
       "def twice(xs):\n    return total(xs, 2) * 2\n")
USE = "from .lib import total\n\n\ndef report(xs):\n    return total(xs, 2)\n"
MAIN = "from pkg import lib\n\nprint(lib.total([1], scale=3))\n"


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    (root / "pkg").mkdir()
    for name, text in {"pkg/__init__.py": "", "pkg/lib.py": LIB, "pkg/use.py": USE,
                       "main.py": MAIN}.items():
        (root / name).write_text(text)
    return root


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient, project):
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=capabilities(), root_uri=from_fs_path(str(project)),
        workspace_folders=[types.WorkspaceFolder(from_fs_path(str(project)), "ws")]))
    yield
    await lsp_client.shutdown_session()


async def actions(client, uri: str, line: int) -> list[types.CodeAction]:
    result = await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri),
        range=types.Range(pos(line, 0), pos(line + 1, 0)),
        context=types.CodeActionContext(diagnostics=[])))
    return [a for a in result or [] if isinstance(a, types.CodeAction)]


@pytest.mark.asyncio(loop_scope="module")
async def test_a_rename_offers_the_importing_modules_edits(client, project):
    lib, use, main = (from_fs_path(str(project / p)) for p in ("pkg/lib.py", "pkg/use.py",
                                                               "main.py"))
    open_doc(client, MAIN, uri=main, version=7)
    open_doc(client, LIB, uri=lib, version=1)
    await diagnostics_for(client, 1, lib)
    change(client, 2, pos(0, 4), pos(0, 9), "grand_total", uri=lib)
    await diagnostics_for(client, 2, lib)
    found = {a.title: a for a in await actions(client, lib, 0)}
    update = found.get("Update 2 other modules (main.py, use.py)")
    assert update is not None, list(found)
    docs = {d.text_document.uri: d for d in update.edit.document_changes}
    assert docs[main].text_document.version == 7  # open: the version it was computed for
    assert docs[use].text_document.version is None  # on disk, read as it is
    assert apply(MAIN, docs[main].edits) == MAIN.replace("total", "grand_total")
    assert apply(USE, docs[use].edits) == USE.replace("total", "grand_total")
    both = [a for t, a in found.items() if t.startswith("Rename") and t.endswith("2 other modules")]
    assert len(both) == 1 and len(both[0].edit.document_changes) == 3, list(found)
    assert (await actions(client, lib, 5)) and not any(  # away from the edit: its own only
        a.title.startswith("Update") for a in await actions(client, lib, 5))

    change(client, 3, pos(2, 0), pos(2, 0), "# typed elsewhere\n", uri=lib)
    await diagnostics_for(client, 3, lib)
    titles = [a.title for a in await actions(client, lib, 3)]
    assert "Update 2 other modules (main.py, use.py)" in titles, titles
    assert (await server_stats(client)).get("elsewhere_reused", 0) >= 1  # no second denoising

    (project / "pkg/use.py").write_text(USE + "# saved meanwhile\n")
    titles = [a.title for a in await actions(client, lib, 3)]
    assert "Update 1 other module (main.py)" in titles, titles  # a stale file is left out
    change(client, 8, pos(2, 0), pos(2, 0), "# typed\n", uri=main)
    await diagnostics_for(client, 8, main)
    titles = [a.title for a in await actions(client, lib, 3)]
    assert not any(t.startswith("Update") for t in titles), titles


CORE = "def parse(text):\n    return text\n"
CLI = "from app.core import parse\n\nprint(parse('a'))\nprint(parse('b'))\n"
WEB = "from app import core\n\nPAGE = core.parse('<p>')\n"


def taken(client, uri: str, version: int, edits: list[types.TextEdit]) -> None:
    """Apply a workspace edit's edits to an open document as a client does: one change."""
    last_first = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character),
                        reverse=True)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangePartial(range=e.range, text=e.new_text)
         for e in last_first]))


@pytest.mark.asyncio(loop_scope="module")
async def test_a_file_opened_after_the_analysis_and_a_follow_up_taken(client, project):
    (project / "app").mkdir()
    for name, text in {"app/__init__.py": "", "app/core.py": CORE, "app/cli.py": CLI,
                       "app/web.py": WEB}.items():
        (project / name).write_text(text)
    core, cli, web = (from_fs_path(str(project / f"app/{p}.py")) for p in ("core", "cli", "web"))
    open_doc(client, CLI, uri=cli, version=4)
    open_doc(client, CORE, uri=core, version=1)
    await diagnostics_for(client, 1, core)
    change(client, 2, pos(0, 4), pos(0, 9), "parse_text", uri=core)
    await diagnostics_for(client, 2, core)
    title = "Update 2 other modules (cli.py, web.py)"
    assert title in [a.title for a in await actions(client, core, 0)]

    open_doc(client, WEB, uri=web, version=1)  # opened since, its buffer as the file was read
    update = {a.title: a for a in await actions(client, core, 0)}[title]
    docs = {d.text_document.uri: d for d in update.edit.document_changes}
    assert docs[web].text_document.version == 1  # now the open document's version
    assert apply(WEB, docs[web].edits) == WEB.replace("core.parse", "core.parse_text")

    taken_before = (await server_stats(client)).get("elsewhere_taken", 0)
    taken(client, cli, 5, docs[cli].edits)  # the user takes it: cli.py's change is no edit
    await diagnostics_for(client, 5, cli)
    assert (await server_stats(client)).get("elsewhere_taken", 0) == taken_before + 1
    assert not await actions(client, cli, 0)  # and nothing of its own is offered there

    change(client, 2, pos(3, 0), pos(3, 0), "# typed\n", uri=web)
    await diagnostics_for(client, 2, web)
    titles = [a.title for a in await actions(client, core, 0)]
    assert "Update 1 other module (cli.py)" not in titles  # cli.py has moved on too
    assert not any(t.startswith("Update") and "web.py" in t for t in titles), titles
