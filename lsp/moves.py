"""A module or package folder about to be renamed: the edit its importers need, at once.

Editors ask the server before renaming files (``workspace/willRenameFiles``: VS Code's
explorer, Neovim's ``vim.lsp.util.rename``) and apply the workspace edit it answers before
the rename. remask answers with every import, dotted reference and string the move breaks,
in open documents (at the version they hold) and in the workspace's files on disk, the
config files and API docs that name it (open ones at their versions: :func:`synced_configs`),
and the moved module's own relative imports (:mod:`remask.diffing.moves`). No model: the move
determines each new spelling. Each document that takes the edit settles there (its change is
no edit of the user's to follow up). An import cycle the move makes
(:mod:`remask.diffing.cycles`) is shown as a warning.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from remask.diffing.config_files import is_config
from remask.diffing.cycles import move_cycles
from remask.diffing.files import is_python
from remask.diffing.moves import Move, moved_proposal, moves_for, project_moves
from remask.diffing.symbol_moves import TopLevel, same_code, symbol_move, top_level

from . import convert
from .documents import DocState
from .elsewhere import DISK, Other, root_of, roots
from .protocol import RemaskServer

# a module-level def or class, as a quick look at what an edit added or took away
_TOP = re.compile(r"^(?:async[ \t]+)?(?:def|class)[ \t]+(\w+)", re.MULTILINE)

# what the client asks about: Python modules, and folders (a package may be one)
FILTERS = types.FileOperationRegistrationOptions(filters=[
    types.FileOperationFilter(pattern=types.FileOperationPattern(
        glob="**/*.{py,pyi}", matches=types.FileOperationPatternKind.File)),
    types.FileOperationFilter(pattern=types.FileOperationPattern(
        glob="**/*", matches=types.FileOperationPatternKind.Folder)),
])


def synced_configs(ls: RemaskServer) -> dict[str, tuple[str, int, str]]:
    """Config files and docs the editor has open: their buffers, at the versions they hold.

    The clients sync these too (``editors/``), though remask serves nothing in them, so that
    an edit to a ``pyproject.toml`` with unsaved changes is computed on what the user sees
    and carries its version: the editor refuses it once the buffer moves on, where an
    unversioned edit computed on the disk's text would land at the wrong offsets.
    """
    found = {}
    for uri, doc in list(ls.workspace.text_documents.items()):
        path = to_fs_path(uri)
        if path and is_config(path) and doc.version is not None:
            found[path] = (uri, doc.version, doc.source)
    return found


def _opened(ls: RemaskServer) -> dict[str, tuple[str, int, str]]:
    """The documents the editor has open, by path: uri, version, the buffer's text."""
    opened = {s.path: (s.uri, s.version, ls.workspace.get_text_document(s.uri).source)
              for s in ls.docs.all() if s.path and not s.refused}
    return opened | synced_configs(ls)


async def _project(root: str, opened: dict[str, tuple[str, int, str]]
                   ) -> dict[str, tuple[str, int | None, str]]:
    """The Python files, config files and docs under ``root``, by path.

    Open ones as their buffers hold them, with their versions; the others as on disk.
    """
    disk = await asyncio.to_thread(DISK.under, [root], lambda n: is_python(n) or is_config(n))
    files = {p: (from_fs_path(p) or p, None, t) for p, t in disk.items()}
    return files | {p: f for p, f in opened.items() if Path(p).is_relative_to(root)}


