"""Edit → spans: which regions of the text after a user's edit remask should re-denoise.

Model-free. An edit is found as one minimal region (common prefix and suffix of the two
texts); the bytes the user typed there are never inside a span. Two texts a commit or a burst
of typing apart hold several edits: each is read alone (``separate_edits``). Each span records
why it was chosen, and spans of one kind are merged and capped so an edit never re-denoises
the file.
"""

from __future__ import annotations

import ast
import bisect
import builtins
import keyword
import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from .callsite import call_site_spans
from .change import Change, find_change, separate_edits
from .defaults import default_spans
from .edits import (
    ast_offset,
    line_starts,
    statement_range,
    word_char,
)
from .flow import unbound_reads
from .holes import hole_spans
from .mentions import mentions, module_mentions
from .param_uses import param_use_spans
from .proposal import Span
from .repair import Unit, unit_from_edit, units_from_errors
from .scopes import Occurrence, ScopeIndex, scope_index
from .signature import SignatureChange, heirs, signature_change
from .syntax import Document, new_errors, parse, placeholders

KINDS = ("repair", "rename", "signature", "dangling", "hole")
_BUILTINS = set(dir(builtins))
MENTIONED = ("parameter",)  # bindings whose mentions in their function follow them


def renamed_word(before: str, after: str, ch: Change) -> tuple[int, str, str] | None:
    """``(start, old, new)`` when the edit replaced one identifier by another, else None."""
    a = ch.start
    while a > 0 and word_char(before[a - 1]):
        a -= 1
    b_old, b_new = ch.old_end, ch.new_end
    while b_old < len(before) and word_char(before[b_old]):
        b_old, b_new = b_old + 1, b_new + 1
    old, new = before[a:b_old], after[a:b_new]
    if old == new or not all(w.isidentifier() and not keyword.iskeyword(w) for w in (old, new)):
        return None
    return a, old, new


def rename_spans(before: str, after: str, ch: Change) -> list[Span]:
    """Return the other references of a binding the user renamed, each to receive the new name."""
    word = renamed_word(before, after, ch)
    if word is None:
        return []
    start, old, new = word
    index = scope_index(before)
    if index is None:
        return []
    occ = index.at(start)
    if occ is None or occ.start != start or occ.name != old or \
            not occ.binding and not _use_renamed_to_nothing(index, occ, after, start, new):
        return []
    starts, spans = line_starts(before), []
    what = occ.kind if occ.binding else f"use on line {_line_of(starts, start)}"
    if not occ.binding:  # the variable's own references: a parameter's keywords too
        occ = next(r for r in index.references(occ) if r.binding)
    for ref in index.references(occ):
        a, b = ch.to_after(ref.start), ch.to_after(ref.end)
        if ref.start == start or a is None or b is None or after[a:b] != old:
            continue
        line = _line_of(starts, ref.start)
        reason = f"{ref.kind} of '{old}' on line {line}; the {what} was renamed to '{new}'"
        spans.append(Span(a, b, "rename", reason, (new,)))
    if occ.kind in MENTIONED:
        taken = {(s.start, s.end) for s in spans} | {(start, start + len(new))}
        spans += [s for s in mentions(after, ch.to_after(occ.start) or start, old, new)
                  if (s.start, s.end) not in taken]
    if occ.key == ("name", 0, old):  # a module-level binding: strings that name it as code
        spans += module_mentions(after, old, new)
    return sorted(spans, key=lambda s: s.start)


def _use_renamed_to_nothing(index: ScopeIndex, occ: Occurrence, after: str, start: int,
                            new: str) -> bool:
    """Whether a use of a file's variable was renamed to a name nothing binds.

    ``return acc`` → ``return total`` with no ``total`` anywhere it could come from is a
    NameError as typed: the user renames the variable from where they stand, and its binding
    and other uses follow (a proposal, as any). A new name that something binds (another
    variable, a builtin, what a ``*`` import may bring) is the user's choice of that one.
    """
    if occ.key[0] != "name" or not any(r.binding for r in index.references(occ)) \
            or new in _BUILTINS:
        return False
    now = scope_index(after)
    use = now.at(start) if now is not None else None
    return use is not None and use.name == new \
        and not any(o.binding and o.key == use.key for o in now.occurrences) \
        and not any(isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
                    for n in now.tree.body)


