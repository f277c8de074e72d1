"""Minimal edits: the smallest set of replacements that turns one text into another.

Front ends send these rather than whole files, so a client's cursor, folds and undo history
outside the change survive, and a stale edit is easy to refuse.
"""

from __future__ import annotations

import difflib

from .proposal import TextEdit


def minimal_edits(old: str, new: str) -> list[TextEdit]:
    """Edits over ``old`` whose application yields ``new``; each covers one changed region.

    Lines are matched first (fast, stable on code), then each changed block is trimmed to
    its common leading and trailing characters so an edit replaces only what differs.
    """
    if old == new:
        return []
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    old_starts = _starts(old_lines)
    new_starts = _starts(new_lines)
    sm = difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False)
    edits = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "equal":
            continue
        a, b = old_starts[i1], old_starts[i2]
        c, d = new_starts[j1], new_starts[j2]
        edits.append(_trim(old, new, a, b, c, d))
    return edits


def _starts(lines: list[str]) -> list[int]:
    out = [0]
    for line in lines:
        out.append(out[-1] + len(line))
    return out


def _trim(old: str, new: str, a: int, b: int, c: int, d: int) -> TextEdit:
    while a < b and c < d and old[a] == new[c]:
        a, c = a + 1, c + 1
    while a < b and c < d and old[b - 1] == new[d - 1]:
        b, d = b - 1, d - 1
    return TextEdit(a, b, new[c:d])
