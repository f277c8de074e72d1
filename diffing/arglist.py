"""Where a new argument goes in a call's argument list, laid out as the call already is.

Both kinds of signature follow-up insert arguments — a call site gets the parameter the def
gained, a forwarding call in the body passes it on — and a proposal that reads as the
developer's own code keeps the call's layout: one argument a line stays one a line, and a
line that would run past the file's longest (at least 79 columns) wraps as the call's other
arguments wrap.
"""

from __future__ import annotations

LINE = 79  # a file whose lines are all shorter still wraps here


def line_limit(text: str) -> int:
    """The column past which an insertion wraps: the file's longest line, at least ``LINE``."""
    return max([LINE, *(len(line) for line in text.splitlines())])


def insert_argument(text: str, items: list[tuple[int, int]], k: int | None, new: str,
                    open_: int, close: int, limit: int) -> tuple[int, str]:
    """The offset and text that put ``new`` after ``items[k]`` (first when ``k`` is None).

    ``items`` are the arguments' (start, end) offsets in ``text``, in order; ``open_`` and
    ``close`` the offsets of the call's brackets.
    """
    if k is None:
        return open_ + 1, new + (", " if items else "")
    start, end = items[k]
    rows = [text.count("\n", open_, a) for a, _ in items]
    if "\n" in text[open_:start] and all(rows.count(rows[i]) == 1
                                         for i in range(max(k - 1, 0), k + 1)):
        # the argument it follows, and the one before that, have lines of their own
        indent = " " * _column(text, start)
        rest = text[end:close]
        if not rest.lstrip().startswith(","):
            return end, f",\n{indent}{new}"
        return end + rest.index(",") + 1, f"\n{indent}{new},"
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    if _column(text, line_end) + len(new) + 2 <= limit:
        return end, f", {new}"
    if "\n" not in text[open_:items[0][0]]:  # aligned with the opening bracket
        col = _column(text, items[0][0])
    else:  # a hanging indent: the one the argument's line has
        line = text[text.rfind("\n", 0, end) + 1:end]
        col = len(line) - len(line.lstrip())
    return end, f",\n{' ' * col}{new}"


def _column(text: str, offset: int) -> int:
    return offset - (text.rfind("\n", 0, offset) + 1)


__all__ = ["LINE", "insert_argument", "line_limit"]
