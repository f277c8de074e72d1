"""Repairs: the statements a syntax error blames, mended mechanically or by the model.

The Rewriter's other half (:mod:`.rewriter`): a repair is not a span filled in place but a
unit re-written whole — a known typo's fix first, then the smallest candidate that leaves no
new error (closers and colons a parser would add, the model's re-denoised error positions,
the rest of a statement cut short), ties to the mechanical one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from remask.infill.engine import Engine
from remask.infill.sampler import SamplerConfig

from .checks import fresh, merge_traces, python_blames_above, python_ok, title
from .config import RewriterConfig
from .denoise import Cancel, OnStep, SpanDenoiser, SpanResult
from .edits import minimal_edits
from .proposal import Choice, Proposal, Span, span_ranges
from .repair import Unit, classic_repairs, mechanical_repairs, statement_keyword
from .syntax import error_signature, parse

SamplerFor = Callable[[Span, str, int, int, "str | None"], SamplerConfig]


class Repairer:
    """Repairs units of a text with one engine (shared with the Rewriter that owns it)."""

    def __init__(self, engine: Engine, config: RewriterConfig, denoiser: SpanDenoiser,
                 sampler_for: SamplerFor) -> None:
        self.engine = engine
        self.config = config
        self._denoiser = denoiser
        self._sampler_for = sampler_for

    def units(self, text: str, units: list[Unit], path: str | None, pool: list | None,
              cancel: Cancel, on_step: OnStep, *, strict: bool) -> Proposal | None:
        """Repair each unit in turn; the proposal's spans are the units' (over ``text``)."""
        current, shift, sources, traces, spans = text, 0, [], [], []
        for unit in units:
            u = replace(unit, start=unit.start + shift, end=unit.end + shift,
                        frozen=unit.frozen and (unit.frozen[0] + shift, unit.frozen[1] + shift),
                        anchor=None if unit.anchor is None else unit.anchor + shift,
                        past=None if unit.past is None else unit.past + shift)
            choice, trace = self._choice(current, u, path, pool, strict, cancel,
                                                on_step)
            traces.append(trace)
            if choice is None:
                continue
            current, delta = choice.text, len(choice.text) - len(current)
            shift += delta
            sources.append(choice.source)
            spans += unit.spans()
        if current == text:
            return None
        model_only = "same" if all(s == "model" for s in sources) else "none"
        return Proposal("repair", title("repair", len(sources)), spans, current,
                        minimal_edits(text, current, span_ranges(spans)), [],
                        {**merge_traces(traces), "sources": sources, "model_text": model_only})

    def _choice(self, text: str, u: Unit, path: str | None, pool: list | None,
                       strict: bool, cancel: Cancel, on_step: OnStep
                       ) -> tuple[Choice | None, dict]:
        """Return the smallest valid repair of unit ``u`` as a whole text; ties go to mechanical.

        With a ``pool`` (the errors the text before the edit had), valid means no tree-sitter
        error outside it and, when ``strict``, Python's parser satisfied. Without one (repairing
        a file as it is), the unit must be free of errors and Python's first complaint, if
        any, must lie past it (past ``u.past`` where set) or above it: other broken
        statements are later units' business (a bracket that does not match, reported first,
        hides a missing colon above it).
        """
        def ok(cand: str) -> bool:
            doc = parse(cand, path)
            if pool is not None:
                return not fresh(error_signature(doc), pool) and \
                    (not strict or python_ok(cand, path, None))
            end = u.end + len(cand) - len(text)
            # an error around the unit and more (tree-sitter's ERROR over a whole class) may
            # be another statement's: Python judges the unit then
            errors = [e for e in doc.errors() if not (e.start < u.start and e.end >= end)]
            if not any(e.start < end and e.end > u.start for e in errors) and python_ok(
                    cand, path, end if u.past is None else u.past + len(cand) - len(text)):
                return True
            # Python stopped above: tree-sitter's recovery from that statement spills into
            # this one, whose parse the whole file's check reads once both are mended
            return python_blames_above(cand, path, u.start)

        if u.fix is not None:  # a suspect line: its one repair, or this is not the unit
            cand = text[:u.start] + u.fix + text[u.end:]
            return (Choice(cand, "mechanical", 0.0) if cand != text and ok(cand) else None), {}
        for a, b, t in classic_repairs(text, u):  # a known typo: its fix, not a smaller one
            if ok(cand := text[:a] + t + text[b:]):
                return Choice(cand, "mechanical", 0.0), {}
        found: list[Choice] = []
        for a, b, t in mechanical_repairs(text, u):
            cand = text[:a] + t + text[b:]
            if ok(cand):
                found.append(Choice(cand, "mechanical", 0.0))
                if len(found) >= 3:
                    break
        res = self._model_repair(text, u, path, ok, cancel, on_step)
        prefix, suffix = text[:u.start], text[u.end:]
        code = any(c.isalnum() for c in text[u.start:u.end])  # a statement, not a stray ")"
        found += [Choice(prefix + m + suffix, "model", 0.0) for m in res.candidates
                  if m.strip() or not code]  # deleting the statement repairs nothing
        if not found and u.anchor is not None and not text[u.anchor:u.end].strip() \
                and u.allows(u.end, u.end):
            res = self._completed(text, u, path, ok, cancel, on_step)
            found += [Choice(text[:u.end] + m + suffix, "model", 0.0) for m in res.candidates]
        if not found:
            return None, res.trace
        size = {c.text: sum(len(ed.new_text) + ed.end - ed.start
                            for ed in minimal_edits(text, c.text)) for c in found}
        return min(found, key=lambda c: (size[c.text], c.source != "mechanical")), res.trace

    def _completed(self, text: str, u: Unit, path: str | None, ok: Callable[[str], bool],
                   cancel: Cancel, on_step: OnStep) -> SpanResult:
        """The rest of a statement cut short (``return x +``), as inline completion writes it.

        Python blames its end, and neither a punctuation mark nor the unit re-denoised at its
        own length mends it: what is missing is text after it (an operand, an argument).
        """
        hole = Span(u.end, u.end, "hole", "the rest of a statement cut short")
        res = self._denoiser.denoise(text, u.end, u.end, path, cancel=cancel, on_step=on_step,
                                sampler=self._sampler_for(hole, text, u.end, u.end, path))
        keep = [m for m in res.candidates if ok(text[:u.end] + m + text[u.end:])]
        return replace(res, text=keep[0] if keep else None, candidates=keep)

    def _model_repair(self, text: str, u: Unit, path: str | None, ok: Callable[[str], bool],
                      cancel: Cancel, on_step: OnStep) -> SpanResult:
        """Re-mask the unit's tokens inside syntax errors (off the frozen bytes) and denoise.

        A candidate keeps the statement's keyword (:func:`.repair.statement_keyword`).
        """
        prefix, body, suffix = text[:u.start], text[u.start:u.end], text[u.end:]
        doc = parse(text, path)
        reopen = [(max(e.start, u.start) - u.start, min(e.end, u.end) - u.start)
                  for e in doc.errors() if e.start <= u.end and e.end >= u.start]
        if u.frozen:
            fa, fb = u.frozen[0] - u.start, u.frozen[1] - u.start
            reopen = [r for r in reopen if r[1] <= fa or r[0] >= fb]
        reopen = [r for r in reopen if r[0] <= r[1]] or [(len(body), len(body))]
        tokens = self.engine.tokenizer.encode(body)
        fill = self.engine.refill(prefix, suffix, tokens, reopen,
                                  candidates=self.config.candidates, cancel=cancel,
                                  on_step=on_step)

        kind = statement_keyword(body)

        def bad(middle: str) -> list[tuple[int, int]] | None:
            cand = prefix + middle + suffix
            allowed = statement_keyword(middle) == kind and \
                all(u.allows(ed.start, ed.end) for ed in minimal_edits(text, cand))
            return None if allowed and ok(cand) else [(0, len(middle))]

        return self._denoiser.validate(prefix, suffix, fill, bad, cancel, on_step, None,
                                       self.config.rounds)