def _other_callee(after: str, change: SignatureChange) -> Callable[[int], bool] | None:
    """Whether the function called by the name at an offset is not the changed def.

    ``obj.name(…)``: a method of another class, as far as classes tell, and never a plain
    function (``sep.join(p)`` is no call of the file's ``join``); ``name(…)``: another binding
    of the name (a parameter ``f``, a nested def of the same name, ``f = print``), and never
    a method, which is called through its object (but ``__init__`` is, as its class ``C(…)``).
    """
    index = scope_index(after)
    if index is None:
        return None
    starts = line_starts(after)
    home = next((o for o in index.occurrences if o.kind == "def" and o.name == change.name
                 and _line_of(starts, o.start) == change.line), None)
    if home is None:
        return None
    in_class = change.in_class
    same = set() if in_class else {r.start for r in index.references(home)}

    def elsewhere(at: int) -> bool:
        o = index.at(at)
        if o is None:
            return False
        if o.kind == "attribute-use":
            return not in_class or not index.may_share(home, o) \
                or index.overridden(home.key[1], o, change.name)
        return o.name == change.name if in_class else o.start not in same
    return elsewhere


def signature_spans(after: str, change: SignatureChange, ch: Change) -> list[Span]:
    """The call sites of a changed def, and where the parameters it gained should go."""
    other = _other_callee(after, change)
    calls = call_site_spans(after, change, other)
    parts = change.qualname.split(".")
    if parts[1:] == ["__init__"]:  # ``Quiet(…)`` for ``class Quiet(TestCase): pass``
        calls += [s for heir in heirs(after, parts[0]) for s in call_site_spans(
            after, replace(change, qualname=f"{heir.name}.__init__"), other)]
    uses = [u for u in param_use_spans(after, change)  # a call site's own span says it all
            if not any(c.start <= u.start and u.end <= c.end for c in calls)]
    return [s for s in calls + uses if _off_typed(s.start, s.end, ch)]


def dangling_spans(before: str, after: str, ch: Change, change: SignatureChange | None,
                   cap: int, calls: Sequence[Span] = ()) -> list[Span]:
    """Return the statements still using a name whose binding the edit removed.

    E.g. ``i`` after ``for i in range(len(xs))`` became ``for x in xs``. A removed
    parameter's default stands in for its reads (:mod:`.defaults`), even where a builtin
    or a module-level name of that name would now answer them (a removed ``format``
    parameter's reads read the builtin; sympy's ``simplify=True``, the imported function).
    A read in an argument a call site's update (``calls``) drops goes with it: answered
    too, it was a second edit of that call, which clashed and cost the whole follow-up
    (``walk(top, depth=depth - 1)`` in a recursive ``walk`` that lost ``depth``).
    """
    old, new = scope_index(before), scope_index(after)
    if old is None or new is None:
        return []
    tree = new.tree
    # touching the edit counts: ``default=X, default_factory=Y`` → ``default_factory=Y``
    # differs at ``=X, default``, just after the lost name; a name still bound is no loss,
    # since only reads nothing binds are answered
    lost = {o.name for o in old.bindings()
            if o.start <= ch.old_end and o.end >= ch.start and o.key[0] == "name"}
    module = {o.name for o in new.bindings() if o.key[:2] == ("name", 0)}
    reads = [o for o in new.occurrences if o.name in lost and o.kind == "use"
             and o.key[:2] == ("name", 0) and not _dropped(calls, o.start, o.name)]
    starts = line_starts(after)
    spans = [] if change is None else [
        s for s in default_spans(after, tree, starts, change, {o.start for o in reads},
                                 [(o.start, o.name) for o in new.bindings()], cap)
        if _off_typed(s.start, s.end, ch)]
    answered = list(spans)  # by a default; the rest go to the model, statement by statement
    unbound = [(o.start, o.name) for o in reads if o.name not in module
               and o.name not in _BUILTINS]
    unbound += [(at, name) for at, name in _unbound_locals(after, tree, starts, change, lost)
                if not _dropped(calls, at, name)]
    for at, name in unbound:
        if not any(s.start <= at < s.end for s in answered):
            s, e, line = _statement(after, starts, tree, at)
            for a, b in _minus(s, e, ch.typed):
                spans.append(Span(a, b, "dangling",
                                  f"line {line} uses '{name}', no longer bound by the edit"))
    return spans


