"""Follow-ups in other modules for an edit in one document: gathered, denoised, offered.

An edit that renames or re-signs a module-level name reaches the modules importing it
(:mod:`remask.diffing.elsewhere`): the other open documents, at their latest version, and the
workspace folders' Python files on disk. Their proposals are offered in the edited document,
at the cursor, as code actions whose workspace edit changes them all ("Update 2 other
modules", and the document's own rename with them). Each document edit names the version it
was computed for; a file on disk has none, so it is read again when the action is asked for
and left out if it changed meanwhile (or was opened and edited).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from remask.diffing.elsewhere import follow
from remask.diffing.exports import exported
from remask.diffing.files import SourceError, is_python, project_files, read_source
from remask.diffing.modules import module_names
from remask.diffing.proposal import Proposal, combine

from . import convert
from .documents import CancelCheck, DocState
from .protocol import RemaskServer

MAX_FILES = 5000  # a workspace folder this large (a home directory) is not one project


@dataclass(frozen=True)
class Other:
    """Another module's follow-up: the text and version it was computed for, and the proposal."""

    uri: str
    path: str
    version: int | None  # None: a file on disk no editor has open
    text: str
    proposal: Proposal


class DiskFiles:
    """The workspace's files as last read, re-read only when their size or mtime moves."""

    def __init__(self) -> None:
        self._cache: dict[str, tuple[tuple[int, int], str | None]] = {}

    def read(self, path: str) -> str | None:
        try:
            st = os.stat(path)
        except OSError:
            return None
        key = (st.st_mtime_ns, st.st_size)
        hit = self._cache.get(path)
        if hit is None or hit[0] != key:
            try:
                text: str | None = read_source(path)
            except SourceError:
                text = None
            self._cache[path] = hit = (key, text)
        return hit[1]

    def under(self, roots: list[str], wanted: Callable[[str], bool] = is_python
              ) -> dict[str, str]:
        """The files under ``roots`` whose names are ``wanted`` (Python's), by path."""
        out: dict[str, str] = {}
        for root in roots:
            for path in project_files(root, wanted, MAX_FILES):
                text = self.read(str(path))
                if text is not None:
                    out[str(path)] = text
        return out


DISK = DiskFiles()


def roots(ls: RemaskServer) -> list[str]:
    """The workspace folders' paths (the root path for a client that names no folders)."""
    ws = ls.workspace
    found = [to_fs_path(f.uri) for f in ws.folders.values()]
    if not found and ws.root_path:
        found = [ws.root_path]
    return [p for p in found if p and Path(p).is_dir()]


def root_of(path: str, folders: list[str]) -> str | None:
    """The workspace folder holding ``path``."""
    return next((r for r in folders if Path(path).is_relative_to(r)), None)


async def follow_up(ls: RemaskServer, state: DocState, version: int, before: str,
                    text: str) -> list[Other] | None:
    """The other modules' proposals for the edit ``before`` → ``text``; None when cancelled."""
    rw = ls.model.rewriter
    if rw is None or state.path is None or not {"rename", "signature"} & rw.config.kinds:
        return []
    folders = roots(ls)
    root = root_of(state.path, folders)
    exports = await asyncio.to_thread(exported, before, text, module_names(state.path, root))
    if not exports:
        return []
    opened = {s.path: (s.uri, s.version, ls.workspace.get_text_document(s.uri).source)
              for s in ls.docs.all() if s is not state and s.path and not s.refused}
    disk = await asyncio.to_thread(DISK.under, folders)
    files = {p: (from_fs_path(p) or p, None, t) for p, t in disk.items() if p != state.path}
    files |= opened
    spans = await asyncio.to_thread(follow, exports, state.path,
                                    {p: f[2] for p, f in files.items()}, root, rw.config.span_cap)
    spans = {p: kept for p, s in spans.items() if (kept := [x for x in s
                                                            if x.kind in rw.config.kinds])}
    if not spans:
        return []

    # typing on elsewhere in the document leaves the other modules' work as it was: reused
    key = (tuple(exports), tuple((p, files[p][2], tuple(s)) for p, s in sorted(spans.items())))
    if state.followed is not None and state.followed[0] == key:
        found: dict[str, Proposal | None] | None = state.followed[1]
        ls.docs.stats.add("elsewhere_reused")
    else:
        def work(cancel: CancelCheck) -> dict[str, Proposal | None]:
            return {p: combine(files[p][2],
                               rw.propose_elsewhere(files[p][2], s, p, cancel=cancel))
                    for p, s in spans.items()}
        found = await ls.docs.run(work, state.background(version))
        if found is None:
            return None
        state.followed = (key, found)
    out = [Other(files[p][0], p, files[p][1], files[p][2], prop)
           for p, prop in sorted(found.items()) if prop is not None]
    for o in out:  # taking the action is no edit of theirs to follow up
        other = ls.docs.get(o.uri)
        if other is not None:
            other.incoming = o.proposal.text
    return out


def still_current(ls: RemaskServer, others: list[Other]) -> list[Other]:
    """The follow-ups whose documents still hold the text they were computed for."""
    out = []
    for o in others:
        state = ls.docs.get(o.uri)
        if o.version is not None:
            ok = state is not None and state.version == o.version
        elif state is not None:  # opened since: its buffer must still be the file as read
            ok = ls.workspace.get_text_document(o.uri).source == o.text
            o = Other(o.uri, o.path, state.version, o.text, o.proposal)
        else:
            ok = DISK.read(o.path) == o.text
        if ok:
            out.append(o)
    return out


def actions(ls: RemaskServer, uri: str, version: int, text: str, own: list[Proposal],
            others: list[Other]) -> list[types.CodeAction]:
    """"Update N other modules", and each own rename or signature proposal with them."""
    if not others:
        return []
    changes = [(o.uri, o.version, o.proposal.edits, convert.Locator(o.text, ls.encoding))
               for o in others]
    n = len(others)
    what = f"{n} other module{'s' * (n != 1)}"
    names = ", ".join(Path(o.path).name for o in others[:3]) + (", …" if n > 3 else "")
    out = [types.CodeAction(title=f"Update {what} ({names})", kind=types.CodeActionKind.QuickFix,
                            edit=convert.documents_edit(changes),
                            data={"kind": "elsewhere", "version": version})]
    loc = convert.Locator(text, ls.encoding)
    out += [types.CodeAction(title=f"{p.title}, and in {what}", kind=types.CodeActionKind.QuickFix,
                             edit=convert.documents_edit([(uri, version, p.edits, loc), *changes]),
                             data={"kind": f"{p.kind}+elsewhere", "version": version})
            for p in own if p.kind in ("rename", "signature")]
    return out
