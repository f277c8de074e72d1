"""Text in, text out: the engine that fills a span between a prefix and a suffix.

It hides token ids from callers (``diffing`` speaks only text and character offsets): the
prefix, span and suffix are tokenized apart so the span starts and ends exactly where the caller
said, and every byte outside it is returned untouched by construction.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import torch

from .ar import ARModel, ar_generate, ar_score, load_ar, prefill
from .denoiser import Denoiser, load_denoiser
from .hf import checkpoint_kind, load_hf_denoiser
from .precision import compute_dtype
from .sampler import SamplerConfig, StepTrace, Trace, generate

BUNDLED = Path(__file__).with_name("bundled")
BUNDLED_AR = Path(__file__).with_name("bundled-ar")


_BREAK = re.compile(r"\r\n?")


def as_learnt(text: str) -> str:
    r"""``text`` with its line breaks as the model learnt them: CRLF and a lone CR read as LF.

    The corpus is LF files, so a Windows file's ``\r\n`` put the model off its training: on
    150 single-line HumanEval tasks, the same prompts with CRLF line breaks passed 18 against
    28 with LF (the same fill on 31). Only what the model reads changes: its fills come back
    with LF line breaks, and the caller writes them as the file does.
    """
    return _BREAK.sub("\n", text) if "\r" in text else text


@dataclass
class Fill:
    """Candidate texts for one span, best first, with their tokens and the sampler's trace."""

    texts: list[str]
    tokens: list[list[int]]
    trace: Trace
    scores: list[float] = field(default_factory=list)  # as ``Engine.score``; empty: unranked

    @property
    def text(self) -> str:
        return self.texts[0]


