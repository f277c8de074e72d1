"""How big a canvas each kind of span gets, and what the sampler may put on it.

The span's true length is never known, but the kind of span says a lot: a renamed reference
is about as long as the name, an argument list about as long as it was, the rest of a line a
few tokens on that line. Starting the canvas near the right size saves forward passes (each
resize costs one) and keeps a weak model from writing statements nobody asked for.
"""

from __future__ import annotations

from dataclasses import replace

from remask.infill.sampler import SamplerConfig
from remask.infill.tokenizer import Tokenizer

from .checks import python_ok
from .edits import LINE_BREAK
from .proposal import Span

LINE_TOKENS = 8  # a canvas for the rest of one line: HumanEval's median line is ~7 tokens
LINE_MAX = 4 * LINE_TOKENS  # ~100 characters: a single-line canvas never grows past this
# Starting lengths and a denoising step budget for one line. Measured
# on 400 HumanEval single-line tasks with the first half of each line typed and the rest filled
# as inline completion fills it (one re-mask round): lengths 3-8 at 256 steps 7.5% pass@1, at
# 6 steps 7.75% (p95 303 ms); lengths 3 and 6 at 6 steps 7.5% (p95 229 ms), at 5 steps 7.5%
# (0.087 CPU-s a fill), at 4 steps 7.25% (0.082); lengths 4 and 8 6.0%. Re-measured at commit
# threshold 0.5 on the 2,254M-token bundle, all 1,033 lines: 5 steps 10.3%, 4 steps 10.1%
# with a step less a fill. Since a budget binds at every step (a linear schedule, not only
# the last step committing what is left), on the 2,842M-token bundle: 3 / 4 / 5 steps 11.4 /
# 11.7 / 11.3% (10.8% at 4 before), 0.083 / 0.089 / 0.086 CPU-s a line. Once a line break
# ended a row (``SamplerConfig.single_line``), on 600 half-typed held-out lines (``remask
# bench inline --held-out``; exact / edit similarity / nothing proposed): 4 steps, lengths 3
# and 6 2.2% / 0.789 / 16.5%; 6 steps 2.7% / 0.784 / 17.0%; 8 steps 2.5% / 0.776 / 14.5%;
# lengths 4 and 8 2.3% / 0.782 / 17.0%; 6 and 12 at 6 steps 2.2% / 0.763 / 12.3%; 8 and 16 at
# 8 steps 2.7% / 0.758 / 10.7% at 1.3× the p50.
LINE_LENGTHS = (3, 6)
LINE_STEPS = 4
# The budget of a one-line fill asked for (drawn rows: ``HOLE_SAMPLES``), where the user
# waits for the answer: ``x = ???`` in ``remask fill``, an inline suggestion invoked. Drawn
# rows on four steps had to commit most of their tokens by force at the temperature, and wrote
# ``'_______)'``. Paired (asked-for fills, 4 / 6 / 8 / 12 steps): 600 values of held-out
# assignments and returns (``remask bench lines --kind expr``) exact 2.7 / 3.2 / 4.5 / 4.0%,
# edit similarity 0.316 / 0.314 / 0.330 / 0.347, 0.40 / 0.51 / 0.59 / 0.73 CPU-s a fill
# (beside other runs); 1,033 half-typed HumanEval lines (``remask bench inline``) at 8: pass@1
# 13.7 → 14.4% (+22 / −15), prefix match 17.4 → 17.8%.
HOLE_LINE_STEPS = 8
# A re-mask round of a one-line fill reopens a few tokens: 2 steps passed as many (7.5%) as 5
# on the same 400 lines, fill p95 168 → 146 ms.
LINE_ROUND_STEPS = 2
# One-line fills are ranked by the AR ranker alone: the denoiser's score
# (``SamplerConfig.denoiser_weight``), which helps whole-line holes, cost inline fills of
# all 1,033 half-typed lines 3 passing lines (11.8% → 11.5%, none won) and a pass.
LINE_DENOISER_WEIGHT = 0.0
# How a one-line fill's candidates are ranked (``SamplerConfig.length_norm``, see
# ``HOLE_LENGTH_NORM``). A row that may end its line offers the shortest plausible texts, and
# the plain sum picked them: half-typed HumanEval lines (``remask bench inline``, 1,033)
# passed 11.0% against 11.8% when breaks were banned, as ``retur`` got ``n`` (a bare
# ``return``) where ``n True`` belongs. Paired, α 0 / 0.25 / 0.5 / 0.75: HumanEval 11.0 /
# 11.5 / 11.7 / – % pass@1, nothing proposed 16.7 / 16.2 / 15.4 / – %; 600 held-out lines
# exact 2.2 / 2.0 / 1.8 / 1.7%, edit similarity 0.789 / 0.790 / 0.788 / 0.788, nothing
# proposed 16.5 / 16.0 / 15.3 / 14.5% (banned breaks: 0.8%, 0.767, 35.8%).
LINE_LENGTH_NORM = 0.5
# Rows drawn (at ``SamplerConfig.temperature``) beside the argmax rows for every hole, unless
# the fill must be quick (an inline completion nobody asked for). The argmax rows of a small
# model mostly
# agree: on the whole HumanEval single-line split some argmax candidate passes on 14.4% of
# tasks, with 12 drawn rows at 0.7 on 22.4%. Ranked as the Rewriter ranks (offline, every
# candidate judged): argmax rows 12.6% pass@1; + 12 rows at 0.5 / 0.7 14.0 / 14.4%; + 24
# rows 14.5 / 14.6% for twice the drawing; the rows' votes (``agreement_weight``) 14.4 → 15.1%.
# One-line holes drew none until session 28; 12 rows for them too, paired (``remask bench
# inline``, a one-line fill asked for): 1,033 half-typed HumanEval lines pass@1 11.7 → 13.7%,
# nothing proposed 15.4 → 6.1%; 600 held-out lines (``--held-out``) exact 1.8 → 2.8%, prefix
# match 9.0 → 9.7%, nothing proposed 15.3 → 2.0%; 2.4× the CPU (0.073 → 0.174 s a line).
HOLE_SAMPLES = 12
# How such a hole's candidates are ranked: the AR ranker's log-probability divided by
# (tokens + 1) ** this (``SamplerConfig.length_norm``), since a plain sum picks the shortest
# plausible text. Offline, every candidate of argmax + 12 drawn rows ranked as the Rewriter
# ranks, on ``remask bench lines`` tasks (edit similarity with whitespace squashed / exact):
# 300 lines 0.378 / 4.7% at 0, 0.439 / 4.7% at 0.5, 0.451 / 4.7% at 0.75, 0.434 / 4.3% at 1;
# 200 blocks 0.147 → 0.196 → 0.202 → 0.188 and 200 character spans 0.291 → 0.338 → 0.339 →
# 0.346 (rows of starting lengths 3-32 there). A bonus per token instead lengthened blocks
# more but lost exact lines (4.7 → 3.3% at 1 nat). Rows starting at 24 and 32 tokens too
# cost blocks 2.8× the CPU for nothing: even normalised, 8% of the picks are that long.
HOLE_LENGTH_NORM = 0.75


