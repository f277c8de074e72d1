"""Minimal edits: the smallest set of replacements that turns one text into another.

Front ends send these rather than whole files, so a client's cursor, folds and undo history
outside the change survive, and a stale edit is easy to refuse.
"""

from __future__ import annotations

import ast
import difflib
import functools
import re
from collections.abc import Sequence

from .proposal import TextEdit


def minimal_edits(old: str, new: str, inside: list[tuple[int, int]] | None = None
                  ) -> list[TextEdit]:
    """Return edits over ``old`` whose application yields ``new``, each one changed region.

    Lines are matched first (fast, stable on code); inside each changed block, words,
    runs of spaces and single punctuation marks are matched again, so renaming two names on
    one line gives two small edits rather than one that rewrites the text between them.
    An insertion next to equal characters can sit at several offsets (a line break added
    before a line break); with ``inside`` (the spans the text was rewritten in) it is slid
    into one of them, so an edit never appears to touch bytes outside the spans.
    """
    if old == new:
        return []
    if inside is not None:
        return _coalesce([_slide(old, e, inside) for e in minimal_edits(old, new)])
    old_lines, new_lines = old.splitlines(keepends=True), new.splitlines(keepends=True)
    old_starts = _starts(old_lines)
    new_starts = _starts(new_lines)
    edits = []
    for i1, i2, j1, j2 in _changes(old_lines, new_lines):
        edits += _refine(old, new, old_starts[i1], old_starts[i2], new_starts[j1],
                         new_starts[j2])
    return _coalesce(edits)


def _changes(x: list[str], y: list[str]) -> list[tuple[int, int, int, int]]:
    """The ranges ``x[i1:i2]`` that become ``y[j1:j2]``, the common head and tail set aside.

    ``difflib`` matches in time quadratic in what it is given where parts repeat (a line of
    ``1 + 1 + …``, a file of blank lines): 14 s for one fill at the end of a 12 kB line.
    A fill changes one place, so what precedes and follows it is matched in a linear scan.
    """
    head = common_prefix(x, y)
    tail = common_suffix(x, y, min(len(x), len(y)) - head)
    sm = difflib.SequenceMatcher(None, x[head:len(x) - tail], y[head:len(y) - tail],
                                 autojunk=False)
    return [(i1 + head, i2 + head, j1 + head, j2 + head)
            for op, i1, i2, j1, j2 in sm.get_opcodes() if op != "equal"]


def common_prefix(a: Sequence, b: Sequence) -> int:
    """How long ``a`` and ``b`` agree from the start.

    By bisection, slices compared in C: a loop over the characters of a 2 MB buffer in
    Python takes a tenth of a second, and the language server asks at every change.
    """
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[lo:mid] == b[lo:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def common_suffix(a: Sequence, b: Sequence, limit: int) -> int:
    """How long ``a`` and ``b`` agree at the end, at most ``limit`` (:func:`common_prefix`)."""
    lo, hi = 0, limit
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid:len(a) - lo] == b[len(b) - mid:len(b) - lo]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _coalesce(edits: list[TextEdit]) -> list[TextEdit]:
    """Merge edits that touch (an insertion right where a replacement starts) into one.

    Two edits at one offset are legal but order-sensitive: a client that applies them
    back to front by start alone puts the insertion on the wrong side. One edit can't be
    misapplied, and it is what a reader calls a single change anyway.
    """
    out: list[TextEdit] = []
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        if out and out[-1].end == e.start:
            out[-1] = TextEdit(out[-1].start, e.end, out[-1].new_text + e.new_text)
        else:
            out.append(e)
    return out


def _slide(old: str, e: TextEdit, inside: list[tuple[int, int]]) -> TextEdit:
    """Move a pure insertion along equal characters until it lies in one of ``inside``."""
    def fits(p: int) -> bool:
        return any(a <= p <= b for a, b in inside)

    if e.start != e.end or not e.new_text or fits(e.start):
        return e
    p, text = e.start, e.new_text
    while p > 0 and old[p - 1] == text[-1] and not fits(p):  # leftwards
        p, text = p - 1, old[p - 1] + text[:-1]
    if fits(p):
        return TextEdit(p, p, text)
    p, text = e.start, e.new_text
    while p < len(old) and old[p] == text[0] and not fits(p):  # rightwards
        p, text = p + 1, text[1:] + old[p]
    return TextEdit(p, p, text) if fits(p) else e


def _refine(old: str, new: str, a: int, b: int, c: int, d: int) -> list[TextEdit]:
    """Split the block old[a:b] → new[c:d] into word-level edits."""
    x, y = _WORDS.findall(old[a:b]), _WORDS.findall(new[c:d])
    xs, ys = _starts(x), _starts(y)
    return [_trim(old, new, a + xs[i1], a + xs[i2], c + ys[j1], c + ys[j2])
            for i1, i2, j1, j2 in _changes(x, y)]


def _starts(parts: list[str]) -> list[int]:
    out = [0]
    for part in parts:
        out.append(out[-1] + len(part))
    return out


def _trim(old: str, new: str, a: int, b: int, c: int, d: int) -> TextEdit:
    while a < b and c < d and old[a] == new[c]:
        a, c = a + 1, c + 1
    while a < b and c < d and old[b - 1] == new[d - 1]:
        b, d = b - 1, d - 1
    return TextEdit(a, b, new[c:d])


