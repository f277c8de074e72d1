"""Proposals no model takes part in: every span's one candidate, checked like any other.

The imports of a moved module and the renamed references in other modules carry the one
text the edit determines (``Span.model`` False); loading a model for them costs seconds and
changes nothing. A front end that has no model loaded yet (the hook, a language server
asked to rename a file) builds their proposal here.
"""

from __future__ import annotations

from .checks import python_ok, title
from .config_files import is_config, well_formed
from .edits import minimal_edits
from .proposal import Proposal, Span, TextEdit, apply_edits, span_ranges
from .syntax import new_errors, parse


def mechanical_proposal(text: str, spans: list[Span], path: str | None = None,
                        heading: str | None = None) -> Proposal | None:
    """``text`` with each span's first candidate, unless that adds a syntax error.

    The spans are one kind's, none overlapping; ``heading`` is the proposal's title (by
    default the kind's, "Rename 3 references"). A config file or docs (``path``) is checked
    as what it is: a TOML or INI file must still read.
    """
    kind = spans[0].kind if spans else "rename"
    new = apply_edits(text, [TextEdit(s.start, s.end, s.mechanical[0])
                             for s in spans if s.mechanical])
    if new == text:
        return None
    if path is not None and is_config(path):
        if well_formed(text, path) and not well_formed(new, path):
            return None
    elif new_errors(parse(text, path), parse(new, path)) or \
            python_ok(text, path, None) and not python_ok(new, path, None):
        return None
    return Proposal(kind, heading or title(kind, len(spans)), spans, new,
                    minimal_edits(text, new, span_ranges(spans)),
                    trace={"sources": ["mechanical"] * len(spans)})


def mechanical_proposals(text: str, spans: list[Span], path: str | None = None
                         ) -> list[Proposal]:
    """One proposal per kind of span, as the Rewriter groups them."""
    out = [mechanical_proposal(text, [s for s in spans if s.kind == kind], path)
           for kind in dict.fromkeys(s.kind for s in spans)]
    return [p for p in out if p is not None]