def _dropped(calls: Sequence[Span], at: int, name: str) -> bool:
    """Whether a call site's update leaves out the read of ``name`` at ``at``."""
    return any(s.start <= at < s.end and s.mechanical
               and not re.search(rf"\b{re.escape(name)}\b", s.mechanical[0]) for s in calls)


def _unbound_locals(after: str, tree: ast.Module, starts: list[int],
                    change: SignatureChange | None, lost: set[str]) -> list[tuple[int, str]]:
    """Reads of a parameter the edit removed that its def's body binds later, as ``(at, name)``.

    The name stays the function's, so nothing outside answers them: UnboundLocalError
    (``def deepcopy(x, memo=None)`` → ``def deepcopy(x)`` leaves ``if memo is None: memo =
    {}``; 70 of 540 parameters removed in the standard library read so, with no span).
    """
    if change is None or change.subkind != "remove-param":
        return []
    fn = change.def_in(tree)
    if fn is None:
        return []
    inside = ast_offset(after, starts, fn.body[0].lineno, fn.body[0].col_offset)
    return [(at, name) for at, name in sorted(unbound_reads(after, inside).items())
            if name in lost]


def repair_units(before: str | None, after: str, path: str | None, cap: int,
                 marker: str = "???") -> list[Unit]:
    """Return the statements to repair: those with syntax errors the edit (or edits) added.

    Hole markers are not errors to repair (filling them is another kind), so they are read
    as a placeholder name of the same length first. Units of separate edits that overlap (one
    statement, two edits) are kept once; a unit holding what two edits typed is none, since
    it can keep only one edit's bytes fixed.
    """
    probe = placeholders(after, marker)
    doc = parse(probe, path)
    if not doc.has_errors():
        return []
    if before is None:
        return units_from_errors(probe, cap)
    edits = separate_edits(before, after)
    typed = [ch.typed for ch in (find_change(alone, after) for alone in edits)
             if ch is not None and ch.start < ch.new_end]
    units: list[Unit] = []
    for alone in edits:
        for u in _edit_units(alone, after, probe, doc, path, cap):
            inside = {t for t in typed if u.start < t[1] and t[0] < u.end}
            if len(inside) > 1 or any(u.start < k.end and k.start < u.end for k in units):
                continue
            units.append(replace(u, frozen=inside.pop() if inside else None))
    return units


def _edit_units(before: str, typed: str, after: str, doc: Document, path: str | None,
                cap: int) -> list[Unit]:
    """The repair units of one edit from ``before`` to ``typed`` (``after``: its probe)."""
    if not new_errors(parse(before, path), doc):
        return []
    # the edit as typed: the placeholder can shift it (``def _f`` → ``def ???(_f`` differs
    # from ``def _`` on as ``___(_`` but from ``def `` on as typed)
    ch = find_change(before, typed)
    unit = ch and unit_from_edit(before, after, ch.start, ch.old_end, ch.new_end, cap)
    if unit:
        return [unit]
    if ch is not None:  # the typed bytes stay fixed whichever way the unit was found
        return [replace(u, frozen=ch.typed) for u in units_from_errors(after, cap)
                if any(p.start < p.end for p in replace(u, frozen=ch.typed).spans())]
    return units_from_errors(after, cap)


def affected_spans(before: str, after: str, path: str | None = None,
                   cursor: int | None = None, *, kinds: frozenset[str] = frozenset(KINDS),
                   marker: str = "???", cap: int = 600) -> list[Span]:
    """Return every span the edits from ``before`` to ``after`` affect, merged and capped.

    Nothing for a text with lone surrogates: no file holds one (``files.check_text`` refuses
    such a buffer), and neither parser takes it.
    """
    if not (_utf8(before) and _utf8(after)):
        return []
    ch = find_change(before, after)
    spans: list[Span] = []
    if "repair" in kinds:
        spans += [s for u in repair_units(before, after, path, cap, marker) for s in u.spans()]
    if ch is not None and not spans:
        edits = separate_edits(before, after)
        typed = [c.typed for alone in edits if (c := find_change(alone, after)) is not None]
        for alone in edits:
            spans += _clear_of(_follow_ups(alone, after, kinds, cap), typed)
    if "hole" in kinds:
        spans += [s for s in hole_spans(after, marker, cursor, path)  # a typed marker is a request
                  if ch is None or after[s.start:s.end] == marker or _off_typed(s.start, s.end,
                                                                              ch)]
    anchor = ch.start if ch is not None else (cursor or 0)
    return merge_and_cap(spans, cap, anchor)


