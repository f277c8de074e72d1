"""The user's edit itself: where two texts differ, and each of several edits alone.

The primitives every follow-up is read from (:mod:`.spans`): one minimal region from the
common prefix and suffix, and, for two texts a commit or a burst of typing apart, each run of
changed lines as if it were the last edit made.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import lru_cache

from .edits import common_prefix, common_suffix


@dataclass(frozen=True)
class Change:
    """The user's edit: ``before[start:old_end]`` became ``after[start:new_end]``."""

    start: int
    old_end: int
    new_end: int

    @property
    def typed(self) -> tuple[int, int]:
        return self.start, self.new_end

    def to_after(self, offset: int) -> int | None:
        """Map an offset of ``before`` outside the edit to ``after``; None inside it."""
        if offset <= self.start:
            return offset
        if offset >= self.old_end:
            return offset + self.new_end - self.old_end
        return None


def find_change(before: str, after: str) -> Change | None:
    """Return the single region where the texts differ (None when they are equal)."""
    if before == after:
        return None
    p = common_prefix(before, after)
    s = common_suffix(before, after, min(len(before), len(after)) - p)
    return Change(p, len(before) - s, len(after) - s)


@lru_cache(maxsize=8)  # one analysis asks twice: for its repairs and for its follow-ups
def separate_edits(before: str, after: str, limit: int = 24) -> tuple[str, ...]:
    """Each edit from ``before`` to ``after`` alone: ``after`` with only that edit undone.

    A commit holds several edits (a rename, and a new function further down); read as one
    region from the first to the last, the rename was no rename and its call sites stayed.
    Each edit is read as if it were made last, on top of the others. Edits are runs of
    changed lines with unchanged lines between them. One edit, or more than ``limit`` (a
    rewrite, not edits to follow up one by one), gives ``(before,)``.
    """
    ch = find_change(before, after)
    if ch is None or "\n" not in before[ch.start:ch.old_end] + after[ch.start:ch.new_end]:
        return (before,)
    a, b = before.splitlines(keepends=True), after.splitlines(keepends=True)
    runs = [op[1:] for op in SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
            if op[0] != "equal"]
    if not 1 < len(runs) <= limit:
        return (before,)
    return tuple("".join(b[:j1] + a[i1:i2] + b[j2:]) for i1, i2, j1, j2 in runs)
