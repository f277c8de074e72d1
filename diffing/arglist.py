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


def insert_arguments(text: str, items: list[tuple[int, int]], k: int | None,
                     news: list[str], open_: int, close: int, limit: int) -> tuple[int, str]:
    """The offset and text that put ``news``, in order, after ``items[k]`` (first when None).

    ``items`` are the arguments' (start, end) offsets in ``text``, in order; ``open_`` and
    ``close`` the offsets of the call's brackets. Arguments going in at one point are laid out
    together, so that the line they share is measured with all of them on it.
    """
    if k is None:
        return open_ + 1, ", ".join(news) + (", " if items else "")
    start, end = items[k]
    rows = [text.count("\n", open_, a) for a, _ in items]
    if "\n" in text[open_:start] and all(rows.count(rows[i]) == 1
                                         for i in range(max(k - 1, 0), k + 1)):
        # the argument they follow, and the one before that, have lines of their own
        indent = " " * _column(text, start)
        rest = text[end:close]
        if not rest.lstrip().startswith(","):
            return end, "".join(f",\n{indent}{new}" for new in news)
        return end + rest.index(",") + 1, "".join(f"\n{indent}{new}," for new in news)
    line_end = text.find("\n", end)
    line_end = len(text) if line_end < 0 else line_end
    joined = ", ".join(news)
    if _column(text, line_end) + len(joined) + 2 <= limit:
        return end, f", {joined}"
    if "\n" not in text[open_:items[0][0]]:  # aligned with the opening bracket
        col = _column(text, items[0][0])
    else:  # a hanging indent: the one the argument's line has
        line = text[text.rfind("\n", 0, end) + 1:end]
        col = len(line) - len(line.lstrip())
    lines = [news[0]]
    for new in news[1:]:  # as many to a wrapped line as fit
        if col + len(lines[-1]) + len(new) + 3 <= limit:
            lines[-1] += f", {new}"
        else:
            lines.append(new)
    return end, "".join(f",\n{' ' * col}{line}" for line in lines)


def _column(text: str, offset: int) -> int:
    return offset - (text.rfind("\n", 0, offset) + 1)


__all__ = ["LINE", "insert_arguments", "line_limit"]
