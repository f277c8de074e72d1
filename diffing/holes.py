"""Where a fill goes: the hole markers in code, and the hole under the cursor.

Model-free, as :mod:`.spans` is: a ``???`` typed in code is a request; one in a comment or a
string's text is the user's prose; with the cursor on an empty body, a ``pass``, or the end
of a line being typed, that is the hole.
"""

from __future__ import annotations

import bisect
from dataclasses import replace

from .binding_holes import binding_candidates
from .edits import line_starts, word_char
from .import_holes import import_candidates
from .proposal import Span
from .syntax import PROSE, parse, placeholders


def marker_spans(text: str, marker: str, path: str | None = None) -> list[Span]:
    """Every ``marker`` in code, in order; none inside a comment, a string's text or a name.

    A marker that is a word (``--marker TODO``) is a hole where it stands alone, not inside
    ``TODO_LIST``.

    Filling those rewrote a user's messages (``"what???"`` became ``"whate"``); a marker in
    an f-string's ``{}`` is code, and a hole. Each marker is read as a placeholder name first,
    as :func:`repair_units` reads it, so a hole does not throw the parse of what follows it
    (the rest of an f-string after ``{???}``) into error recovery.
    """
    hits, i = [], text.find(marker) if marker else -1
    while i != -1:
        if not inside_word(text, i, i + len(marker)):
            hits.append(i)
        i = text.find(marker, i + len(marker))
    if not hits:
        return []
    probe = placeholders(text, marker)
    doc = parse(probe, path)
    spans = []
    for i in hits:  # prose, not a hole: ``print("what???")``, ``# TODO: ??? later``, a docstring
        if not doc.inside(i, i + len(marker), PROSE):
            spans.append(Span(i, i + len(marker), "hole", f"'{marker}' marker",
                              mechanical(text, i, i + len(marker), marker, path)))
    return spans


def hole_spans(text: str, marker: str, cursor: int | None, path: str | None = None
               ) -> list[Span]:
    """Return the marker holes, plus the empty body or line end the cursor sits at."""
    spans = marker_spans(text, marker, path)
    if cursor is not None and not any(s.start <= cursor <= s.end for s in spans):
        hole = cursor_hole(text, cursor, marker, rest_of_line=False, path=path)
        if hole is not None:
            spans.append(hole)
    return sorted(spans, key=lambda s: s.start)


def cursor_hole(text: str, cursor: int, marker: str, rest_of_line: bool = True,
                path: str | None = None) -> Span | None:
    """Return the hole under the cursor.

    A marker on its line, else an empty / pass / ... body it sits in, else (when
    ``rest_of_line``) the rest of its line; a blank line end counts either way. One that
    ends an import's list or is a binding's target carries the names the file reads unbound
    (:func:`mechanical`).
    """
    hole = _cursor_hole(text, cursor, marker, rest_of_line)
    if hole is None:
        return None
    return replace(hole, mechanical=mechanical(text, hole.start, hole.end, marker, path))


def mechanical(text: str, start: int, end: int, marker: str,
               path: str | None) -> tuple[str, ...]:
    """What the file itself says a hole holds, as the hole's mechanical candidates.

    The modules or names an import's list wants (:mod:`.import_holes`), the names a
    binding's target wants (:mod:`.binding_holes`).
    """
    return import_candidates(text, start, end, marker, path) or \
        binding_candidates(text, start, end, marker, path)


def _cursor_hole(text: str, cursor: int, marker: str, rest_of_line: bool) -> Span | None:
    starts = line_starts(text)
    n = bisect.bisect_right(starts, cursor) - 1
    ls = starts[n]
    le = starts[n + 1] if n + 1 < len(starts) else len(text)
    line = text[ls:le].rstrip("\r\n")
    cursor = min(cursor, ls + len(line))  # a cursor between CR and LF sits at the line end
    if marker and marker in line:
        cands = [ls + i for i in range(len(line)) if line.startswith(marker, i)]
        i = min(cands, key=lambda c: abs(c - cursor))
        return Span(i, i + len(marker), "hole", f"'{marker}' marker at the cursor")
    body = line.strip()
    prev = text[:ls].rstrip()
    if body in ("pass", "...") and prev.endswith(":"):
        i = ls + line.index(body)
        return Span(i, i + len(body), "hole", f"the '{body}' body the cursor is in")
    if not body and prev.endswith(":"):
        return Span(cursor, ls + len(line), "hole", "the empty body the cursor is in")
    if rest_of_line or not text[cursor:ls + len(line)].strip():
        return Span(cursor, ls + len(line), "hole", "the rest of the cursor's line")
    return None



def inside_word(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] continues a name on either side (word characters meet)."""
    return (start > 0 and word_char(text[start - 1]) and word_char(text[start])) or \
        (end < len(text) and word_char(text[end - 1]) and word_char(text[end]))
