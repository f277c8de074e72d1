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
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from remask.diffing.config_files import is_config
from remask.diffing.cycles import move_cycles
from remask.diffing.files import is_python
from remask.diffing.moves import Move, moved_proposal, moves_for, project_moves

from . import convert
from .elsewhere import DISK, root_of, roots
from .protocol import RemaskServer

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
    opened = {s.path: (s.uri, s.version, ls.workspace.get_text_document(s.uri).source)
              for s in ls.docs.all() if s.path and not s.refused}
    opened |= synced_configs(ls)
    changes = []
    for root, moves in by_root.items():
        if not moves:
            continue
        disk = await asyncio.to_thread(DISK.under, [root], lambda n: is_python(n) or is_config(n))
        files = {p: (from_fs_path(p) or p, None, t) for p, t in disk.items()}
        files |= {p: f for p, f in opened.items() if Path(p).is_relative_to(root)}
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
