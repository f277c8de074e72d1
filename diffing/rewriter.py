"""The Rewriter: the single library API behind the CLI, the language server, the TUI and the hook.

It turns a text (and, for follow-ups, the text before the user's edit) into proposals: it picks
spans (model-free, :mod:`.spans`), has the engine denoise only those, checks each result with
tree-sitter, re-masks the positions inside any new syntax error for a bounded number of rounds,
and never returns a proposal that adds a syntax error.

Where proposals come from: every span is denoised by the model. Some spans also carry
*mechanical* candidates that the user's edit determines (:attr:`Span.mechanical`: the new
name at a renamed reference, a call's arguments updated for a changed signature) and repairs
carry the closers/colon a parser would add. Mechanical candidates that validate rank first;
the model's candidates follow by the model's score (:mod:`.score`), and the model's best
whole-file result is offered as the proposal's alternative. ``trace["sources"]`` says, per
span, which kind of candidate won, and ``trace["model_agrees"]`` how often the model's own top
candidate was the same text.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from remask.infill.engine import Engine, Fill
from remask.infill.sampler import Cancelled, SamplerConfig, StepTrace, Trace

from .canvas import HOLE_SAMPLES, LINE_ROUND_STEPS, sampler_for
from .checks import fresh, merge_traces, python_ok, title, unbound_names
from .edits import map_back, minimal_edits
from .indent import COPIED, indent_levels, reindented, starts_blank_line
from .proposal import Proposal, Span
from .repair import Unit, line_ending, mechanical_repairs, units_from_errors
from .spans import KINDS, affected_spans, cursor_hole, repair_units
from .syntax import Document, error_signature, new_errors, parse
from .verify import passes

Cancel = Callable[[], bool] | None
OnStep = Callable[[int, StepTrace], None] | None


@dataclass(frozen=True)
class RewriterConfig:
    marker: str = "???"
    candidates: int = 1  # canvases denoised as one batch per span
    rounds: int = 2  # re-mask-and-denoise rounds for positions inside new errors
    # Commit confidence for one-line holes (None: the sampler's). One-line fills run on a
    # budget of a few steps (canvas.LINE_STEPS), so a higher threshold costs no more time;
    # measured on the 2,254M-token bundle, 1,033 half-typed HumanEval lines filled as inline
    # completion fills them: pass@1 9.1% / 10.3% / 9.7% at 0.1 / 0.5 / 0.9, the same CPU-s.
    line_threshold: float | None = 0.5
    # Re-mask rounds for one-line holes (None: ``rounds``): inline completions, asked at
    # every pause in typing. Measured on 400 HumanEval lines half typed, the rest filled as
    # inline completion does (6 steps, broken candidates closed mechanically, rounds
    # batched): 0 / 1 / 2 rounds pass 6.5% / 7.75% / 7.75%, fill p95 253 / 303 / 379 ms.
    line_rounds: int | None = 1
    # Rows drawn beside the argmax rows for a hole (canvas.py says why); a quick ``fill_at``
    # (an inline completion nobody asked for) draws none.
    hole_samples: int = HOLE_SAMPLES
    sampler: SamplerConfig = field(default_factory=SamplerConfig)
    kinds: frozenset[str] = frozenset(KINDS)
    span_cap: int = 600  # max characters re-denoised for one edit
    verify: str | None = None  # shell command on a temp copy; first passing candidate wins


@dataclass
class SpanResult:
    """The accepted text for one span, or None with the reason it was refused."""

    text: str | None
    reason: str
    trace: dict
    candidates: list[str] = field(default_factory=list)  # every validated model candidate
    scores: dict[str, float] = field(default_factory=dict)  # those the fill already ranked


@dataclass(frozen=True)
class _Choice:
    text: str
    source: str  # "mechanical" | "model"
    score: float


class Rewriter:
    def __init__(self, engine: Engine, config: RewriterConfig | None = None) -> None:
        self.engine = engine
        self.config = config or RewriterConfig()

    # spans (no model) ---------------------------------------------------------------------
    def holes(self, text: str) -> list[Span]:
        """Every occurrence of the hole marker, in order."""
        m, out, i = self.config.marker, [], text.find(self.config.marker)
        while i != -1 and m:
            out.append(Span(i, i + len(m), "hole", f"'{m}' marker"))
            i = text.find(m, i + len(m))
        return out

    def spans(self, before: str, after: str, path: str | None = None,
              cursor: int | None = None) -> list[Span]:
        """Return the spans the edit from ``before`` to ``after`` affects (no model runs)."""
        return affected_spans(before, after, path, cursor, kinds=self.config.kinds,
                              marker=self.config.marker, cap=self.config.span_cap)

    # proposals ----------------------------------------------------------------------------
    def propose(self, before: str, after: str, path: str | None = None,
                cursor: int | None = None, *, cancel: Cancel = None,
                on_step: OnStep = None) -> list[Proposal]:
        """One proposal per kind of follow-up the edit calls for, each over ``after``."""
        spans = self.spans(before, after, path, cursor)
        out: list[Proposal | None] = []
        if any(s.kind == "repair" for s in spans):
            units = repair_units(before, after, path, self.config.span_cap, self.config.marker)
            out.append(self._repair_units(after, units, path, error_signature(
                parse(before, path)), cancel, on_step, strict=python_ok(before, path, None)))
        for kind in ("rename", "signature", "dangling", "hole"):
            group = [s for s in spans if s.kind == kind]
            if group:
                out.append(self._propose_spans(after, group, kind, path, cancel, on_step))
        checked = [self._verified(p, after, path) for p in out]
        return [p for p in checked if p is not None]

    def repair(self, text: str, path: str | None = None, *, cancel: Cancel = None,
               on_step: OnStep = None) -> Proposal | None:
        """Repair the statements Python's parser blames, one at a time (at most five)."""
        current, spans, traces, sources = text, [], [], []
        for _ in range(5):
            probe = current.replace(self.config.marker, "_" * len(self.config.marker)) \
                if self.config.marker else current
            units = units_from_errors(probe, self.config.span_cap)
            if not units:
                break
            p = self._repair_units(current, units, path, None, cancel, on_step, strict=False)
            if p is None:
                break
            back = minimal_edits(text, current)
            spans += [replace(s, start=map_back(back, s.start), end=map_back(back, s.end, True))
                      for s in p.spans]
            current = p.text
            traces.append(p.trace)
            sources += p.trace.get("sources", [])
        if current == text:
            return None
        prop = Proposal("repair", title("repair", len(spans)), spans, current,
                        minimal_edits(text, current, _ranges(spans)),
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
        span = cursor_hole(text, cursor, self.config.marker)
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
        spans = self.holes(text)
        current, results, shift = text, [], 0
        for span in spans:
            start, end = span.start + shift, span.end + shift
            res = self.denoise_span(current, start, end, path, cancel=cancel, on_step=on_step,
                                    sampler=self._sampler_for(span, current, start, end,
                                                              path))
            results.append(res)
            if res.text is not None:
                current = current[:start] + res.text + current[end:]
                shift += len(res.text) - (end - start)
        if current == text:
            return None, results
        n = sum(r.text is not None for r in results)
        return Proposal("hole", title("hole", n), spans, current,
                        minimal_edits(text, current, _ranges(spans)),
                        trace=merge_traces([r.trace for r in results])), results

    # denoising ----------------------------------------------------------------------------
    def denoise_span(self, text: str, start: int, end: int, path: str | None = None, *,
                     before: Document | None = None, sampler: SamplerConfig | None = None,
                     rounds: int | None = None, cancel: Cancel = None,
                     on_step: OnStep = None) -> SpanResult:
        """Denoise text[start:end] in place; accept the first candidate with no new error.

        Candidates with new errors get the tokens inside those errors re-masked and denoised
        again, for ``rounds`` (default ``config.rounds``) rounds; a candidate that still breaks
        the file is dropped. Where Python's parser accepts the text (hole markers read as
        names), a candidate must keep it so: tree-sitter shrugs at a wrongly indented line,
        and 60 of 1,033 single-line HumanEval fills that tree-sitter passed made the file
        unparsable after the span. Where it does not, candidates that make the text parse
        rank first; then those that leave fewer names unbound. A one-line span (an inline
        completion) gets ``config.line_rounds`` rounds of at most ``LINE_ROUND_STEPS`` steps,
        and one that ends its line may first be closed mechanically.
        """
        prefix, suffix = text[:start], text[end:]
        baseline = before if before is not None else parse(text, path)
        marker = self.config.marker

        def probe(t: str) -> str:  # every hole marker a name, so Python can judge the rest
            return t.replace(marker, "_" * len(marker)) if marker else t

        strict = python_ok(probe(text), path, None)
        cfg = sampler or self.config.sampler

        def bad(middle: str) -> list[tuple[int, int]] | None:
            if cfg.min_length and not middle.strip():
                return [(0, len(middle))]  # blanks are no fill of a hole that wants text
            ranges = self._new_error_ranges(baseline, prefix, middle, suffix, path)
            if ranges is None and strict and not python_ok(probe(prefix + middle + suffix),
                                                           path, None):
                return [(0, len(middle))]
            return ranges

        round_cfg = cfg
        if cfg.single_line:  # a one-line re-mask round repairs a few tokens: a smaller budget
            round_cfg = replace(cfg, max_steps=min(cfg.max_steps, LINE_ROUND_STEPS))
            if rounds is None and self.config.line_rounds is not None:
                rounds = self.config.line_rounds
        ending = None
        if cfg.single_line and not suffix.split("\n", 1)[0].strip():
            head = prefix[prefix.rfind("\n") + 1:]  # the span ends its line: it may close it

            def ending(middle: str) -> str:
                return line_ending(head + middle)
        fill = self.engine.fill(prefix, suffix, candidates=self.config.candidates, sampler=cfg,
                                cancel=cancel, on_step=on_step)
        res = self._validate(prefix, suffix, fill, bad, cancel, on_step, round_cfg,
                             self.config.rounds if rounds is None else rounds, ending)
        if strict and starts_blank_line(prefix, suffix):
            res = self._reindented(prefix, suffix, res, bad, cfg)
        if len(res.candidates) < 2:
            return res

        def rank(middle: str) -> tuple[bool, int]:
            # Where Python could not parse the text as it was (a hole where a block's header
            # belongs), candidates that make it parse go first, the others stay offered
            # behind them; then those that leave fewer names unbound (``unbound_names``)
            program = probe(prefix + middle + suffix)
            return not strict and not python_ok(program, path, None), \
                unbound_names(program, path)
        ranked = sorted(res.candidates, key=rank)  # stable: the engine's order within a rank
        return replace(res, text=ranked[0], candidates=ranked)

    def _validate(self, prefix: str, suffix: str, fill: Fill,
                  bad: Callable[[str], list[tuple[int, int]] | None], cancel: Cancel,
                  on_step: OnStep, sampler: SamplerConfig | None, rounds: int,
                  ending: Callable[[str], str] | None = None) -> SpanResult:
        """Keep the valid candidates; if there are none, re-mask them until one is.

        A fill holds one candidate per starting length. A valid one already answers the span;
        otherwise each round re-masks every broken candidate at its new errors and denoises
        them as one batch (one by one, rounds cost several fills each). With ``ending`` (a
        span that ends a line), a candidate that leaves brackets, a quote or a header's colon
        open is first tried closed: that costs a parse, not a model pass. Closed texts carry
        no score (the fill scored them open). A valid candidate that ends with a line break
        the suffix already starts with loses it (`_without_blank_line`).
        """
        traces = [fill.trace.as_dict()]

        def check(text: str) -> tuple[str, list[tuple[int, int]] | None]:
            ranges = bad(text)
            end = ending(text) if ending is not None and ranges is not None else ""
            return (text + end, None) if end and bad(text + end) is None else (text, ranges)

        checked = [check(c) for c in fill.texts]
        good = [c for c, r in checked if r is None]
        # every broken candidate, best first, re-masked at its errors; a round is one batch
        work = [(tokens, r) for tokens, (_, r) in zip(fill.tokens, checked, strict=True)]
        for _ in range(rounds if not good else 0):
            refill = self.engine.refill_each(prefix, suffix, work, sampler=sampler,
                                             cancel=cancel, on_step=on_step)
            traces.append(refill.trace.as_dict())
            checked = [check(c) for c in refill.texts]
            good = [c for c, r in checked if r is None]
            if good:
                break
            work = [(tokens, r) for tokens, (_, r) in zip(refill.tokens, checked, strict=True)]
        if not good:
            return SpanResult(None, "every candidate added a syntax error", merge_traces(traces))
        known = dict(zip(fill.texts, fill.scores, strict=False))  # no scores: unranked
        tidy = {c: _without_blank_line(c, suffix, bad) for c in good}
        good = list(dict.fromkeys(tidy[c] for c in good))
        return SpanResult(good[0], "ok", merge_traces(traces), good,
                          {tidy[c]: known[c] for c in reversed(tidy) if c in known})

    def _reindented(self, prefix: str, suffix: str, res: SpanResult,
                    bad: Callable[[str], list[tuple[int, int]] | None], cfg: SamplerConfig
                    ) -> SpanResult:
        """``res`` with its best one-line candidates also at the other indentations allowed.

        Only for a hole that is a whole line (:mod:`.indent` says why). A copy that keeps
        the text parsing is scored as the fill scored its original, agreement bonus and all:
        the original's score plus how much more (or less) the model believes the copy; an
        original the fill did not score (a lone one, a closed one) is scored with it. That
        scoring costs passes over the candidates; the trace counts them.
        """
        levels = indent_levels(prefix, suffix)
        copies: dict[str, str] = {}  # copy -> the candidate it re-indents
        for c in res.candidates[:COPIED]:
            for v in reindented(c, levels):
                if v not in copies and v not in res.candidates and bad(v) is None:
                    copies[v] = c
        if not copies:
            return res
        texts = list(dict.fromkeys([*copies.values(), *copies]))
        trace = Trace()
        raw = dict(zip(texts, self.engine.score(prefix, suffix, texts, cfg, trace), strict=True))
        scores = {c: raw[c] for c in copies.values()} | res.scores
        scores |= {v: scores[c] + raw[v] - raw[c] for v, c in copies.items()}
        keyed, last = [], math.inf  # a candidate still unscored keeps its place
        for c in [*res.candidates, *copies]:
            last = scores.get(c, last)
            keyed.append((cfg.min_length > 0 and not c.strip(), -last, c))
        ranked = [c for *_, c in sorted(keyed, key=lambda k: k[:2])]
        cost = {k: res.trace[k] + v for k, v in trace.as_dict().items()
                if k in ("forward_passes", "tokens_processed")}  # passes, not a sampler call
        return replace(res, text=ranked[0], candidates=ranked, scores=scores,
                       trace=res.trace | cost)

    def _new_error_ranges(self, baseline: Document, prefix: str, middle: str, suffix: str,
                          path: str | None) -> list[tuple[int, int]] | None:
        """Ranges of ``middle`` to re-mask, or None when the result adds no syntax error."""
        doc = parse(prefix + middle + suffix, path)
        fresh = new_errors(baseline, doc)
        if not fresh:
            return None
        a, b = len(prefix), len(prefix) + len(middle)
        ranges = [(max(e.start, a) - a, min(e.end, b) - a) for e in fresh
                  if e.start <= b and e.end >= a]
        return [r for r in ranges if r[0] <= r[1]] or [(0, len(middle))]

    # groups of spans ----------------------------------------------------------------------
    def _propose_spans(self, text: str, spans: list[Span], kind: str, path: str | None,
                       cancel: Cancel, on_step: OnStep, quick: bool = False
                       ) -> Proposal | None:
        """Denoise each span left to right (each sees the choices before it) into one proposal.

        The proposal's text uses the top-ranked candidate per span; ``alternatives`` holds the
        file built from the model's own top candidates when that differs and validates.
        """
        baseline = parse(text, path)
        current, model_text, shift, mshift = text, text, 0, 0
        sources, agree, traces, done = [], 0, [], []
        for span in sorted(spans, key=lambda s: s.start):
            s, e = span.start + shift, span.end + shift
            choices, model, trace = self._choices(current, s, e, span, baseline, path, cancel,
                                                  on_step, quick)
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
        strict = python_ok(text, path, None)
        if current == text or not self._keeps_syntax(baseline, current, path, strict):
            return None
        alts = [model_text] if model_text not in (text, current) and \
            self._keeps_syntax(baseline, model_text, path, strict) else []
        model_only = "same" if model_text == current else "alternative" if alts else "none"
        trace = {**merge_traces(traces), "sources": sources, "model_agrees": agree,
                 "model_text": model_only}
        return Proposal(kind, title(kind, len(done)), done, current,
                        minimal_edits(text, current, _ranges(done)), alts, trace)

    def _sampler_for(self, span: Span, text: str, s: int, e: int, path: str | None,
                     quick: bool = False) -> SamplerConfig:
        return sampler_for(span, text, s, e, self.config.sampler, self.config.marker,
                           self.engine.tokenizer, self.config.line_threshold, path,
                           samples=0 if quick else self.config.hole_samples)

    @staticmethod
    def _keeps_syntax(baseline: Document, text: str, path: str | None, strict: bool) -> bool:
        """No new tree-sitter error and, when the input satisfied Python's parser, still so."""
        return not new_errors(baseline, parse(text, path)) and \
            (not strict or python_ok(text, path, None))

    def _choices(self, text: str, s: int, e: int, span: Span, baseline: Document,
                 path: str | None, cancel: Cancel, on_step: OnStep, quick: bool = False
                 ) -> tuple[list[_Choice], _Choice | None, dict]:
        """Return validated candidates for one span, ranked, and the model's own top candidate.

        Mechanical candidates that validate come first (the edit determines them); the
        model's candidates follow by score.
        """
        strict = python_ok(text, path, None)
        mech = [m for m in dict.fromkeys(span.mechanical)
                if self._keeps_syntax(baseline, text[:s] + m + text[e:], path, strict)]
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
        # it; where it had not, those that make it parse rank first, then those that leave
        # fewer names unbound, here as there (the checks are cached from there)
        def rank(c: _Choice) -> tuple[bool, int, float]:
            program = text[:s] + c.text + text[e:]
            return not python_ok(program, path, None), unbound_names(program, path), -c.score
        model = sorted((_Choice(m, "model", scores[m]) for m in res.candidates), key=rank)
        ranked = [_Choice(m, "mechanical", scores[m]) for m in mech]
        ranked += [c for c in model if c.text not in mech]
        return ranked, (model[0] if model else None), res.trace

    def _repair_units(self, text: str, units: list[Unit], path: str | None,
                      pool: list | None, cancel: Cancel, on_step: OnStep, *, strict: bool
                      ) -> Proposal | None:
        """Repair each unit in turn; the proposal's spans are the units' (over ``text``)."""
        current, shift, sources, traces, spans = text, 0, [], [], []
        for unit in units:
            u = replace(unit, start=unit.start + shift, end=unit.end + shift,
                        frozen=unit.frozen and (unit.frozen[0] + shift, unit.frozen[1] + shift),
                        anchor=None if unit.anchor is None else unit.anchor + shift)
            choice, trace = self._repair_choice(current, u, path, pool, strict, cancel,
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
                        minimal_edits(text, current, _ranges(spans)), [],
                        {**merge_traces(traces), "sources": sources, "model_text": model_only})

    def _repair_choice(self, text: str, u: Unit, path: str | None, pool: list | None,
                       strict: bool, cancel: Cancel, on_step: OnStep
                       ) -> tuple[_Choice | None, dict]:
        """Return the smallest valid repair of unit ``u`` as a whole text; ties go to mechanical.

        With a ``pool`` (the errors the text before the edit had), valid means no tree-sitter
        error outside it and, when ``strict``, Python's parser satisfied. Without one (repairing
        a file as it is), the unit must be free of errors and Python's first complaint, if
        any, must lie past it: other broken statements are later units' business.
        """
        def ok(cand: str) -> bool:
            if pool is not None:
                return not fresh(error_signature(parse(cand, path)), pool) and \
                    (not strict or python_ok(cand, path, None))
            end = u.end + len(cand) - len(text)
            return not any(e.start < end and e.end > u.start
                           for e in parse(cand, path).errors()) and python_ok(cand, path, end)

        found: list[_Choice] = []
        for a, b, t in mechanical_repairs(text, u):
            cand = text[:a] + t + text[b:]
            if ok(cand):
                found.append(_Choice(cand, "mechanical", 0.0))
                if len(found) >= 3:
                    break
        res = self._model_repair(text, u, path, ok, cancel, on_step)
        prefix, suffix = text[:u.start], text[u.end:]
        found += [_Choice(prefix + m + suffix, "model", 0.0) for m in res.candidates]
        if not found:
            return None, res.trace
        size = {c.text: sum(len(ed.new_text) + ed.end - ed.start
                            for ed in minimal_edits(text, c.text)) for c in found}
        return min(found, key=lambda c: (size[c.text], c.source != "mechanical")), res.trace

    def _model_repair(self, text: str, u: Unit, path: str | None, ok: Callable[[str], bool],
                      cancel: Cancel, on_step: OnStep) -> SpanResult:
        """Re-mask the unit's tokens inside syntax errors (off the frozen bytes) and denoise."""
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

        def bad(middle: str) -> list[tuple[int, int]] | None:
            cand = prefix + middle + suffix
            allowed = all(u.allows(ed.start, ed.end) for ed in minimal_edits(text, cand))
            return None if allowed and ok(cand) else [(0, len(middle))]

        return self._validate(prefix, suffix, fill, bad, cancel, on_step, None,
                              self.config.rounds)

    def _verified(self, p: Proposal | None, base: str, path: str | None) -> Proposal | None:
        """With ``config.verify``, the first candidate whose command passes, else None."""
        if p is None or not self.config.verify or path is None:
            return p
        for text in [p.text, *p.alternatives]:
            if passes(self.config.verify, path, text):
                return replace(p, text=text, edits=minimal_edits(base, text), alternatives=[],
                               trace={**p.trace, "verified": text == p.text and "top" or
                                      "alternative"})
        return None


def _without_blank_line(middle: str, suffix: str,
                        bad: Callable[[str], list[tuple[int, int]] | None]) -> str:
    """``middle`` without the line break it ends with when the suffix starts a line anyway.

    A hole on a line of its own (``    ???``) is followed by the line's own break; a model
    that writes whole lines ends its middle with one more, which would leave a blank line.
    """
    if not suffix.startswith(("\n", "\r\n")):
        return middle
    trimmed = middle.rstrip(" \t\r\n")
    if trimmed == middle or "\n" not in middle[len(trimmed):] or not trimmed.strip():
        return middle
    return trimmed if bad(trimmed) is None else middle


def _ranges(spans: list[Span]) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in spans]
