r"""Every conversion between LSP values and remask's library values, in one place.

The library speaks Python str offsets; LSP speaks (line, column) with columns in the code units
of the negotiated position encoding (UTF-16 unless the client offers another), and lines end only
at ``\\n``, ``\\r\\n`` or ``\\r`` (not at the other breaks ``str.splitlines`` knows). Every edit
sent out names the document version its offsets were computed against.
"""

from __future__ import annotations

import bisect

from lsprotocol import types

from remask.diffing.change import find_change
from remask.diffing.edits import line_starts, minimal_edits
from remask.diffing.proposal import Proposal, Span, TextEdit

SOURCE = "remask"


def encoding_name(encoding: object) -> str:
    """A negotiated position encoding (pygls keeps an enum or a str, or None) as a plain str."""
    return str(getattr(encoding, "value", encoding or "utf-16"))


def _units(s: str, encoding: str) -> int:
    if encoding == "utf-8":
        return len(s.encode("utf-8"))
    if encoding == "utf-32":
        return len(s)
    return len(s) + sum(ord(c) > 0xFFFF for c in s)


class Locator:
    """Offsets ↔ positions for one text in one encoding (line starts computed once)."""

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.text, self.encoding = text, encoding
        self.starts = line_starts(text)

    def _line_end(self, line: int) -> int:
        """Offset where the line's body ends (before its break)."""
        end = self.starts[line + 1] if line + 1 < len(self.starts) else len(self.text)
        while end > self.starts[line] and self.text[end - 1] in "\r\n":
            end -= 1
        return end

    def position(self, offset: int) -> types.Position:
        offset = min(max(offset, 0), len(self.text))
        line = bisect.bisect_right(self.starts, offset) - 1
        return types.Position(line, _units(self.text[self.starts[line]:offset], self.encoding))

    def offset(self, pos: types.Position) -> int:
        """Return the str offset of ``pos``.

        A line past the end or a column past a line's end clamps to the end (as the LSP
        specification asks), and a column inside a character rounds down to its start.
        """
        if pos.line >= len(self.starts):
            return len(self.text)
        start, end = self.starts[pos.line], self._line_end(pos.line)
        units = 0
        for i in range(start, end):
            units += _units(self.text[i], self.encoding)
            if units > pos.character:
                return i
        return end

    def range(self, start: int, end: int) -> types.Range:
        return types.Range(self.position(start), self.position(end))

    def span(self, rng: types.Range) -> tuple[int, int]:
        return self.offset(rng.start), self.offset(rng.end)


def change_cursor(loc: Locator, change: types.TextDocumentContentChangeEvent,
                  before: str | None = None) -> int | None:
    """Where the cursor sits after a change: the end of the inserted text.

    ``loc`` is over the text *after* the change: nothing before an incremental change's start
    moved, so its start position still names the same place. A whole-document change names no
    place (some clients send nothing else), so the cursor goes to the end of what differs from
    ``before``, the text it replaced; None without one.
    """
    if isinstance(change, types.TextDocumentContentChangePartial):
        return loc.offset(change.range.start) + len(change.text)
    if before is None:
        return None
    ch = find_change(before, loc.text)
    return len(loc.text) if ch is None else ch.new_end


def diagnostics(spans: list[Span], loc: Locator) -> list[types.Diagnostic]:
    """Make a hint over each span remask can rewrite."""
    return [types.Diagnostic(range=loc.range(s.start, s.end), message=s.reason,
                             severity=types.DiagnosticSeverity.Hint, code=s.kind,
                             source=SOURCE) for s in spans]


def workspace_edit(uri: str, version: int, edits: list[TextEdit], loc: Locator,
                   ) -> types.WorkspaceEdit:
    """One ``TextDocumentEdit`` naming the version the edits' offsets belong to.

    Sent as ``documentChanges`` to every client: VS Code advertises them and Neovim (since 0.5)
    applies them and checks the version, though it does not advertise it.
    """
    return documents_edit([(uri, version, edits, loc)])


def documents_edit(changes: list[tuple[str, int | None, list[TextEdit], Locator]],
                   ) -> types.WorkspaceEdit:
    """A ``TextDocumentEdit`` per document, each naming its version (None: the file on disk)."""
    return types.WorkspaceEdit(document_changes=[types.TextDocumentEdit(
        types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextEdit(range=loc.range(e.start, e.end), new_text=e.new_text) for e in edits])
        for uri, version, edits, loc in changes])


def code_action(p: Proposal, uri: str, version: int, loc: Locator,
                diags: list[types.Diagnostic]) -> types.CodeAction:
    """Make a quick fix of one proposal, titled as the Rewriter titled it."""
    return types.CodeAction(title=p.title, kind=types.CodeActionKind.QuickFix,
                            diagnostics=diags or None,
                            edit=workspace_edit(uri, version, p.edits, loc),
                            data={"kind": p.kind, "version": version})


def replacement(text: str, new_text: str, edits: list[TextEdit], cursor: int,
                ) -> tuple[int, int, str] | None:
    """Return the one range of ``text`` covering every edit and the cursor, and its new text."""
    if not edits:
        return None
    a = min(min(e.start for e in edits), cursor)
    b = max(max(e.end for e in edits), cursor)
    return a, b, new_text[a:len(new_text) - (len(text) - b)]


def inline_items(p: Proposal, text: str, cursor: int, loc: Locator,
                 ) -> list[types.InlineCompletionItem]:
    """Range-replacing inline completions: the best fill, then the other candidates.

    The range covers the replaced hole (a ``???`` or the rest of a line) and the cursor, so a
    client shows ghost text at the cursor and accepting it replaces the marker too.
    """
    items: list[types.InlineCompletionItem] = []
    for new in [p.text, *p.alternatives]:
        edits = p.edits if new is p.text else minimal_edits(text, new)
        r = replacement(text, new, edits, cursor)
        if r is not None and all(r[2] != i.insert_text for i in items):
            # clients show an item only when the replaced text is a prefix of its filter text
            items.append(types.InlineCompletionItem(insert_text=r[2], range=loc.range(r[0], r[1]),
                                                    filter_text=text[r[0]:r[1]] + r[2]))
    return items


def denoise_step(uri: str, version: int, kind: str, step: int, text: str, masked: int,
                 rows: int = 0, drawn: int = 0) -> dict:
    """Params of the ``remask/denoiseStep`` notification: the provisional span after a step."""
    return {"uri": uri, "version": version, "kind": kind, "step": step, "text": text,
            "masked": masked, "rows": rows, "drawn": drawn}
