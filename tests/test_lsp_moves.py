"""Renaming a module in the editor: the server answers ``workspace/willRenameFiles``.

A real ``remask lsp`` over stdio with a workspace folder; the client asks before renaming,
as VS Code's explorer does, and applies the answer before it renames.
"""

from __future__ import annotations

import re
from pathlib import Path

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
    wait_for,
)
from lsprotocol import types
from pygls.uris import from_fs_path

from remask.diffing.config_files import CONFIG_NAMES, DOC_SUFFIXES

OLD = "from . import helpers\n\n\ndef f():\n    return helpers\n"
USE = "from .old import f\n\nprint(f())\n"
MAIN = "import pkg.old\n\nprint(pkg.old.f(), 'pkg.old.f')\n"
TOML = '[project.scripts]\ntool = "pkg.old:f"\n'
CYCLE = {"cyc/__init__.py": "from .converters import Converter\n",
         "cyc/converters.py": "from .fns import identity\n\n\nclass Converter:\n    pass\n",
         "cyc/fns.py": "def identity(x):\n    return x\n",
         "cyc/preconf/__init__.py": "from ..converters import Converter\n"}


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("ws")
    (root / "pkg").mkdir()
    for name, text in {"pkg/__init__.py": "", "pkg/helpers.py": "", "pkg/old.py": OLD,
                       "pkg/use.py": USE, "main.py": MAIN, "notes.txt": "pkg.old\n",
                       "pyproject.toml": TOML, **CYCLE}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


@pytest_lsp.fixture(config=config(), scope="module")
async def client(lsp_client: pytest_lsp.LanguageClient, project):
    caps = capabilities()
    caps.workspace.file_operations = types.FileOperationClientCapabilities(will_rename=True)
    result = await lsp_client.initialize_session(types.InitializeParams(
        capabilities=caps, root_uri=from_fs_path(str(project)),
        workspace_folders=[types.WorkspaceFolder(from_fs_path(str(project)), "ws")]))
    lsp_client.will_rename = result.capabilities.workspace.file_operations.will_rename
    yield
    await lsp_client.shutdown_session()


async def will_rename(client, project, old: str, new: str) -> types.WorkspaceEdit | None:
    return await client.workspace_will_rename_files_async(types.RenameFilesParams(files=[
        types.FileRename(from_fs_path(str(project / old)), from_fs_path(str(project / new)))]))


@pytest.mark.asyncio(loop_scope="module")
async def test_renaming_a_module_edits_its_importers_first(client, project):
    assert [f.pattern.glob for f in client.will_rename.filters] == ["**/*.{py,pyi}", "**/*"]
    main = from_fs_path(str(project / "main.py"))
    open_doc(client, MAIN, uri=main, version=3)
    await diagnostics_for(client, 3, main)

    edit = await will_rename(client, project, "pkg/old.py", "pkg/sub/new.py")
    docs = {d.text_document.uri: d for d in edit.document_changes}
    assert set(docs) == {main, *(from_fs_path(str(project / p))
                                 for p in ("pkg/old.py", "pkg/use.py", "pyproject.toml"))}
    assert docs[main].text_document.version == 3  # open: the version it was computed for
    assert apply(MAIN, docs[main].edits) == \
        "import pkg.sub.new\n\nprint(pkg.sub.new.f(), 'pkg.sub.new.f')\n"
    old = docs[from_fs_path(str(project / "pkg/old.py"))]
    assert old.text_document.version is None  # on disk; addressed where it still is
    assert apply(OLD, old.edits) == OLD.replace("from . import", "from .. import")
    assert apply(USE, docs[from_fs_path(str(project / "pkg/use.py"))].edits) == \
        "from .sub.new import f\n\nprint(f())\n"
    assert apply(TOML, docs[from_fs_path(str(project / "pyproject.toml"))].edits) == \
        TOML.replace("pkg.old", "pkg.sub.new")  # the script's entry point

    # the client applies the edit to the open document: that change is no edit to follow
    taken = (await server_stats(client)).get("elsewhere_taken", 0)
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=main, version=4),
        [types.TextDocumentContentChangeWholeDocument(text=apply(MAIN, docs[main].edits))]))
    await diagnostics_for(client, 4, main)
    assert (await server_stats(client)).get("elsewhere_taken", 0) == taken + 1


@pytest.mark.asyncio(loop_scope="module")
async def test_an_open_config_file_is_edited_as_its_buffer_holds_it(client, project):
    # unsaved lines above the entry point: an edit computed on the disk's text would land
    # two lines too high; computed on the buffer, it carries the buffer's version
    toml = from_fs_path(str(project / "pyproject.toml"))
    buffer = '[tool.unsaved]\nx = 1\n' + TOML
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=toml, language_id="toml", version=7, text=buffer)))
    try:
        edit = await will_rename(client, project, "pkg/old.py", "pkg/renamed.py")
        docs = {d.text_document.uri: d for d in edit.document_changes}
        assert docs[toml].text_document.version == 7
        assert apply(buffer, docs[toml].edits) == buffer.replace("pkg.old", "pkg.renamed")
        assert not [p for p in client.published if p.uri == toml]  # synced, not served
    finally:
        client.text_document_did_close(types.DidCloseTextDocumentParams(
            types.TextDocumentIdentifier(toml)))
    edit = await will_rename(client, project, "pkg/old.py", "pkg/renamed.py")
    closed = [d for d in edit.document_changes if d.text_document.uri == toml][0]
    assert closed.text_document.version is None  # closed: the disk's text again
    assert apply(TOML, closed.edits) == TOML.replace("pkg.old", "pkg.renamed")


