"""The diff panel: the pending proposal's candidates, one at a time, to accept or reject.

A proposal is computed for one exact buffer text; the panel keeps that text so the app can
refuse to apply a candidate to a buffer that has changed since (the LSP's version rule).
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from remask.diffing.edits import minimal_edits
from remask.diffing.proposal import Proposal, TextEdit


@dataclass(frozen=True)
class Candidate:
    """One whole-file candidate of a proposal, with the edits that turn ``base`` into it."""

    proposal: Proposal
    base: str
    text: str
    edits: list[TextEdit]


def candidates(base: str, proposals: list[Proposal]) -> list[Candidate]:
    """Every proposal's own text, then its alternatives, in the order the Rewriter ranked them."""
    out = []
    for p in proposals:
        out.append(Candidate(p, base, p.text, p.edits))
        out += [Candidate(p, base, alt, minimal_edits(base, alt))
                for alt in p.alternatives if alt != p.text]
    return out


class ProposalPanel(VerticalScroll):
    """Shows the current candidate as a unified diff, with why its spans were chosen."""

    COMPONENT_CLASSES = {"diff--add", "diff--del", "diff--hunk", "diff--title"}

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "proposal"
        self._cands: list[Candidate] = []
        self._index = 0

    def compose(self) -> ComposeResult:
        yield Static("No proposal.", id="diff")

    @property
    def candidate(self) -> Candidate | None:
        return self._cands[self._index] if self._cands else None

    @property
    def count(self) -> int:
        return len(self._cands)

    def show(self, base: str, proposals: list[Proposal]) -> None:
        self._cands, self._index = candidates(base, proposals), 0
        self._render_current()

    def next_candidate(self) -> None:
        if self._cands:
            self._index = (self._index + 1) % len(self._cands)
            self._render_current()

    def clear(self, note: str = "No proposal.") -> None:
        self._cands, self._index = [], 0
        self.query_one("#diff", Static).update(note)

    def _render_current(self) -> None:
        c = self.candidate
        if c is None:
            return
        style = self.get_component_rich_style
        p = c.proposal
        out = Text()
        out.append(f"{p.title}  ({self._index + 1}/{len(self._cands)})\n",
                   style=style("diff--title"))
        for s in p.spans:
            out.append(f"· {s.reason}\n")
        for line in difflib.unified_diff(c.base.splitlines(), c.text.splitlines(),
                                         "current", "proposed", n=2, lineterm=""):
            if line.startswith(("---", "+++")):
                continue
            kind = {"+": "diff--add", "-": "diff--del", "@": "diff--hunk"}.get(line[:1])
            out.append(line + "\n", style=style(kind) if kind else "")
        self.query_one("#diff", Static).update(out)
        self.scroll_home(animate=False)
