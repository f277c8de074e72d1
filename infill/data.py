"""Training examples: infill-shaped spans cut from real files, laid out for AR-FIM or diffusion.

Both objectives share one layout, ``<fim_prefix> prefix <fim_suffix> suffix <fim_middle> middle``,
so the AR checkpoint adapts to diffusion without relearning where things are. Spans are drawn the
way an editor produces them — whole lines, the rest of a line, a piece of a line, and arbitrary
character ranges — and prefix, middle and suffix are tokenized apart, exactly as at inference.

For diffusion the middle becomes a canvas with variable-length targets (DreamOn-style): a run of
adjacent tokens may merge into one ``<expand>`` target (the canvas was too short there) and
``<delete>`` targets pad it (too long); both are always masked, so the model learns to grow and
shrink a canvas whose true length it is never told. Being masked always, they weigh 1, not 1/t:
weighed 1/t they outweighed the code itself and the sampler learned mostly to delete.

The canvas's length must not give the middle's away. Tied to it (a few merges, up to twice as
many deletes) the model learned that a canvas is about the right size: at inference its output
was as long as the sampler's starting canvas whatever the hole, and its first-pass length
estimate did not correlate with the true one (single-line HumanEval, r = -0.02). So a share of
canvases (``free_length_rate``) gets a length drawn log-uniformly from 1 to ``max_middle``
whatever the middle's, as the sampler's starting canvases are. Paired, 2M tokens from the same
checkpoint (lr 3e-4): rate 0.7 lost — held-out 3.883 vs 3.702, single-line edit similarity at
a starting canvas of 8 / 16 tokens 0.248 / 0.211 vs 0.421 / 0.344: it learned to expand every
canvas to the cap (first-pass length estimate r = 0.09). Off by default; kept for longer runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import torch

from .tokenizer import Tokenizer

IGNORE = -100
_NEWLINE = re.compile("\n")
_DEF = re.compile(r"^([ \t]*)(?:async[ \t]+)?def[ \t]+\w+", re.M)
_DOCSTRING = re.compile(r"[rRuU]?(\"\"\"|\'\'\')")


WEIGHTINGS = ("elbo", "flat")  # DataConfig.weighting


@dataclass(frozen=True)
class DataConfig:
    block: int = 320  # tokens per training sequence
    max_middle: int = 96  # longest span (canvas) for infill examples
    # examples with no context, the whole window the span: they supervise ~300 positions
    # where an infill example supervises ~15. Paired, 2M tokens from the same init, held-out
    # middle CE: 0.3 → 3.973, 0.1 → 4.043 (block 192 instead of 320: 4.261).
    uncond_rate: float = 0.3
    span_kinds: tuple[tuple[str, float], ...] = (
        ("lines", 0.45), ("line_rest", 0.15), ("in_line", 0.15), ("chars", 0.25))
    expand_rate: float = 0.3  # fraction of diffusion examples with merged <expand> targets
    delete_rate: float = 0.5  # fraction of diffusion examples padded with <delete> targets
    free_length_rate: float = 0.0  # canvases whose length ignores the middle's (docstring)
    # infill examples cut as HumanEval's are: the context one documented function, the span
    # in its body after the docstring (whole lines or a character range); see function_span
    function_rate: float = 0.0
    min_t: float = 0.02  # lowest mask rate (1/t weights explode below it)
    # canvases of one diffusion infill example: each a fresh masking of the same middle after
    # the one context, seeing the context and itself (see diffusion_example); the second and
    # later ones only where they fit in ``canvas_room`` tokens past the block. Four beat one
    # at equal wall-clock (session 48); eight (room 160) tied four at equal tokens on two
    # seeds and cost 9% more a token (session 49)
    canvases: int = 1
    canvas_room: int = 80
    # spans that are only whitespace (a blank line, an indent: 8% of infill middles) kept;
    # False draws another span of the same kind (no HumanEval hole, no ``???``, wants one).
    # Paired from the AR bundle at four canvases, 2.33M tokens (session 49): held-out CE on
    # the other middles -0.019 +- 0.009, but 83% of content positions blanked at the first
    # step against 65%, so kept
    blank_middles: bool = True
    # how a diffusion canvas's loss weighs its mask rate t: "elbo" (1/t on each masked code
    # token, the MDLM/LLaDA bound) or "flat" (1 on each, so a canvas weighs t times what the
    # bound gives it: heavily masked canvases, like the sampler's first steps, count more);
    # <expand>/<delete> targets take the same ratio (1 and t) so their share of the loss holds.
    # Paired from the AR bundle at four canvases (session 50, two seeds): held-out bound
    # -0.019 and -0.026 (+-0.007), the first step's CE on code -0.10 and -0.16; from the
    # shipped bundle (one seed, 1.6M tokens) -0.006 +- 0.002 and -0.01. Off until a GPU pair
    weighting: str = "elbo"


@dataclass
class Batch:
    """A training batch; ``weights``/``denom`` make one loss formula serve both objectives."""

    idx: torch.Tensor  # (B, T) input ids
    targets: torch.Tensor  # (B, T) target id for the logits at each position, IGNORE if none
    weights: torch.Tensor  # (B, T) loss weight of each target
    denom: torch.Tensor  # (B,) normaliser of each example
    n_ctx: torch.Tensor  # (B,) context length (diffusion attention layout)
    valid: torch.Tensor  # (B, T) False at padding
    segment: torch.Tensor  # (B, T) 0 in the context, k in the k-th canvas (infill_mask)
    pos: torch.Tensor  # (B, T) RoPE position of each token (every canvas starts at n_ctx)


def _line_starts(text: str) -> list[int]:
    """Offsets where lines begin (a regex scan: a per-character loop cost 2/3 of a batch)."""
    return [0] + [m.end() for m in _NEWLINE.finditer(text, 0, len(text) - 1)]


def choose_span(text: str, kind: str, rng: np.random.Generator) -> tuple[int, int]:
    """Character offsets [a, b) of one span of ``kind`` in ``text``."""
    starts = _line_starts(text)
    ends = starts[1:] + [len(text)]
    li = int(rng.integers(len(starts)))
    s, e = starts[li], ends[li]
    if kind == "lines":
        k = min(int(rng.geometric(0.35)), 16)
        return s, ends[min(li + k - 1, len(ends) - 1)]
    lo = s + _indent(text[s:e])
    if kind == "line_rest":
        return (int(rng.integers(lo, e)) if e > lo else s), e
    if kind == "in_line":
        a, b = sorted(int(x) for x in rng.integers(lo, max(e, lo + 1), size=2))
        return a, max(b, a + 1) if a < len(text) else a
    a = int(rng.integers(len(text)))
    return a, min(len(text), a + int(rng.integers(1, 300)))


def function_span(text: str, rng: np.random.Generator) -> tuple[int, int, int, int] | None:
    """(f0, f1, a, b): a documented function at text[f0:f1], a span [a, b) of its body.

    The shape of HumanEval's infilling tasks, where the context is the signature, the
    docstring and the rest of the function, and the span is whole lines of the body or a
    character range in it. A function is found by its ``def`` line and ends before the first
    line indented no deeper; None when ``text`` has no function with a docstring and a body.
    """
    defs = list(_DEF.finditer(text))
    for i in rng.permutation(len(defs))[:8]:
        m = defs[int(i)]
        lines = _lines_from(text, m.start())
        head = _header_end(text, lines)
        if head is None or head + 1 >= len(lines):
            continue
        indent = len(m.group(1))
        body = lines[head + 1:]
        end = next((a for a, b in body if text[a:b].strip() and _indent(text[a:b]) <= indent),
                   body[-1][1])  # (a function past _lines_from's limit is cut there)
        first = body[0][0] + _indent(text[body[0][0]:body[0][1]])
        doc = _DOCSTRING.match(text, first)
        close = text.find(doc.group(1), doc.end()) if doc else -1
        rest = [(a, b) for a, b in body if close < a < end and text[a:b].strip()]
        if close < 0 or not rest:
            continue
        if rng.random() < 0.5:  # whole lines, the last one's line break kept or not
            k = int(rng.integers(len(rest)))
            a, b = rest[k][0], rest[min(k + int(rng.geometric(0.35)) - 1, len(rest) - 1)][1]
            if rng.random() < 0.5 and text[b - 1:b] == "\n":
                b -= 1
        else:
            a = int(rng.integers(rest[0][0], rest[-1][1]))
            b = min(rest[-1][1], a + int(rng.integers(1, 300)))
        return m.start(), end, a, b
    return None


def _lines_from(text: str, start: int, limit: int = 8000) -> list[tuple[int, int]]:
    """(start, end) of each line of ``text`` from ``start`` on, line breaks included.

    ``limit`` characters at most: a longer function would not fit a training block anyway.
    """
    stop = min(len(text), start + limit)
    starts = [start + x for x in _line_starts(text[start:stop])]
    return list(zip(starts, [*starts[1:], stop], strict=True))


def _header_end(text: str, lines: list[tuple[int, int]]) -> int | None:
    """Index of the line that ends a ``def``'s header: the first whose brackets all close.

    None unless that line ends with a colon (``def f(): return 1`` has no body to mask).
    """
    depth = 0
    for k, (a, b) in enumerate(lines[:10]):
        line = text[a:b]
        depth += sum(map(line.count, "([{")) - sum(map(line.count, ")]}"))
        if depth <= 0:
            return k if line.rstrip().endswith(":") else None
    return None


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _window(doc: str, n_chars: int, rng: np.random.Generator) -> str:
    if len(doc) <= n_chars:
        return doc
    starts = _line_starts(doc[: len(doc) - n_chars // 2])
    a = starts[int(rng.integers(len(starts)))]
    return doc[a:a + n_chars]


def fit_context(p: list[int], s: list[int], budget: int) -> tuple[list[int], list[int]]:
    """Keep the prefix's tail and the suffix's head, sharing ``budget`` tokens."""
    budget = max(0, budget)
    keep_s = min(len(s), max(budget // 2, budget - len(p)))
    keep_p = min(len(p), budget - keep_s)
    return p[len(p) - keep_p:], s[:keep_s]


def cut_example(doc: str, tok: Tokenizer, cfg: DataConfig, rng: np.random.Generator
                ) -> tuple[list[int], list[int], list[int]]:
    """Tokenized (prefix, middle, suffix) of one span from ``doc``, fitting ``cfg.block``."""
    text = _window(doc, cfg.block * 5, rng)
    if rng.random() < cfg.uncond_rate:
        m = tok.encode(text)[: cfg.block - 4]
        return [], m, []
    # (no draw at rate 0: the held-out set, cut by this code from a seeded stream, stays the
    # one every earlier curve point was measured on)
    found = function_span(doc, rng) if cfg.function_rate and \
        rng.random() < cfg.function_rate else None
    if found is not None:
        f0, f1, a, b = found
        text, a, b = doc[f0:f1], a - f0, b - f0
    else:
        kinds, probs = zip(*cfg.span_kinds, strict=True)
        kind = kinds[int(rng.choice(len(kinds), p=np.array(probs) / sum(probs)))]
        for _ in range(32):  # one draw where blank middles are kept (the held-out set's)
            a, b = choose_span(text, kind, rng)
            if cfg.blank_middles or text[a:b].strip():
                break
    p, m, s = tok.encode_span(text[:a], text[a:b], text[b:])
    longest = min(cfg.max_middle, cfg.block // 3)
    if len(m) > longest:  # the rest of an over-long span becomes suffix
        s = tok.encode(tok.decode(m[longest:]) + text[b:])
        m = m[:longest]
    p, s = fit_context(p, s, cfg.block - len(m) - 4 - (len(m) // 2 + 2))  # room for <delete>s
    return p, m, s


@dataclass
class Row:
    """One example laid out, before collation into a :class:`Batch`."""

    seq: list[int]
    targets: list[int]
    weights: list[float]
    denom: float
    n_ctx: int
    segment: list[int]
    pos: list[int]


def ar_example(p, m, s, tok: Tokenizer, cfg: DataConfig) -> Row:
    """``<pre> p <suf> s <mid> m <eos>``; every next token is a target (the FIM paper's loss)."""
    sp = tok.special
    seq = [sp.fim_prefix, *p, sp.fim_suffix, *s, sp.fim_middle, *m, sp.eos]
    targets = seq[1:] + [IGNORE]
    n = len(seq) - 1
    n_ctx = len(p) + len(s) + 2
    return Row(seq, targets, [1.0] * n + [0.0], float(n), n_ctx,
               [0] * n_ctx + [1] * (len(seq) - n_ctx), list(range(len(seq))))


def diffusion_example(p, m, s, tok: Tokenizer, cfg: DataConfig, rng: np.random.Generator,
                      shift: bool) -> Row:
    """``<pre> p <suf> s`` then ``<mid> canvas`` once, or ``cfg.canvases`` times after a context.

    Each canvas masks its positions at its own rate t ~ U(min_t, 1). An infill example's
    context is ~300 tokens and its canvas ~20, so nearly all of a step's compute reads context
    for a dozen supervised positions; further canvases of the same middle, each drawn and
    masked afresh, sit after the one context at the same positions (RoPE) and see only it and
    themselves, so each is an independent example of the same hole for a fraction of the cost.
    Their losses share the example's weight (the denominator sums their lengths). They stop
    at the first that would take the row past ``block + canvas_room`` tokens, so a batch pads
    to little more than the block (short middles get more of them). A whole window with no
    context (``p`` and ``s`` empty) keeps one canvas: it is long already.
    """
    sp = tok.special
    n_ctx = len(p) + len(s) + 2
    seq = [sp.fim_prefix, *p, sp.fim_suffix, *s]
    targets, weights = [IGNORE] * n_ctx, [0.0] * n_ctx
    segment, pos = [0] * n_ctx, list(range(n_ctx))
    room = cfg.block - n_ctx - 1
    denom = 0.0
    for k in range(1, (cfg.canvases if p or s else 1) + 1):
        canvas = _canvas(m, cfg, sp, rng, room)
        if k > 1 and len(seq) + len(canvas) + 1 > cfg.block + cfg.canvas_room:
            break
        t = float(rng.uniform(cfg.min_t, 1.0))
        special = np.isin(canvas, [sp.expand, sp.delete])
        masked = (rng.random(len(canvas)) < t) | special
        code_w, special_w = (1.0, t) if cfg.weighting == "flat" else (1.0 / t, 1.0)
        if not masked.any():
            masked[int(rng.integers(len(canvas)))] = True
        first = len(seq) + 1  # index of this canvas's first token, after its <fim_middle>
        seq += [sp.fim_middle] + [sp.mask if mk else c for c, mk in zip(canvas, masked,
                                                                        strict=True)]
        targets += [IGNORE] * (len(canvas) + 1)
        weights += [0.0] * (len(canvas) + 1)
        for j, (c, mk, sp_j) in enumerate(zip(canvas, masked, special, strict=True)):
            if mk:  # 1/t undoes a mask drawn with chance t; <expand>/<delete> are masked always
                at = first + j - 1 if shift else first + j
                targets[at], weights[at] = c, special_w if sp_j else code_w
        segment += [k] * (len(canvas) + 1)
        pos += range(n_ctx, n_ctx + len(canvas) + 1)
        denom += len(canvas)
    return Row(seq, targets, weights, denom, n_ctx, segment, pos)


def _canvas(m: list[int], cfg: DataConfig, sp, rng: np.random.Generator, room: int
            ) -> list[int]:
    """One canvas for middle ``m``: its length tied to the middle's, or drawn (``free``)."""
    if cfg.free_length_rate and rng.random() < cfg.free_length_rate:
        n = int(np.exp(rng.uniform(0.0, np.log(cfg.max_middle + 1))))
        return free_canvas(m, max(1, min(n, room)), sp, rng)[:room]
    return tied_canvas(m, cfg, sp, rng)[:room]


def tied_canvas(m: list[int], cfg: DataConfig, sp, rng: np.random.Generator) -> list[int]:
    """The middle with a few pairs merged into ``<expand>`` and/or ``<delete>`` padding."""
    canvas = list(m)
    if len(canvas) >= 4 and rng.random() < cfg.expand_rate:
        n_merge = int(rng.integers(1, len(canvas) // 4 + 1))
        starts = sorted(rng.choice(len(canvas) - 1, size=n_merge, replace=False))
        merged, j = [], 0
        for st in starts:
            if st < j:
                continue
            merged += canvas[j:st] + [sp.expand]
            j = st + 2
        canvas = merged + canvas[j:]
    if rng.random() < cfg.delete_rate or not canvas:
        n_del = int(rng.integers(1, max(2, len(canvas)) + 1))
        _pad(canvas, n_del, sp, rng)
    return canvas


def free_canvas(m: list[int], n: int, sp, rng: np.random.Generator) -> list[int]:
    """The middle laid on exactly ``n`` positions.

    Too long: ``<delete>`` padding. Too short: the middle is cut into ``n`` runs at random
    and every run of two or more tokens becomes one ``<expand>`` — at inference an expand
    becomes two masks, which may expand again, so any run length is reachable.
    """
    if n >= len(m):
        canvas = list(m)
        _pad(canvas, n - len(m), sp, rng)
        return canvas
    cuts = [0, *sorted(int(c) for c in rng.choice(np.arange(1, len(m)), size=n - 1,
                                                    replace=False)), len(m)]
    return [m[a] if b - a == 1 else sp.expand for a, b in zip(cuts, cuts[1:], strict=False)]


def _pad(canvas: list[int], n: int, sp, rng: np.random.Generator) -> None:
    """Add ``n`` deletes: mostly trailing, sometimes scattered inside the canvas."""
    if rng.random() < 0.3:
        for _ in range(n):
            canvas.insert(int(rng.integers(len(canvas) + 1)), sp.delete)
    else:
        canvas += [sp.delete] * n


def make_batch(docs: list[str], tok: Tokenizer, cfg: DataConfig, rng: np.random.Generator,
               objective: str, shift: bool = True) -> Batch:
    """Collate one example per document, padded to ``cfg.block``.

    Rows with several canvases may be longer: the batch is then as long as its longest row.
    """
    rows = []
    for doc in docs:
        p, m, s = cut_example(doc, tok, cfg, rng)
        if objective == "ar":
            rows.append(ar_example(p, m, s, tok, cfg))
        elif objective == "diffusion":
            rows.append(diffusion_example(p, m, s, tok, cfg, rng, shift))
        else:
            raise ValueError(f"unknown objective {objective!r}")
    B, T = len(rows), max([cfg.block, *(len(r.seq) for r in rows)])
    idx = torch.full((B, T), tok.special.pad, dtype=torch.long)
    targets = torch.full((B, T), IGNORE, dtype=torch.long)
    weights = torch.zeros(B, T)
    valid = torch.zeros(B, T, dtype=torch.bool)
    segment = torch.zeros(B, T, dtype=torch.long)
    pos = torch.arange(T).repeat(B, 1)
    for i, r in enumerate(rows):
        n = len(r.seq)
        idx[i, :n] = torch.tensor(r.seq)
        targets[i, :n] = torch.tensor(r.targets)
        weights[i, :n] = torch.tensor(r.weights)
        valid[i, :n] = True
        segment[i, :n] = torch.tensor(r.segment)
        pos[i, :n] = torch.tensor(r.pos)
    denom = torch.tensor([r.denom for r in rows])
    n_ctx = torch.tensor([r.n_ctx for r in rows])
    return Batch(idx, targets, weights, denom, n_ctx, valid, segment, pos)