@pytest.mark.asyncio(loop_scope="module")
async def test_a_rename_nothing_imports_needs_no_edit(client, project):
    assert await will_rename(client, project, "pkg/helpers.py", "pkg/help.py") is not None
    assert await will_rename(client, project, "main.py", "app.py") is None
    assert await will_rename(client, project, "notes.txt", "notes.md") is None


@pytest.mark.asyncio(loop_scope="module")
async def test_an_import_cycle_the_move_makes_is_shown_as_a_warning(client, project):
    edit = await will_rename(client, project, "cyc/fns.py", "cyc/preconf/fns.py")
    [doc] = edit.document_changes
    assert apply(CYCLE["cyc/converters.py"], doc.edits).startswith("from .preconf.fns import")
    await wait_for(lambda: any("import cycle" in m.message for m in client.messages))
    [said] = [m for m in client.messages if "import cycle" in m.message]
    assert said.type == types.MessageType.Warning
    assert said.message.startswith("remask: importing cyc first may now fail: cyc -> "
                                   "cyc.converters -> cyc.preconf.fns -> cyc.preconf")


def test_both_editors_sync_every_config_file_a_move_edits():
    """The clients name the files for the server to see (a drift would edit unversioned)."""
    root = Path(__file__).resolve().parent.parent
    for client in ("editors/vscode/src/extension.ts", "editors/nvim/lua/remask/init.lua"):
        source = (root / client).read_text()
        listed = re.search(r"CONFIG_NAMES = [\[{]([^\]}]*)[\]}]", source)
        assert listed is not None, client
        assert set(re.findall(r'"([^"]+)"', listed[1])) == CONFIG_NAMES, client
        assert "rst" in source and "md" in source
    assert DOC_SUFFIXES == (".rst", ".md")  # the clients' *.{rst,md}


@pytest.mark.asyncio(loop_scope="module")
async def test_a_def_cut_from_one_document_and_pasted_in_another_is_followed(client, project):
    old, helpers, use, main = (from_fs_path(str(project / p)) for p in (
        "pkg/old.py", "pkg/helpers.py", "pkg/use.py", "main.py"))
    open_doc(client, MAIN, uri=main, version=50)  # open, as the first test may leave it
    open_doc(client, OLD, uri=old, version=1)
    open_doc(client, "", uri=helpers, version=1)
    await diagnostics_for(client, 50, main)
    await diagnostics_for(client, 1, old)
    await diagnostics_for(client, 1, helpers)
    cut = OLD.replace("def f():\n    return helpers\n", "")
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=old, version=2),
        [types.TextDocumentContentChangeWholeDocument(text=cut)]))
    await diagnostics_for(client, 2, old)
    change(client, 2, pos(0, 0), pos(0, 0), "def f():\n    return 1\n", uri=helpers)
    await diagnostics_for(client, 2, helpers)
    try:
        result = await client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(helpers),
            range=types.Range(pos(1, 0), pos(2, 0)),
            context=types.CodeActionContext(diagnostics=[])))
        found = {a.title: a for a in result or [] if isinstance(a, types.CodeAction)}
        title = "Update 5 references to the moved definition (main.py, use.py, pyproject.toml)"
        assert title in found, list(found)
        docs = {d.text_document.uri: d for d in found[title].edit.document_changes}
        assert docs[main].text_document.version == 50  # open: its buffer's version
        assert apply(MAIN, docs[main].edits) == "import pkg.old\nimport pkg.helpers\n\n" \
            "print(pkg.helpers.f(), 'pkg.helpers.f')\n"
        assert docs[use].text_document.version is None  # on disk
        assert apply(USE, docs[use].edits) == "from .helpers import f\n\nprint(f())\n"
        toml = from_fs_path(str(project / "pyproject.toml"))
        assert apply(TOML, docs[toml].edits) == TOML.replace("pkg.old:f", "pkg.helpers:f")
        assert old not in docs  # it calls f no more: nothing to import back
    finally:
        for uri in (main, old, helpers):
            client.text_document_did_close(types.DidCloseTextDocumentParams(
                types.TextDocumentIdentifier(uri)))


@pytest.mark.asyncio(loop_scope="module")
async def test_a_pasted_def_whose_move_makes_an_import_cycle_is_said_once(client, project):
    fns, pre = (from_fs_path(str(project / p)) for p in ("cyc/fns.py", "cyc/preconf/__init__.py"))
    open_doc(client, CYCLE["cyc/fns.py"], uri=fns, version=1)
    open_doc(client, CYCLE["cyc/preconf/__init__.py"], uri=pre, version=1)
    await diagnostics_for(client, 1, fns)
    await diagnostics_for(client, 1, pre)
    try:
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=fns, version=2),
            [types.TextDocumentContentChangeWholeDocument(text="")]))
        await diagnostics_for(client, 2, fns)
        change(client, 2, pos(1, 0), pos(1, 0), "\n\ndef identity(x):\n    return x\n", uri=pre)
        await diagnostics_for(client, 2, pre)
        cycle = "cyc.converters -> cyc.preconf imports"
        await wait_for(lambda: any(cycle in m.message for m in client.messages))
        [said] = [m for m in client.messages if cycle in m.message]
        assert said.type == types.MessageType.Warning
        assert said.message == "remask: importing cyc first may now fail: cyc -> " \
            "cyc.converters -> cyc.preconf imports Converter from cyc.converters before that " \
            "module defines it (an import cycle the move makes)"
        change(client, 3, pos(0, 0), pos(0, 0), "# typed on\n", uri=pre)
        await diagnostics_for(client, 3, pre)
        assert len([m for m in client.messages if cycle in m.message]) == 1
    finally:
        for uri in (fns, pre):
            client.text_document_did_close(types.DidCloseTextDocumentParams(
                types.TextDocumentIdentifier(uri)))