def sampler_for(span: Span, text: str, s: int, e: int, base: SamplerConfig, marker: str,
                tokenizer: Tokenizer, line_threshold: float | None = None,
                path: str | None = None, samples: int = 0) -> SamplerConfig:
    """Return ``base`` fitted to the span ``text[s:e]``.

    Tiny for a renamed reference, the old text's size plus a little for an argument list or
    a statement; for a hole that follows code on its own line (``x = ???``, the rest of a
    line being typed), one line: a line break there would be the model writing the next
    statements the user didn't ask for, which is slow and rarely parses. A marker or a body
    to write wants text: its canvas never empties and blanks are not accepted as a fill
    (the rest of a line may well be empty). A one-line hole commits at ``line_threshold``
    (None: the base threshold) — see ``RewriterConfig.line_threshold``. A hole gets ``samples``
    drawn rows beside the argmax ones (``HOLE_SAMPLES``; a quick fill passes 0: a one-line
    hole asked for gets more steps too, ``HOLE_LINE_STEPS``), and its
    candidates rank with lengths normalised, a one-line hole's its own way
    (``HOLE_LENGTH_NORM``, ``LINE_LENGTH_NORM``).
    """
    old = text[s:e]
    if span.kind == "hole":
        line_start = max(text.rfind("\n", 0, s), text.rfind("\r", 0, s)) + 1
        after_code = text[line_start:s].strip() != ""
        wants_text = old == marker or (old.strip() in ("", "pass", "...") and not after_code)
        single = after_code and not LINE_BREAK.search(old)
        if not single:
            if not wants_text:
                return replace(base, min_length=0)
            return replace(base, min_length=1, samples=samples, length_norm=HOLE_LENGTH_NORM)
        if not wants_text:  # the rest of a line: empty only where the line is complete
            line_end = LINE_BREAK.search(text, e)
            end = len(text) if line_end is None else line_end.start()
            wants_text = not python_ok(text[:s] + text[e:], path, end - (e - s))
        # starting lengths past a line's worth only add passes: on 164 single-line HumanEval
        # tasks the AR-ranked rows of 3-8 tokens passed as many (7.9%) as those of 3-16
        lengths = LINE_LENGTHS if base.lengths else ()
        return replace(base, single_line=True, init_length=min(base.init_length, LINE_TOKENS),
                       lengths=lengths,
                       max_length=min(base.max_length, LINE_MAX),
                       max_steps=min(base.max_steps, HOLE_LINE_STEPS if samples else LINE_STEPS),
                       min_length=1 if wants_text else 0, samples=samples,
                       denoiser_weight=LINE_DENOISER_WEIGHT, length_norm=LINE_LENGTH_NORM,
                       threshold=base.threshold if line_threshold is None else line_threshold)
    if span.kind not in ("rename", "signature", "dangling"):
        return base
    n = max((len(tokenizer.encode(t)) for t in (old, *span.mechanical)), default=1)
    slack = 1 if span.kind == "rename" else 4
    return replace(base, init_length=max(n, 1), max_length=max(n, 1) + slack, lengths=())