async def rename_edit(ls: RemaskServer, renames: list[types.FileRename]
                      ) -> types.WorkspaceEdit | None:
    """The workspace edit that keeps every import working through ``renames``; None: none."""
    folders = roots(ls)
    by_root: dict[str, list[Move]] = {}
    for r in renames:
        old, new = to_fs_path(r.old_uri), to_fs_path(r.new_uri)
        root = root_of(old, folders) if old else None
        if root is None or new is None or not Path(new).is_relative_to(root) or \
                not (Path(old).is_dir() or old.endswith((".py", ".pyi"))):
            continue  # not a module, or moved into or out of the workspace folder
        by_root.setdefault(root, []).extend(moves_for(old, new, root))
    opened = _opened(ls)
    changes = []
    for root, moves in by_root.items():
        if not moves:
            continue
        files = await _project(root, opened)
        found = await asyncio.to_thread(project_moves, moves, {p: f[2] for p, f in files.items()},
                                        root)
        after = {p: f[2] for p, f in files.items() if not is_config(p)}
        for path, spans in sorted(found.items()):
            uri, version, text = files[path]
            proposal = moved_proposal(text, spans, path)
            if proposal is None:
                continue
            changes.append((uri, version, proposal.edits, convert.Locator(text, ls.encoding)))
            after[path] = proposal.text
            state = ls.docs.get(uri)
            if state is not None:
                state.incoming = proposal.text
        for cycle in await asyncio.to_thread(move_cycles, moves, after, root, False):
            ls.window_show_message(types.ShowMessageParams(
                types.MessageType.Warning, f"remask: {cycle.said()}"))
    return convert.documents_edit(changes) if changes else None


async def moved_defs(ls: RemaskServer, state: DocState, version: int, before: str, text: str
                     ) -> list[Other]:
    """The follow-ups of a def or class this edit pasted in that another document's edit cut.

    Cut from one open document and pasted into another, the move is seen in two edits: each
    document keeps the names its edits took away (``DocState.gone``), and an edit adding a
    def of such a name moved it here (:mod:`remask.diffing.symbol_moves`). Its importers,
    the document it left and this one get their follow-ups, offered at the cursor as one
    action.
    """
    tops = set(_TOP.findall(text))
    for name in tops & state.gone.keys():
        del state.gone[name]
    if tops == set(_TOP.findall(before)) or state.path is None:
        return []
    now = await asyncio.to_thread(top_level, text)
    if now is None:
        return []
    was = (await asyncio.to_thread(top_level, before) or TopLevel(set(), {})).defs
    state.gone |= {n: code for n, code in was.items() if n not in now.bound}
    came = {n: code for n, code in now.defs.items() if n not in was}
    folders = roots(ls)
    root = root_of(state.path, folders)
    if not came or root is None:
        return []
    moves = [m for other in ls.docs.all() if other is not state and other.path
             for name in sorted(came.keys() & other.gone.keys())
             if same_code(other.gone[name], came[name])
             and (m := symbol_move(other.path, state.path, name, root)) is not None]
    if not moves:
        return []
    files = await _project(root, _opened(ls) | {state.path: (state.uri, version, text)})
    found = await asyncio.to_thread(project_moves, moves, {p: f[2] for p, f in files.items()},
                                    root)
    out = []
    for path, spans in sorted(found.items()):
        uri, v, old_text = files[path]
        proposal = moved_proposal(old_text, spans, path, "definition")
        if proposal is not None:
            out.append(Other(uri, path, v, old_text, proposal))
            doc = ls.docs.get(uri)
            if doc is not None:  # taking the action is no edit of the user's to follow up
                doc.incoming = proposal.text
    after = {p: f[2] for p, f in files.items() if not is_config(p)}
    after |= {o.path: o.proposal.text for o in out if not is_config(o.path)}
    for cycle in await asyncio.to_thread(move_cycles, moves, after, root):
        if cycle.said() not in state.said:  # once, not at every edit until it settles
            state.said.add(cycle.said())
            ls.window_show_message(types.ShowMessageParams(
                types.MessageType.Warning, f"remask: {cycle.said()}"))
    return out


def moved_action(ls: RemaskServer, version: int, others: list[Other]) -> list[types.CodeAction]:
    """One action taking every file's follow-ups of the defs moved here (:func:`moved_defs`)."""
    if not others:
        return []
    n = sum(len(o.proposal.spans) for o in others)
    names = ", ".join(Path(o.path).name for o in others[:3]) + (", …" if len(others) > 3 else "")
    changes = [(o.uri, o.version, o.proposal.edits, convert.Locator(o.text, ls.encoding))
               for o in others]
    return [types.CodeAction(
        title=f"Update {n} reference{'s' * (n != 1)} to the moved definition ({names})",
        kind=types.CodeActionKind.QuickFix, edit=convert.documents_edit(changes),
        data={"kind": "moved", "version": version})]
