"""The diffusion sampler: one pure function from a context and a canvas of masks to text.

Each step predicts every masked position and commits the confident ones (all above a threshold,
at least as many as a step budget's linear schedule needs), so easy tokens land many per forward
pass and an unsure model still finishes within the budget. The span's length is never given:
committing ``<expand>`` turns a position into two masks and ``<delete>`` removes it, so the
canvas grows and shrinks (DreamOn's scheme). A canvas resizes one way only: once it has shrunk
it never grows again and vice versa, since a weak model otherwise spends its passes deleting
at one end and expanding at the other. With ``oracle_length`` both are banned and the
canvas keeps the true length — the upper bound the benchmarks report beside it. A one-line
canvas (``single_line``) ends where the model ends the line.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import torch
from torch import Tensor

from .denoiser import Denoiser


class Cancelled(Exception):
    """Raised between steps when the caller's cancel check says a newer request arrived."""


@dataclass(frozen=True)
class SamplerConfig:
    init_length: int = 16  # canvas tokens at the start when the length is unknown
    # starting lengths denoised side by side when the length is unknown (empty: init_length):
    # the model seldom resizes a canvas much, so the engine ranks one row per length
    lengths: tuple[int, ...] = (3, 4, 6, 8, 12, 16)
    max_length: int = 96  # a canvas never grows past this
    threshold: float | None = 0.9  # commit every masked position this confident; None: fixed k
    tokens_per_step: int = 1  # commits per step when threshold is None
    # a budget, spread as a linear schedule: each step commits at least what the masks left
    # need to land in the steps left, so the last step commits every position still masked
    max_steps: int = 256
    # rows drawn at ``temperature`` beside the argmax rows (their starting lengths cycle
    # through ``lengths``): the argmax rows of a small model agree too often, and a hole that
    # a fill may take its time over gains more from other candidates than from more passes
    # (``diffing.canvas.HOLE_SAMPLES`` has the figures). Paired, 12 rows beside the argmax
    # ones, whole single-line split ranked offline: 0.5 / 0.7 pass 14.0 / 14.4% (1.0, drawn in
    # a fill of their own and pooled: 13.8%, where 0.7 that way gave 14.6%).
    samples: int = 0
    temperature: float = 0.7
    delete_scale: float = 0.9  # deletes need more confidence: easy pads would empty the canvas
    max_resizes: int = 24  # expand + delete commits per canvas; then its length is fixed
    remask_below: float = 0.0  # re-mask committed tokens whose probability fell below this
    max_remasks: int = 16
    # the hole completes its own line: a committed line break ends its row (the break and
    # every position after it are dropped), as an AR model stops at the line's end. Banning
    # breaks instead made the model write the next statement into the line: 36% of
    # half-typed held-out lines got no fill that parsed (16% now; figures in ``diffing.canvas``)
    single_line: bool = False
    min_length: int = 0  # a canvas never shrinks below this (a ``???`` hole is never empty)
    seed: int = 0
    # Not the sampler's: how much the denoiser's mean token log-probability counts beside
    # the AR ranker's when the engine ranks the rows (``Engine``). Measured on the shipped
    # pair, the default fill's candidates ranked parse-first and unbound-names-last as the
    # Rewriter ranks them: whole HumanEval single-line split pass@1 12.00 / 12.29 / 12.58 /
    # 12.58 / 12.39% at 0 / 0.5 / 1 / 2 / 4; on 600 single-line holes from the corpus's
    # held-out files, edit similarity 0.5491 / 0.5501 / 0.5502 / 0.5458 / 0.5435.
    denoiser_weight: float = 1.0
    # Not the sampler's either: with drawn rows (``samples``), how much the log of the number
    # of rows that wrote a text adds to its score (the rows vote; ``Engine``). Paired on the
    # whole single-line split (offline, Rewriter ranking), argmax + 12 / 24 rows drawn at 0.7
    # and at 0.5: weight 0 14.4 / 14.6 / 14.0 / 14.5%, 0.5 15.1 / 15.0 / 14.3 / 14.7%, 1 15.2 /
    # 15.4 / 13.8 / 15.0% — 0.5 is the weight that won in every pairing.
    agreement_weight: float = 0.5
    # Not the sampler's either: the AR ranker's log-probability of a middle (and its end) is
    # divided by (tokens + 1) ** ``length_norm`` before the other terms join it. A sum of
    # log-probabilities favours the shortest plausible text: holes that want a line or more
    # got a tenth of the removed block's length. 0: the plain log-probability.
    # ``diffing.canvas`` sets it per kind of hole (``HOLE_LENGTH_NORM``, ``LINE_LENGTH_NORM``)
    # with the figures.
    length_norm: float = 0.0

    def __post_init__(self) -> None:
        if self.init_length < 1 or self.max_length < self.init_length:
            raise ValueError("need 1 <= init_length <= max_length")
        if not 0 <= self.min_length <= min((self.init_length, *self.lengths)):
            raise ValueError("need 0 <= min_length <= init_length and every length")
        if any(n < 1 for n in self.lengths):
            raise ValueError("every starting length must be >= 1")
        if self.threshold is not None and not 0.0 < self.threshold <= 1.0:
            raise ValueError("threshold must be in (0, 1]")
        if self.tokens_per_step < 1 or self.max_steps < 1:
            raise ValueError("tokens_per_step and max_steps must be >= 1")
        if self.samples < 0 or (self.samples and self.temperature <= 0):
            raise ValueError("need samples >= 0, and temperature > 0 when sampling")
        if self.denoiser_weight < 0 or self.agreement_weight < 0 or self.length_norm < 0:
            raise ValueError("denoiser_weight, agreement_weight and length_norm must be >= 0")