def _follow_ups(before: str, after: str, kinds: frozenset[str], cap: int) -> list[Span]:
    """The other places one edit (a rename, a signature change, a removal) calls to change."""
    ch = find_change(before, after)
    if ch is None:
        return []
    renames = rename_spans(before, after, ch) if "rename" in kinds else []
    if renames:
        return renames
    change = signature_change(before, after) if kinds & {"signature", "dangling"} else None
    calls = signature_spans(after, change, ch) if change is not None else []
    spans = list(calls) if "signature" in kinds else []
    if "dangling" in kinds:
        spans += dangling_spans(before, after, ch, change, cap, calls)
    return spans


# Spans the model denoises for one edit, at most: each costs a fill and a ranking (~0.17 s
# on one thread), so a rename of a name used 200 times took 31 s where its references need
# only the new name. 184 of the 192 real edits have 8 or fewer.
MODEL_SPANS = 16


def merge_and_cap(spans: list[Span], cap: int, anchor: int) -> list[Span]:
    """Merge overlapping spans of one kind; keep those nearest ``anchor`` within the caps.

    At most ``cap`` characters in at most ``MODEL_SPANS`` spans are denoised. Rename spans
    are not merged with each other: each is one reference with its own new name. Past the
    caps, the references, call sites and defaults an edit determines are kept for their
    mechanical candidates alone (``model=False``): dropped, a rename used 200 times left 190
    reads of a name nothing binds, and a call site the cap left out a TypeError or, past a new
    parameter before ``*args``, arguments silently shifted (four of 526 parameters added in
    the standard library).
    """
    merged: list[Span] = []
    for s in sorted(spans, key=lambda s: (s.kind, s.start, s.end)):
        last = merged[-1] if merged else None
        if last and last.kind == s.kind == "dangling" and s.start <= last.end \
                and not (last.mechanical or s.mechanical):  # a default's text is exact
            merged[-1] = Span(last.start, max(last.end, s.end), s.kind, last.reason)
        elif not (last and last.kind == s.kind and (last.start, last.end) == (s.start, s.end)):
            merged.append(s)
    kept, used, denoised = [], 0, 0
    for s in sorted(merged, key=lambda s: abs(s.start - anchor)):
        if used + (s.end - s.start) <= cap and denoised < MODEL_SPANS:
            kept.append(s)
            used, denoised = used + s.end - s.start, denoised + 1
        elif s.kind in ("rename", "signature", "dangling") and s.mechanical:
            kept.append(replace(s, model=False))
    return sorted(kept, key=lambda s: (s.start, s.end))


def _statement(text: str, starts: list[int], tree: ast.Module, offset: int
               ) -> tuple[int, int, int]:
    """Return the smallest statement (or compound header) around ``offset``, and its line."""
    best = (0, len(text), 1)
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            s, e = statement_range(text, starts, node)
            if s <= offset < e and e - s < best[1] - best[0]:
                best = (s, e, node.lineno)
    return best


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _clear_of(spans: list[Span], typed: list[tuple[int, int]]) -> list[Span]:
    """``spans`` off every edit's typed bytes: one edit's follow-up may hold another's.

    A statement to denoise loses them (it may split); a span with text of its own to put
    there is dropped, since that text would undo what was typed.
    """
    out = []
    for s in spans:
        parts = [(s.start, s.end)]
        for t in typed:
            parts = [p for a, b in parts for p in _minus(a, b, t)]
        if parts == [(s.start, s.end)]:
            out.append(s)
        elif not s.mechanical:
            out += [replace(s, start=a, end=b) for a, b in parts]
    return out


def _minus(s: int, e: int, typed: tuple[int, int]) -> list[tuple[int, int]]:
    a, b = typed
    if b <= s or a >= e or a == b:
        return [(s, e)]
    return [(x, y) for x, y in ((s, a), (b, e)) if x < y]


def _off_typed(s: int, e: int, ch: Change) -> bool:
    a, b = ch.typed
    return a == b or e <= a or s >= b


def _line_of(starts: list[int], offset: int) -> int:
    return bisect.bisect_right(starts, offset)