class Engine:
    """A loaded model (denoiser, or AR as the causal fallback) behind one ``fill`` call.

    A diffusion engine denoises one canvas per starting length (``SamplerConfig.lengths``)
    and ranks the results with ``score``. With a ``ranker`` (an AR checkpoint sharing the
    tokenizer) the score is the exact log-probability of each middle and its end, plus
    ``SamplerConfig.denoiser_weight`` times the denoiser's own mean token log-probability (a
    second opinion, for one more pass); without one, that mean alone, which favours short
    middles.
    Measured on the first H200 pair (164 single-line tasks, no oracle length): one 16-token
    canvas passed 1.2%, the best single length 4.3%, six lengths ranked by the denoiser 5.5%,
    ranked by the AR ranker 7.9%.
    """

    def __init__(self, backend: Denoiser | ARModel, sampler: SamplerConfig | None = None,
                 ranker: ARModel | None = None) -> None:
        self.backend = backend
        self.tokenizer = backend.tokenizer
        self.sampler = sampler or SamplerConfig()
        self.ranker = ranker if ranker is not None or not isinstance(backend, ARModel) \
            else backend  # an AR engine ranks its candidates itself
        # An editor fills, re-fills and scores one span several times over the same prefix
        # and suffix: tokenizing a whole file again each time cost ~35 ms of a fill.
        self._encode_cached = lru_cache(maxsize=8)(
            lambda text: tuple(self.tokenizer.encode(as_learnt(text))))

    def _encode(self, text: str) -> list[int]:
        return list(self._encode_cached(text))

    @property
    def is_diffusion(self) -> bool:
        return not isinstance(self.backend, ARModel)

    @property
    def name(self) -> str:
        return self.backend.name

    def fill(self, prefix: str, suffix: str, *, candidates: int = 1,
             oracle_length: int | None = None, sampler: SamplerConfig | None = None,
             cancel: Callable[[], bool] | None = None,
             on_step: Callable[[int, StepTrace], None] | None = None) -> Fill:
        """Propose text for the span between ``prefix`` and ``suffix``."""
        cfg = sampler or self.sampler
        p, s = self._encode(prefix), self._encode(suffix)
        if not self.is_diffusion:
            ids, trace = ar_generate(self.backend, p, s, cfg.max_length, cancel,
                                     cfg.min_length, cfg.single_line)
            return Fill([self.tokenizer.decode(ids)], [ids], trace)
        rows, trace = generate(self.backend, p, s, cfg, candidates=candidates,
                               oracle_length=oracle_length, cancel=cancel, on_step=on_step)
        return self._ranked(p, s, rows, trace, cfg, drawn=cfg.samples > 0)

    @torch.no_grad()
    def prepare(self, prefix: str, suffix: str, sampler: SamplerConfig | None = None) -> None:
        """Run now what a fill of this span does first, so that the fill finds it cached.

        That is the context prefill of the denoiser and of the ranker (about a third of a
        one-line fill): an editor can have it done while it waits for typing to pause.
        """
        cfg = sampler or self.sampler
        p, s = self._encode(prefix), self._encode(suffix)
        if self.is_diffusion:  # the canvas room a fill asks for (``generate``)
            self.backend.context(p, s, cfg.max_length)
        if self.ranker is not None:
            prefill(self.ranker, p, s, cfg.max_length)

    def _ranked(self, prefix: list[int], suffix: list[int], rows: list[list[int]],
                trace: Trace, cfg: SamplerConfig, drawn: bool = False) -> Fill:
        """The rows as a Fill, duplicates dropped and best first by score.

        When some rows were ``drawn`` at a temperature, how many rows wrote a text estimates
        how much the model believes in it: ``cfg.agreement_weight`` × log(votes) joins the
        score. Among argmax rows alone agreement says little (rows of nearby starting
        lengths converge on the same junk) and is left out.
        """
        texts: dict[str, list[int]] = {}
        votes: Counter[str] = Counter()
        for r in rows:
            text = self.tokenizer.decode(r)
            texts.setdefault(text, r)
            votes[text] += 1
        if len(texts) < 2:
            return Fill(list(texts), list(texts.values()), trace)
        # each text as the tokenizer writes it, so a fill ranks as ``score`` would rank it
        middles = [self.tokenizer.encode(t) for t in texts]
        scores = self._score_ids(prefix, suffix, middles, cfg, trace)
        if drawn:
            scores = [sc + cfg.agreement_weight * math.log(votes[t])
                      for sc, t in zip(scores, texts, strict=True)]
        # a hole that wants text (``min_length``) ranks blank candidates last: whitespace is
        # no fill of it, however likely the model finds ending the line at once
        ranked = sorted(zip(scores, texts.items(), strict=True),
                        key=lambda x: (cfg.min_length > 0 and not x[1][0].strip(), -x[0]))
        return Fill([t for _, (t, _) in ranked], [ids for _, (_, ids) in ranked], trace,
                    [sc for sc, _ in ranked])

    def refill(self, prefix: str, suffix: str, tokens: list[int], reopen: list[tuple[int, int]],
               *, candidates: int = 1, sampler: SamplerConfig | None = None,
               cancel: Callable[[], bool] | None = None,
               on_step: Callable[[int, StepTrace], None] | None = None) -> Fill:
        """Denoise again the tokens of an earlier fill that overlap ``reopen``; ranked.

        ``reopen`` holds character ranges of that fill's text; every other token is kept.
        """
        if not self.is_diffusion:
            return self.fill(prefix, suffix, candidates=candidates, sampler=sampler,
                             cancel=cancel)
        cfg = sampler or self.sampler
        each = self.refill_each(prefix, suffix, [(tokens, reopen)] * candidates, sampler=cfg,
                                cancel=cancel, on_step=on_step)
        return self._ranked(self._encode(prefix), self._encode(suffix), each.tokens,
                            each.trace, cfg)

    def refill_each(self, prefix: str, suffix: str,
                    fills: list[tuple[list[int], list[tuple[int, int]]]], *,
                    sampler: SamplerConfig | None = None,
                    cancel: Callable[[], bool] | None = None,
                    on_step: Callable[[int, StepTrace], None] | None = None) -> Fill:
        """``refill`` for several earlier fills of one span as one batch, in their order.

        Nothing is ranked or merged: result ``i`` is fill ``i`` re-denoised, so the caller
        can check each against what was wrong with it.
        """
        if not self.is_diffusion:  # greedy decoding: a second fill would be the first again
            f = self.fill(prefix, suffix, sampler=sampler, cancel=cancel)
            return Fill(f.texts[:1] * len(fills), f.tokens[:1] * len(fills), f.trace)
        canvases = [self._reopened(tokens, reopen) for tokens, reopen in fills]
        rows, trace = generate(self.backend, self._encode(prefix), self._encode(suffix),
                               sampler or self.sampler, init_canvases=canvases, cancel=cancel,
                               on_step=on_step)
        return Fill([self.tokenizer.decode(r) for r in rows], rows, trace)

    def _reopened(self, tokens: list[int], reopen: list[tuple[int, int]]) -> list[int]:
        """``tokens`` as a canvas with those overlapping the character ranges masked again."""
        mask = self.tokenizer.special.mask
        canvas, pos = [], 0
        for i, t in enumerate(tokens):
            # decode the running prefix: a token may hold half of a multi-byte character
            end = len(self.tokenizer.decode(tokens[: i + 1]))
            hit = any(a < end and pos < b or a == b == pos for a, b in reopen)
            canvas.append(mask if hit else t)
            pos = end
        if mask not in canvas:
            canvas.append(mask)
        return canvas

    @torch.no_grad()
    def score(self, prefix: str, suffix: str, middles: list[str],
              sampler: SamplerConfig | None = None, trace: Trace | None = None) -> list[float]:
        """How likely each middle is between ``prefix`` and ``suffix``; higher is better.

        The denoiser's score: every token of a candidate is masked at once, all candidates
        share one forward pass, and the score is the mean token log-probability (an empty
        middle is one ``<delete>``); the context is cut as for a fill with ``sampler``, so
        scoring reuses its context. With a ranker: the exact log-probability of the middle
        and its end (divided by (tokens + 1) ** ``sampler.length_norm``), plus
        ``sampler.denoiser_weight`` times the denoiser's score. Either way
        model-made and mechanical candidates are ranked on one scale. The passes spent are
        added to ``trace`` when given.
        """
        return self._score_ids(self._encode(prefix), self._encode(suffix),
                               [self.tokenizer.encode(as_learnt(m)) for m in middles],
                               sampler or self.sampler, trace)

    @torch.no_grad()
    def _score_ids(self, prefix: list[int], suffix: list[int], middles: list[list[int]],
                   cfg: SamplerConfig, trace: Trace | None) -> list[float]:
        """``score`` on token ids: a fill's prefix and suffix are not tokenized twice."""
        if not middles:
            return []
        if self.ranker is None:
            return self._denoiser_scores(prefix, suffix, middles, cfg, trace)
        scores, cost = ar_score(self.ranker, prefix, suffix, middles, cfg.max_length)
        if cfg.length_norm:
            scores = [sc / (len(m) + 1) ** cfg.length_norm
                      for sc, m in zip(scores, middles, strict=True)]
        if trace is not None:
            trace.forward_passes += cost.forward_passes
            trace.tokens_processed += cost.tokens_processed
        if not self.is_diffusion or not cfg.denoiser_weight:
            return scores
        own = self._denoiser_scores(prefix, suffix, middles, cfg, trace)
        return [a + cfg.denoiser_weight * d for a, d in zip(scores, own, strict=True)]

    def _denoiser_scores(self, prefix: list[int], suffix: list[int], middles: list[list[int]],
                         cfg: SamplerConfig, trace: Trace | None) -> list[float]:
        """The denoiser's mean token log-probability of each middle, all masked at once."""
        sp = self.tokenizer.special
        rows = [m or [sp.delete] for m in middles]
        M = max(len(r) for r in rows)
        ctx = self.backend.context(prefix, suffix, max(M, cfg.max_length))
        canvas = torch.full((len(rows), M), sp.delete, dtype=torch.long)  # (B, M)
        valid = torch.zeros(len(rows), M, dtype=torch.bool)  # (B, M)
        target = torch.full((len(rows), M), sp.delete, dtype=torch.long)  # (B, M)
        for i, r in enumerate(rows):
            canvas[i, :len(r)], valid[i, :len(r)] = sp.mask, True
            target[i, :len(r)] = torch.tensor(r)
        logits, processed = self.backend.logits(ctx, canvas, valid)  # (B, M, V)
        if trace is not None:
            trace.forward_passes += 1 + int(ctx.tokens_processed > 0)
            trace.tokens_processed += processed + ctx.tokens_processed
        logp = torch.log_softmax(logits, dim=-1).gather(-1, target[..., None])[..., 0]  # (B, M)
        return [float(logp[i, :len(r)].mean()) for i, r in enumerate(rows)]

    def decode_tokens(self, ids: list[int]) -> list[str]:
        """Each id's text (for showing a canvas token by token)."""
        return [self.tokenizer.decode([i]) for i in ids]

    def provisional(self, step: StepTrace, hidden: str = "\u2591") -> tuple[str, int]:
        """The span as one step left it, and how many positions are still masked.

        Committed tokens, then this step's guess where a position is still masked, ``hidden``
        where there is no guess: what front ends show while the model works.
        """
        tok = self.tokenizer
        mask = tok.special.mask
        guesses = step.proposal if len(step.proposal) == len(step.canvas) else None
        ids: list[int | None] = []
        for i, t in enumerate(step.canvas):
            if t == mask:
                g = guesses[i] if guesses is not None else None
                ids.append(g if g is not None and not tok.is_special(g) else None)
            elif not tok.is_special(t):
                ids.append(t)
        parts, run = [], []  # runs of tokens decode together: a character may span tokens
        for t in ids:
            if t is not None:
                run.append(t)
                continue
            parts += [tok.decode(run), hidden]
            run = []
        return "".join(parts) + tok.decode(run), step.canvas.count(mask)