@dataclass
class StepTrace:
    committed: int
    remasked: int
    expanded: int
    deleted: int
    canvas: list[int] = field(default_factory=list)  # row 0 after the step (mask id = open)
    proposal: list[int] = field(default_factory=list)  # row 0's provisional argmax per position
    rows: int = 0  # candidates denoised side by side in this step (rows still open)
    drawn: int = 0  # of them, rows drawn at the temperature (``SamplerConfig.samples``)


@dataclass
class Trace:
    """What the sampler did, for the TUI's live view and the benchmarks' speed columns."""

    steps: list[StepTrace] = field(default_factory=list)
    forward_passes: int = 0
    tokens_processed: int = 0
    seconds: float = 0.0

    @property
    def tokens_committed(self) -> int:
        return sum(s.committed for s in self.steps)

    def as_dict(self) -> dict:
        return {"steps": len(self.steps), "forward_passes": self.forward_passes,
                "tokens_processed": self.tokens_processed,
                "tokens_committed": self.tokens_committed,
                "committed_per_step": [s.committed for s in self.steps],
                "remasked_per_step": [s.remasked for s in self.steps],
                "seconds": round(self.seconds, 4)}


@torch.no_grad()
def generate(denoiser: Denoiser, prefix: list[int], suffix: list[int], cfg: SamplerConfig,
             *, candidates: int = 1, oracle_length: int | None = None,
             init_canvases: list[list[int]] | None = None,
             cancel: Callable[[], bool] | None = None,
             on_step: Callable[[int, StepTrace], None] | None = None,
             ) -> tuple[list[list[int]], Trace]:
    """Denoise ``candidates`` canvases for the span between ``prefix`` and ``suffix``.

    Returns the token ids of each candidate's span (special tokens removed) and the trace.
    Candidates differ by their initial canvas length: ``cfg.lengths`` in turn,
    ``max(candidates, len(cfg.lengths))`` rows, or ``init_length`` doubling when it is empty;
    then ``cfg.samples`` rows more, whose tokens are drawn at ``cfg.temperature`` (seeded by
    ``cfg.seed``, so a fill is repeatable) where the others take the argmax. Rows are not
    ranked here (the engine does it). A row whose
    canvas is decided leaves the batch, so short rows cost only their own steps.
    ``init_canvases`` start one row each from a partly decided canvas (mask id = open), which
    is how positions inside new syntax errors are re-masked and denoised again: every broken
    candidate of a span in one batch, so a round costs about one fill however many there are.
    """
    t0 = time.perf_counter()
    sp = denoiser.tokenizer.special
    if init_canvases is not None:
        lengths = [len(c) for c in init_canvases]
    elif oracle_length is not None:
        lengths = [max(oracle_length, 1)] * candidates
    elif cfg.lengths:
        n_rows = max(candidates, len(cfg.lengths))
        lengths = [min(cfg.max_length, cfg.lengths[i % len(cfg.lengths)]) for i in range(n_rows)]
    else:
        lengths = [min(cfg.max_length, cfg.init_length * 2 ** (i % 3)) for i in range(candidates)]
    n_argmax = len(lengths)
    if init_canvases is None:  # a re-mask round repairs its rows; it does not explore
        lengths += [lengths[i % n_argmax] for i in range(cfg.samples)]
    ctx = denoiser.context(prefix, suffix, max(cfg.max_length, max(lengths)))
    # a context not found cached was one pass of its own (keys and values only)
    trace = Trace(forward_passes=int(ctx.tokens_processed > 0),
                  tokens_processed=ctx.tokens_processed)
    rows = [list(c) for c in init_canvases] if init_canvases is not None \
        else [[sp.mask] * n for n in lengths]
    gen = torch.Generator().manual_seed(cfg.seed)
    banned = torch.tensor([sp.pad, sp.bos, sp.eos, sp.mask, sp.fim_prefix, sp.fim_suffix,
                           sp.fim_middle])
    breaks = frozenset(denoiser.tokenizer.line_break_ids if cfg.single_line else ())
    remasks, resizes = 0, [0] * len(rows)
    direction = [0] * len(rows)  # -1 once a row shrank, +1 once it grew
    for step_no in range(cfg.max_steps):
        active = [i for i, r in enumerate(rows) if sp.mask in r]  # rows still open
        if not active:
            break
        if cancel is not None and cancel():
            raise Cancelled
        M = max(len(rows[i]) for i in active)
        canvas = torch.full((len(active), M), sp.delete, dtype=torch.long)  # (A, M)
        valid = torch.zeros(len(active), M, dtype=torch.bool)
        for a, i in enumerate(active):
            canvas[a, :len(rows[i])], valid[a, :len(rows[i])] = torch.tensor(rows[i]), True
        logits, processed = denoiser.logits(ctx, canvas, valid)  # (A, M, V)
        trace.forward_passes += 1
        trace.tokens_processed += processed
        logits[..., banned] = -torch.inf
        if oracle_length is not None:
            logits[..., [sp.expand, sp.delete]] = -torch.inf
        for a, i in enumerate(active):  # a canvas can't grow and shrink forever
            if resizes[i] >= cfg.max_resizes:
                logits[a, :, [sp.expand, sp.delete]] = -torch.inf
            elif direction[i]:  # a canvas found too long never grows again, and vice versa
                logits[a, :, sp.expand if direction[i] < 0 else sp.delete] = -torch.inf
        probs = torch.softmax(logits, dim=-1)  # (A, M, V)
        pred = probs.argmax(-1)  # (A, M)
        drawn = torch.tensor([i >= n_argmax for i in active])  # (A,) the sampled rows
        if drawn.any():
            hot = torch.softmax(logits[drawn] / cfg.temperature, dim=-1)  # (S, M, V)
            probs[drawn] = hot
            pred[drawn] = torch.multinomial(hot.flatten(0, 1), 1,
                                            generator=gen).view(hot.shape[:2])
        conf = probs.gather(-1, pred[..., None])[..., 0]  # (A, M)
        step = StepTrace(0, 0, 0, 0, rows=len(active), drawn=int(drawn.sum()))
        for a, i in enumerate(active):
            r = rows[i]
            # the step budget is a linear schedule: enough commits that the masks left can
            # all land in the steps left, however unsure the model is
            due = -(-r.count(sp.mask) // (cfg.max_steps - step_no))
            rows[i], st = _commit_row(r, pred[a], conf[a], probs[a], cfg, sp,
                                      allow_remask=remasks < cfg.max_remasks,
                                      final=step_no == cfg.max_steps - 1, due=due,
                                      breaks=breaks)
            remasks += st.remasked
            resizes[i] += st.expanded + st.deleted
            if not direction[i] and (st.expanded or st.deleted):
                direction[i] = 1 if st.expanded >= st.deleted else -1
            for k in ("committed", "remasked", "expanded", "deleted"):
                setattr(step, k, getattr(step, k) + getattr(st, k))
            if a == 0:  # the live view follows the first row still open
                step.canvas, step.proposal = list(rows[i]), pred[a, :len(r)].tolist()
        trace.steps.append(step)
        if on_step is not None:
            on_step(len(trace.steps), step)
    out = [[t for t in r if not denoiser.tokenizer.is_special(t)] for r in rows]
    trace.seconds = time.perf_counter() - t0
    return out, trace


def _commit_row(row: list[int], pred: Tensor, conf: Tensor, probs: Tensor, cfg: SamplerConfig,
                sp, allow_remask: bool, final: bool = False, due: int = 1,
                breaks: frozenset[int] = frozenset()) -> tuple[list[int], StepTrace]:
    """Commit this step's choices in one row; returns the new row and what happened.

    On the ``final`` step every masked position commits and none grows: the step budget is
    spent, and a mask left open would vanish from the text. A committed token of ``breaks``
    (a one-line row's line breaks) ends the row: it and every position after it go, unless
    that leaves fewer than ``cfg.min_length``, when the best other text token stands instead.
    """
    n = len(row)
    masked = torch.tensor([t == sp.mask for t in row])
    st = StepTrace(0, 0, 0, 0)
    if not masked.any():
        return row, st
    score = conf[:n].clone()
    p = pred[:n]
    score[p == sp.delete] *= cfg.delete_scale
    score[p == sp.expand] *= 1.0 if n < cfg.max_length else 0.0
    score[~masked] = -1.0
    if final:
        chosen = masked
    elif cfg.threshold is not None:
        chosen = (score >= cfg.threshold) & masked
        if int(chosen.sum()) < due:
            chosen[score.topk(min(due, int(masked.sum()))).indices] = True
    else:
        k = min(max(cfg.tokens_per_step, due), int(masked.sum()))
        chosen = torch.zeros(n, dtype=torch.bool)
        chosen[score.topk(k).indices] = True
    out: list[int] = []
    room = cfg.max_length - n
    for j in range(n):
        tok = row[j]
        if chosen[j]:
            choice = int(p[j])
            if choice == sp.delete and len(out) + n - j - 1 < cfg.min_length:
                choice = _best_text(probs[j], sp)  # deleting would leave the canvas too short
            if choice == sp.delete:
                st.deleted += 1
                continue
            if choice in breaks:
                if len(out) >= cfg.min_length:
                    break
                choice = _best_text(probs[j], sp, breaks)
            if choice == sp.expand:
                if room > 0 and not final:
                    out += [sp.mask, sp.mask]
                    room -= 1
                    st.expanded += 1
                    continue
                choice = _best_text(probs[j], sp, breaks)
            out.append(choice)
            st.committed += 1
        elif allow_remask and cfg.remask_below > 0 and tok != sp.mask \
                and float(probs[j, tok]) < cfg.remask_below:
            out.append(sp.mask)
            st.remasked += 1
        else:
            out.append(tok)
    return out, st


def _best_text(probs: Tensor, sp, breaks: frozenset[int] = frozenset()) -> int:
    """The most likely ordinary token, when a special one can't be honoured."""
    p = probs.clone()
    p[[sp.expand, sp.delete, *breaks]] = 0.0
    return int(p.argmax())
