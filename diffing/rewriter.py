"""The Rewriter: the single library API behind the CLI, the language server, the TUI and the hook.

It turns a text (and, for follow-ups, the text before the user's edit) into proposals: it picks
spans (model-free, :mod:`.spans`), has only those denoised (:mod:`.denoise`: each result is
checked with tree-sitter, the positions inside any new syntax error re-masked for a bounded
number of rounds), and never returns a proposal that adds a syntax error.

Where proposals come from: every span is denoised by the model. Some spans also carry
*mechanical* candidates that the user's edit determines (:attr:`Span.mechanical`: the new
name at a renamed reference, a call's arguments updated for a changed signature) and repairs
carry the closers/colon a parser would add. Mechanical candidates that validate rank first;
the model's candidates follow by the score the engine gave them, and the model's best
whole-file result is offered as the proposal's alternative. ``trace["sources"]`` says, per
span, which kind of candidate won, and ``trace["model_agrees"]`` how often the model's own top
candidate was the same text.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import replace

from remask.infill.engine import Engine
from remask.infill.sampler import Cancelled, SamplerConfig

from .canvas import sampler_for
from .checks import faults, merge_traces, python_ok, same_statement, title
from .config import RewriterConfig
from .denoise import Cancel, OnStep, SpanDenoiser, SpanResult
from .edits import map_back, minimal_edits
from .elsewhere import project_spans
from .holes import cursor_hole, marker_spans
from .proposal import Choice, Proposal, Span, span_ranges
from .repair import suspect_units, units_from_errors
from .repairer import Repairer
from .spans import affected_spans, repair_units
from .syntax import Document, error_signature, new_errors, parse, placeholders
from .verify import Checkout, by_rank_sum

__all__ = ["Rewriter", "RewriterConfig", "SpanResult"]


class Rewriter:
    def __init__(self, engine: Engine, config: RewriterConfig | None = None) -> None:
        self.engine = engine
        self.config = config or RewriterConfig()
        self._denoiser = SpanDenoiser(engine, self.config)
        self._repairer = Repairer(engine, self.config, self._denoiser, self._sampler_for)

    # spans (no model) ---------------------------------------------------------------------
    def holes(self, text: str, path: str | None = None) -> list[Span]:
        """Every hole marker in code, in order (not in comments and strings: ``marker_spans``)."""
        return marker_spans(text, self.config.marker, path)

    def spans(self, before: str, after: str, path: str | None = None,
              cursor: int | None = None) -> list[Span]:
        """Return the spans the edit from ``before`` to ``after`` affects (no model runs)."""
        return affected_spans(before, after, path, cursor, kinds=self.config.kinds,
                              marker=self.config.marker, cap=self.config.span_cap)

    def spans_elsewhere(self, before: str, after: str, path: str, others: Mapping[str, str],
                        root: str | None = None) -> dict[str, list[Span]]:
        """The spans other modules (path → text) need for the edit of ``path`` (no model)."""
        found = project_spans(before, after, path, others, root, self.config.span_cap)
        return {p: kept for p, spans in found.items()
                if (kept := [s for s in spans if s.kind in self.config.kinds])}

    # proposals ----------------------------------------------------------------------------
    def propose(self, before: str, after: str, path: str | None = None,
                cursor: int | None = None, *, cancel: Cancel = None,
                on_step: OnStep = None) -> list[Proposal]:
        """One proposal per kind of follow-up the edit calls for, each over ``after``."""
        spans = self.spans(before, after, path, cursor)
        out: list[Proposal | None] = []
        if any(s.kind == "repair" for s in spans):
            units = repair_units(before, after, path, self.config.span_cap, self.config.marker)
            out.append(self._repairer.units(after, units, path, error_signature(
                parse(before, path)), cancel, on_step, strict=python_ok(before, path, None)))
        for kind in ("rename", "signature", "dangling", "hole"):
            group = [s for s in spans if s.kind == kind]
            if group:
                out.append(self._propose_spans(after, group, kind, path, cancel, on_step))
        checked = [self._verified(p, after, path) for p in out]
        return [p for p in checked if p is not None]

    def propose_elsewhere(self, text: str, spans: list[Span], path: str | None = None, *,
                          cancel: Cancel = None, on_step: OnStep = None) -> list[Proposal]:
        """Proposals over another module's ``text`` for its spans (:meth:`spans_elsewhere`)."""
        out = [self._propose_spans(text, group, kind, path, cancel, on_step)
               for kind in ("rename", "signature")
               if (group := [s for s in spans if s.kind == kind])]
        checked = [self._verified(p, text, path) for p in out]
        return [p for p in checked if p is not None]

    def repair(self, text: str, path: str | None = None, *, cancel: Cancel = None,
               on_step: OnStep = None) -> Proposal | None:
        """Repair the statements Python's parser blames, one at a time (at most five).

        None unless Python then compiles the whole file and tree-sitter finds no error the
        text did not have: a round that mends one statement while another stays broken may
        have mended the wrong one (a ``)`` closed where the break was a bracket left open
        lines above), and a file that still fails to import is no repair to offer.
        """
        current, spans, traces, sources = text, [], [], []
        for _ in range(5):
            probe = placeholders(current, self.config.marker)
            units = units_from_errors(probe, self.config.span_cap)
            if not units:
                break
            p = None
            for unit in [*suspect_units(probe, self.config.span_cap), *units]:
                p = self._repairer.units(current, [unit], path, None, cancel, on_step,
                                         strict=False)
                if p is not None:
                    break
            if p is None:
                break
            back = minimal_edits(text, current)
            spans += [replace(s, start=map_back(back, s.start), end=map_back(back, s.end, True))
                      for s in p.spans]
            current = p.text
            traces.append(p.trace)
            sources += p.trace.get("sources", [])
        whole = placeholders(current, self.config.marker)  # a ``???`` is a hole, not an error
        if current == text or not python_ok(whole, path, None) or new_errors(
                parse(placeholders(text, self.config.marker), path), parse(whole, path)):
            return None
        prop = Proposal("repair", title("repair", len(spans)), spans, current,
                        minimal_edits(text, current, span_ranges(spans)),
                        trace={**merge_traces(traces), "sources": sources})
        return self._verified(prop, text, path)

    def fill_at(self, text: str, cursor: int, path: str | None = None, *, cancel: Cancel = None,
                on_step: OnStep = None, quick: bool = False) -> Proposal | None:
        """Fill the hole under the cursor; the text is always the model's.

        The hole is a marker at/near the cursor, else the empty / ``pass`` / ``...`` body it
        sits in, else the rest of its line. ``quick`` (a fill asked at a pause in typing)
        draws no extra rows: the argmax rows alone answer sooner.
        """
        if not 0 <= cursor <= len(text):
            raise ValueError(f"cursor {cursor} outside a text of {len(text)} characters")
        span = cursor_hole(text, cursor, self.config.marker, path=path)
        p = self._propose_spans(text, [span], "hole", path, cancel, on_step, quick=quick)
        return self._verified(p, text, path)

    def prepare_at(self, text: str, cursor: int, path: str | None = None) -> None:
        """Have the engine compute ahead what ``fill_at(text, cursor)`` will start from."""
        if not 0 <= cursor <= len(text):
            raise ValueError(f"cursor {cursor} outside a text of {len(text)} characters")
        span = cursor_hole(text, cursor, self.config.marker)
        self.engine.prepare(text[:span.start], text[span.end:],
                            self._sampler_for(span, text, span.start, span.end, path))

    def fill_holes(self, text: str, path: str | None = None, cancel: Cancel = None,
                   on_step: OnStep = None) -> tuple[Proposal | None, list[SpanResult]]:
        """Fill every marker left to right; each fill sees the ones before it.

        Returns the proposal (None when no hole was filled) and one result per hole.
        """
        spans = self.holes(text, path)
        current, results, shift = text, [], 0
        for span in spans:
            start, end = span.start + shift, span.end + shift
            res = self.denoise_span(current, start, end, path, cancel=cancel, on_step=on_step,
                                    sampler=self._sampler_for(span, current, start, end,
                                                              path))
            if span.mechanical:
                res = self._mechanical_first(current, start, end, span, res, path)
            results.append(res)
            if res.text is not None:
                current = current[:start] + res.text + current[end:]
                shift += len(res.text) - (end - start)
        trace = merge_traces([r.trace for r in results])
        if self.config.verify and path is not None and current != text:
            current, results, trace = self._verified_holes(text, spans, results, path, trace)
        if current == text:
            return None, results
        n = sum(r.text is not None for r in results)
        return Proposal("hole", title("hole", n), spans, current,
                        minimal_edits(text, current, span_ranges(spans)), trace=trace), results

    def _verified_holes(self, text: str, spans: list[Span], results: list[SpanResult],
                        path: str, trace: dict) -> tuple[str, list[SpanResult], dict]:
        """The holes' picks that pass ``config.verify``, the likeliest combinations first.

        Combinations go by the sum of their picks' ranks (the top picks, then each hole's
        second with the others at their top, then each hole's third and each pair's seconds,
        …), ``config.verify_tries`` runs of the command at most: two holes that each need
        their second candidate are found too. With one hole that is the first ranked
        candidate that passes. None passing: every hole refused.
        """
        options = [list(dict.fromkeys([r.text, *r.candidates])) for r in results]

        def build(choice: list[str | None]) -> str:
            out, pos = [], 0
            for span, pick in zip(spans, choice, strict=True):
                out += [text[pos:span.start], text[span.start:span.end] if pick is None else pick]
                pos = span.end
            return "".join(out) + text[pos:]

        limit = min(self.config.verify_tries, math.prod(map(len, options)))
        tries = itertools.islice(by_rank_sum([len(o) for o in options]), limit)
        with Checkout(self.config.verify, path) as checkout:
            for n, ranks in enumerate(tries, 1):
                choice = [o[k] for o, k in zip(options, ranks, strict=True)]
                candidate = build(choice)
                if checkout.passes(candidate):
                    out = [replace(r, text=c) for r, c in zip(results, choice, strict=True)]
                    return candidate, out, {**trace, "verify_runs": n,
                                            "verified": "top" if n == 1 else "alternative"}
        refused = [replace(r, text=None, reason=f"no candidate passed '{self.config.verify}'")
                   for r in results]
        return text, refused, {**trace, "verified": "none", "verify_runs": limit}

    def _mechanical_first(self, text: str, s: int, e: int, span: Span, res: SpanResult,
                          path: str | None) -> SpanResult:
        """``res`` with the hole's mechanical candidates that keep the syntax first.

        As :meth:`_choices` ranks them: what the file determines (the modules an ``import
        ???`` wants) goes before the model's guesses.
        """
        mech = self._valid_mechanical(text, s, e, span,
                                      parse(placeholders(text, self.config.marker), path), path)
        if not mech:
            return res
        return replace(res, text=mech[0], reason="ok",
                       candidates=[*mech, *(c for c in res.candidates if c not in mech)])

    def denoise_span(self, text: str, start: int, end: int, path: str | None = None, *,
                     before: Document | None = None, sampler: SamplerConfig | None = None,
                     rounds: int | None = None, cancel: Cancel = None,
                     on_step: OnStep = None) -> SpanResult:
        """Denoise text[start:end] in place (:meth:`.denoise.SpanDenoiser.denoise`)."""
        return self._denoiser.denoise(text, start, end, path, before=before, sampler=sampler,
                                      rounds=rounds, cancel=cancel, on_step=on_step)

    # groups of spans ----------------------------------------------------------------------
    def _propose_spans(self, text: str, spans: list[Span], kind: str, path: str | None,
                       cancel: Cancel, on_step: OnStep, quick: bool = False
                       ) -> Proposal | None:
        """Denoise each span left to right (each sees the choices before it) into one proposal.

        The proposal's text uses the top-ranked candidate per span; ``alternatives`` holds the
        file built from the model's own top candidates when that differs and validates.
        """
        probe = placeholders(text, self.config.marker)
        baseline = parse(probe, path)
        current, model_text, shift, mshift = text, text, 0, 0
        sources, agree, traces, done = [], 0, [], []
        for span in sorted(spans, key=lambda s: s.start):
            s, e = span.start + shift, span.end + shift
            choices, model, trace = self._choices(current, s, e, span, baseline, path, cancel,
                                                  on_step, quick)
            if trace:  # none: no model call (a span past the cap)
                traces.append(trace)
            if not choices or not (choices[0].text + current[s:e]).strip():
                sources.append(None)  # nothing, or blanks where there were blanks: no edit
                continue
            best = choices[0]
            agree += model is not None and model.text == best.text
            current = current[:s] + best.text + current[e:]
            shift += len(best.text) - (e - s)
            sources.append(best.source)
            done.append(span)
            if model is not None:
                ms, me = span.start + mshift, span.end + mshift
                model_text = model_text[:ms] + model.text + model_text[me:]
                mshift += len(model.text) - (me - ms)
        strict = python_ok(probe, path, None)
        if current == text or not self._keeps_syntax(baseline, current, path, strict):
            return None
        # the model's own file, where it wrote every span (past the caps it was not asked)
        alts = [model_text] if model_text not in (text, current) and \
            all(s.model for s in done) and \
            self._keeps_syntax(baseline, model_text, path, strict) else []
        model_only = "same" if model_text == current else "alternative" if alts else "none"
        trace = {**merge_traces(traces), "sources": sources, "model_agrees": agree,
                 "model_text": model_only}
        return Proposal(kind, title(kind, len(done)), done, current,
                        minimal_edits(text, current, span_ranges(done)), alts, trace)

    def _sampler_for(self, span: Span, text: str, s: int, e: int, path: str | None,
                     quick: bool = False) -> SamplerConfig:
        return sampler_for(span, text, s, e, self.config.sampler, self.config.marker,
                           self.engine.tokenizer, self.config.line_threshold, path,
                           samples=0 if quick else self.config.hole_samples)

    def _valid_mechanical(self, text: str, s: int, e: int, span: Span, baseline: Document,
                          path: str | None) -> list[str]:
        """The span's mechanical candidates that keep the syntax (``_keeps_syntax``), in order."""
        strict = python_ok(placeholders(text, self.config.marker), path, None)
        return [m for m in dict.fromkeys(span.mechanical)
                if self._keeps_syntax(baseline, text[:s] + m + text[e:], path, strict)]

    def _keeps_syntax(self, baseline: Document, text: str, path: str | None,
                      strict: bool) -> bool:
        """No new tree-sitter error and, when the input satisfied Python's parser, still so.

        Hole markers left unfilled read as names (``baseline`` is parsed so too).
        """
        text = placeholders(text, self.config.marker)
        return not new_errors(baseline, parse(text, path)) and \
            (not strict or python_ok(text, path, None))

    def _choices(self, text: str, s: int, e: int, span: Span, baseline: Document,
                 path: str | None, cancel: Cancel, on_step: OnStep, quick: bool = False
                 ) -> tuple[list[Choice], Choice | None, dict]:
        """Return validated candidates for one span, ranked, and the model's own top candidate.

        Mechanical candidates that validate come first (the edit determines them); the
        model's candidates follow by score.
        """
        if not span.model:  # past the edit's cap: what the edit determines, no model pass
            # and no parse a span (hundreds of references): the proposal is checked whole
            return [Choice(span.mechanical[0], "mechanical", 0.0)], None, {}
        mech = self._valid_mechanical(text, s, e, span, baseline, path)
        # A valid mechanical candidate already answers the span: the model's candidates are
        # ranked with it but get no re-mask rounds, which cost seconds on junk candidates.
        cfg = self._sampler_for(span, text, s, e, path, quick)
        res = self.denoise_span(text, s, e, path, before=baseline, sampler=cfg,
                                rounds=0 if mech else None, cancel=cancel, on_step=on_step)
        if cancel is not None and cancel():
            raise Cancelled  # scoring is another forward pass: not for a stale request
        pool = list(dict.fromkeys(mech + res.candidates))
        # the fill ranked its own candidates; only the others (mechanical ones, re-masked
        # results) need the scoring passes, and a lone candidate needs none
        scores = dict(res.scores) if len(pool) > 1 else {m: 0.0 for m in pool}
        unscored = [m for m in pool if m not in scores]
        if unscored:
            scores |= zip(unscored, self.engine.score(text[:s], text[e:], unscored, cfg),
                          strict=True)
        # ``denoise_span`` kept only candidates that keep Python's parse where the text had
        # it; where it had not, those that make it parse rank first, then those with fewer
        # faults (unbound reads, dead statements), here as there (cached from there)
        def rank(c: Choice) -> tuple[bool, int, float]:
            program = text[:s] + c.text + text[e:]
            return not python_ok(program, path, None), faults(program, path, s), -c.score
        model = sorted((Choice(m, "model", scores[m]) for m in res.candidates), key=rank)
        if span.kind == "dangling":  # a fill that leaves as many faults fixed nothing, and
            found = faults(text, path, s)  # one that makes the statement another does more
            model = [c for c in model if rank(c)[1] < found
                     and same_statement(text, text[:s] + c.text + text[e:], s)]
        ranked = [Choice(m, "mechanical", scores[m]) for m in mech]
        ranked += [c for c in model if c.text not in mech]
        return ranked, (model[0] if model else None), res.trace

    def _verified(self, p: Proposal | None, base: str, path: str | None) -> Proposal | None:
        """With ``config.verify``, the first candidate whose command passes, else None."""
        if p is None or not self.config.verify or path is None:
            return p
        with Checkout(self.config.verify, path) as checkout:
            for text in [p.text, *p.alternatives]:
                if checkout.passes(text):
                    return replace(p, text=text, edits=minimal_edits(base, text),
                                   alternatives=[], trace={**p.trace, "verified": text == p.text
                                                           and "top" or "alternative"})
        return None