def word_char(c: str) -> bool:
    """Whether ``c`` may be part of a Python name (a letter, a digit, an underscore)."""
    return c.isalnum() or c == "_"


def line_starts(text: str) -> list[int]:
    """Return the offsets where lines start, splitting on CRLF, LF and a lone CR."""
    starts = [0]
    for m in LINE_BREAK.finditer(text):
        starts.append(m.end())
    return starts


LINE_BREAK = re.compile(r"\r\n|\n|\r")
_WORDS = re.compile(r"\w+|[ \t]+|\r\n|[^\w]", re.S)


def python_source(text: str) -> str:
    """``text`` as Python's parser takes it: a leading byte-order mark read as a form feed.

    Python skips a UTF-8 BOM in a file's bytes but refuses it in a str, so a file saved with
    one (Windows editors write it) would be no Python at all to every check and rename. A
    form feed is whitespace at the start of a line, one character as the mark is: every
    offset stays where it was.
    """
    return "\f" + text[1:] if text.startswith("\ufeff") else text


def parse_python(text: str) -> ast.Module:
    """``ast.parse`` of :func:`python_source`; SyntaxError as ``ast.parse`` raises it.

    Also for code nested deeper than Python's parser recurses (``1 + 1 + …`` three thousand
    times): Python could not run it either, and every caller already handles SyntaxError.
    The tree is shared, so read-only: one keystroke's follow-ups (signature, scopes, flow,
    mentions, parameter uses) parsed the same text seven times, 0.2 s of a 3,000-line file's
    0.85 s.
    """
    tree = _parsed(text)
    if isinstance(tree, SyntaxError):
        raise SyntaxError(*tree.args)  # a new one each time: a raise adds to its traceback
    return tree


@functools.lru_cache(maxsize=4)
def _parsed(text: str) -> ast.Module | SyntaxError:
    try:
        return ast.parse(python_source(text))
    except SyntaxError as e:
        return e
    except RecursionError:
        return SyntaxError("too deeply nested for Python's parser")


def ast_offset(text: str, starts: list[int], lineno: int, col: int) -> int:
    """Return the character offset of an ``ast`` position (1-based line, UTF-8 byte column).

    ``ast`` counts columns in bytes, so a line with non-ASCII text needs decoding to land on
    the right character; ``starts`` is :func:`line_starts` of ``text``. The first line is
    counted as :func:`python_source` gave it to the parser.
    """
    start = starts[lineno - 1]
    end = starts[lineno] if lineno < len(starts) else len(text)
    line = python_source(text[start:end]) if start == 0 else text[start:end]
    return start + len(line.encode()[:col].decode("utf-8", "ignore"))


def statement_range(text: str, starts: list[int], node: ast.stmt) -> tuple[int, int]:
    """Return where statement ``node`` is in ``text``; a compound one's header only.

    A header ends at the colon before its block, so its range never takes in the block.
    """
    s = ast_offset(text, starts, node.lineno, node.col_offset)
    body = getattr(node, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
        return s, text.rfind(":", 0, ast_offset(text, starts, body[0].lineno,
                                                body[0].col_offset))
    return s, ast_offset(text, starts, node.end_lineno, node.end_col_offset)


def map_back(edits: list[TextEdit], pos: int, right: bool = False) -> int:
    """Map a position of the edited text back to the text the ``edits`` were made over.

    A position inside replaced text maps to the replaced region's start (or, with ``right``,
    its end), so a span mapped back still covers everything it covered.
    """
    delta = 0
    for e in sorted(edits, key=lambda e: e.start):
        new_start, new_end = e.start + delta, e.start + delta + len(e.new_text)
        if pos < new_start or (pos == new_start and not right):
            break
        if pos <= new_end:
            return e.end if right or pos > new_start else e.start
        delta += len(e.new_text) - (e.end - e.start)
    return pos - delta


def bound_within(node: ast.AST) -> set[str]:
    """The names ``node`` binds anywhere inside itself.

    Its parameters (a def or lambda, and those of the defs and lambdas within), assignment
    targets, nested defs and classes, imports, ``except … as`` names.
    """
    names: set[str] = set()
    args = getattr(node, "args", None)
    if isinstance(args, ast.arguments):
        names |= {p.arg for p in [*args.posonlyargs, *args.args, *args.kwonlyargs,
                                  args.vararg, args.kwarg] if p}
    for n in ast.walk(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            names.add(n.id)
        elif isinstance(n, ast.arg):
            names.add(n.arg)
        elif isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and n is not node:
            names.add(n.name)
        elif isinstance(n, ast.Import | ast.ImportFrom):
            names |= {(al.asname or al.name).split(".")[0] for al in n.names}
        elif isinstance(n, ast.ExceptHandler) and n.name:
            names.add(n.name)
    return names


def docstring_of(body: list[ast.stmt]) -> ast.Expr | None:
    """The docstring statement opening ``body`` (a module's, a def's, a class's), if any."""
    first = body[0] if body else None
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and \
            isinstance(first.value.value, str):
        return first
    return None
