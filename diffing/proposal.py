"""The values the Rewriter hands to front ends: spans, minimal text edits, proposals."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Span:
    """A region of the current text that remask will re-denoise, and why it was chosen.

    Offsets are characters (str indices) into the text the span was computed from.
    ``mechanical`` holds texts the user's edit itself determines for the span (the new name at
    a renamed reference, a call's argument list updated for a changed signature, a missing
    closer): the Rewriter ranks them beside the model's candidates and says which one won.
    ``model`` False: the span lies past what one edit may have denoised (``span_cap``), or is
    a rename in another module (its text is the new name), and the Rewriter takes its
    mechanical candidate alone, so that no rename or call site is left half done.
    """

    start: int
    end: int
    kind: str  # "repair" | "rename" | "signature" | "hole" | "dangling"
    reason: str
    mechanical: tuple[str, ...] = ()
    model: bool = True


@dataclass(frozen=True)
class Choice:
    """One candidate text for a span or a repair, where it came from, and its model score."""

    text: str
    source: str  # "mechanical" | "model"
    score: float


def span_ranges(spans: list[Span]) -> list[tuple[int, int]]:
    """The spans' ``(start, end)``: the regions minimal edits must keep apart."""
    return [(s.start, s.end) for s in spans]


@dataclass(frozen=True)
class TextEdit:
    """Replace characters [start, end) of the original text with ``new_text``."""

    start: int
    end: int
    new_text: str


def apply_edits(text: str, edits: list[TextEdit]) -> str:
    """Apply non-overlapping edits (any order) to ``text``."""
    out, pos = [], 0
    for e in sorted(edits, key=lambda e: (e.start, e.end)):
        if e.start < pos or e.end < e.start or e.end > len(text):
            raise ValueError(f"edit {e.start}:{e.end} overlaps or lies outside the text")
        out += [text[pos:e.start], e.new_text]
        pos = e.end
    return "".join(out) + text[pos:]


@dataclass
class Proposal:
    """One offered rewrite of a whole file: what changes, where, and why."""

    kind: str
    title: str  # e.g. "Fill hole", "Repair statement", "Update 3 call sites"
    spans: list[Span]
    text: str  # the whole proposed file
    edits: list[TextEdit]  # minimal edits turning the input text into ``text``
    alternatives: list[str] = field(default_factory=list)  # other candidates' whole files
    trace: dict = field(default_factory=dict)


def combine(text: str, proposals: list[Proposal]) -> Proposal | None:
    """Merge proposals over the same ``text`` into one, dropping any that overlap an earlier.

    Front ends that apply everything at once (``remask propagate``, the git hook) use this;
    interactive ones offer the proposals apart.
    """
    taken: list[TextEdit] = []
    spans: list[Span] = []
    for p in proposals:
        if any(e.start < t.end and t.start < e.end or e.start == t.start
               for e in p.edits for t in taken):
            continue
        taken += p.edits
        spans += p.spans
    if not taken:
        return None
    kinds = sorted({p.kind for p in proposals})
    trace = {p.kind: p.trace for p in proposals}
    return Proposal(kinds[0] if len(kinds) == 1 else "+".join(kinds),
                    "; ".join(p.title for p in proposals), sorted(spans, key=lambda s: s.start),
                    apply_edits(text, taken), sorted(taken, key=lambda e: e.start), [], trace)