def load_engine(directory: Path | None = None, use_cache: bool = True,
                sampler: SamplerConfig | None = None, *, device: str | None = None,
                trust_remote_code: bool = False, precision: str = "auto",
                ranker: Path | None = BUNDLED_AR) -> Engine:
    """Load the model in ``directory`` (default: the bundled denoiser), whatever its format.

    ``config.json`` tells the format: remask's own (it has ``attention``), a transformers
    masked LM (``model_type``), or a diffusion LM with its own code (``auto_map``, loaded only
    with ``trust_remote_code``). ``device`` applies to transformers checkpoints, ``precision``
    (auto / bf16 / fp32: ``remask.infill.precision``) to remask's own, which run on the CPU.
    ``ranker`` is the AR checkpoint that ranks a remask denoiser's candidate lengths (see
    ``Engine``); it is used only where it shares the denoiser's tokenizer.
    Raises ValueError with a one-line reason when the directory holds no usable model.
    """
    directory = Path(directory) if directory is not None else BUNDLED
    if directory.is_file():
        raise ValueError(f"{directory}: a file; give the directory that holds the model")
    if not directory.is_dir():
        raise ValueError(f"{directory}: no such model directory")
    cfg_path = directory / "config.json"
    if not cfg_path.is_file():
        raise ValueError(f"{cfg_path}: missing")
    try:
        cfg = json.loads(cfg_path.read_text())
    except json.JSONDecodeError as e:
        raise ValueError(f"{cfg_path}: not JSON ({e})") from None
    if not isinstance(cfg, dict):
        raise ValueError(f"{cfg_path}: not a JSON object")
    kind = checkpoint_kind(cfg)
    if kind is not None:
        return Engine(load_hf_denoiser(directory, kind, device, trust_remote_code), sampler)
    if device not in (None, "cpu"):
        raise ValueError(f"--device {device}: remask's own models run on the CPU")
    dtype = compute_dtype(precision)
    if cfg.get("attention", "infill") == "causal":
        return Engine(load_ar(directory, dtype), sampler)
    return Engine(load_denoiser(directory, use_cache, dtype), sampler,
                  _ranker(ranker, directory, dtype))


def _ranker(path: Path | None, denoiser: Path, dtype: torch.dtype) -> ARModel | None:
    """The AR checkpoint at ``path`` if it loads and shares the denoiser's tokenizer."""
    if path is None:
        return None
    try:
        if (path / "tokenizer.json").read_bytes() != (denoiser / "tokenizer.json").read_bytes():
            return None
        return load_ar(path, dtype)
    except (OSError, ValueError):
        return None  # no ranker: the denoiser ranks its own candidates
