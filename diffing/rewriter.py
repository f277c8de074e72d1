"""The Rewriter: the single library API behind the CLI, the language server, the TUI and the hook.

It turns a text (and, for follow-ups, the text before the user's edit) into proposals: it picks
spans, has the engine denoise only those, checks each result with tree-sitter, re-masks the
positions inside any new syntax error for a bounded number of rounds, and never returns a
proposal that adds a syntax error.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from remask.infill.engine import Engine, Fill
from remask.infill.sampler import SamplerConfig, StepTrace

from .edits import minimal_edits
from .proposal import Proposal, Span
from .syntax import Document, new_errors, parse


@dataclass(frozen=True)
class RewriterConfig:
    marker: str = "???"
    candidates: int = 1  # canvases denoised as one batch per span
    rounds: int = 2  # re-mask-and-denoise rounds for positions inside new errors
    sampler: SamplerConfig = field(default_factory=SamplerConfig)


@dataclass
class SpanResult:
    """The accepted text for one span, or None with the reason it was refused."""

    text: str | None
    reason: str
    trace: dict


class Rewriter:
    def __init__(self, engine: Engine, config: RewriterConfig | None = None) -> None:
        self.engine = engine
        self.config = config or RewriterConfig()

    def holes(self, text: str) -> list[Span]:
        """Every occurrence of the hole marker, in order."""
        m, out, i = self.config.marker, [], text.find(self.config.marker)
        while i != -1 and m:
            out.append(Span(i, i + len(m), "hole", f"'{m}' marker"))
            i = text.find(m, i + len(m))
        return out

    def fill_holes(self, text: str, path: str | None = None,
                   cancel: Callable[[], bool] | None = None,
                   on_step: Callable[[int, StepTrace], None] | None = None,
                   ) -> tuple[Proposal | None, list[SpanResult]]:
        """Fill every marker left to right; each fill sees the ones before it.

        Returns the proposal (None when no hole was filled) and one result per hole.
        """
        spans = self.holes(text)
        current, results, shift = text, [], 0
        for span in spans:
            start, end = span.start + shift, span.end + shift
            res = self.denoise_span(current, start, end, path, cancel=cancel, on_step=on_step)
            results.append(res)
            if res.text is not None:
                current = current[:start] + res.text + current[end:]
                shift += len(res.text) - (end - start)
        if current == text:
            return None, results
        n = sum(r.text is not None for r in results)
        title = "Fill hole" if n == 1 else f"Fill {n} holes"
        return Proposal("hole", title, spans, current, minimal_edits(text, current),
                        trace=_merge_traces([r.trace for r in results])), results

    def denoise_span(self, text: str, start: int, end: int, path: str | None = None, *,
                     before: Document | None = None,
                     cancel: Callable[[], bool] | None = None,
                     on_step: Callable[[int, StepTrace], None] | None = None) -> SpanResult:
        """Denoise text[start:end] in place; accept the first candidate with no new error.

        Candidates with new errors get the tokens inside those errors re-masked and denoised
        again, for ``config.rounds`` rounds; a candidate that still breaks the file is dropped.
        """
        prefix, suffix = text[:start], text[end:]
        baseline = before if before is not None else parse(text, path)
        fill = self.engine.fill(prefix, suffix, candidates=self.config.candidates,
                                sampler=self.config.sampler, cancel=cancel, on_step=on_step)
        traces = [fill.trace.as_dict()]
        for k, cand in enumerate(fill.texts):
            tokens, middle = fill.tokens[k], cand
            for _ in range(self.config.rounds + 1):
                bad = self._new_error_ranges(baseline, prefix, middle, suffix, path)
                if bad is None:
                    return SpanResult(middle, "ok", _merge_traces(traces))
                refill: Fill = self.engine.refill(prefix, suffix, tokens, bad, cancel=cancel,
                                                  on_step=on_step)
                traces.append(refill.trace.as_dict())
                tokens, middle = refill.tokens[0], refill.text
        return SpanResult(None, "every candidate added a syntax error", _merge_traces(traces))

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


def _merge_traces(traces: list[dict]) -> dict:
    out = {"forward_passes": 0, "tokens_processed": 0, "tokens_committed": 0, "seconds": 0.0,
           "steps": 0}
    for t in traces:
        for k in out:
            out[k] += t.get(k, 0)
    out["seconds"] = round(out["seconds"], 4)
    out["calls"] = len(traces)
    return out
