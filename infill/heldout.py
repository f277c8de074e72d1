"""The held-out sets training is judged on, and what is measured on them.

Middle cross-entropy (:func:`evaluate`) is the curve's figure, on canvases laid exactly over
the middle: no ``<delete>`` or ``<expand>`` targets. So it cannot see a model that starts
answering with deletes, which is what a blank fill is; session 46 found the CPU run doing
that within 7M tokens while its middle CE moved by 0.006. :func:`blank_rates` looks at the
sampler's first step (a padded canvas, every position masked): how often a content
position's argmax is ``<delete>``, and how often a ``<delete>`` position's is not. The
first moved with the blank answers there (69.2% for the bundle, 70.4% and 73.2% for the
two drifted exports, 68.9% for the bundle with as much random noise).
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict
from pathlib import Path

import numpy as np
import torch

from .corpus import Corpus
from .data import IGNORE, DataConfig, make_batch
from .model import Transformer, infill_mask
from .objectives import masked_ce, weighted_ce
from .tokenizer import Tokenizer


def heldout_id(corpus: Path) -> str:
    """A fingerprint of the held-out set: curves compare only where it is the same."""
    return hashlib.sha1((corpus / "heldout.txt").read_bytes()).hexdigest()[:12]


def heldout_batches(corpus: Path, tok: Tokenizer, data: DataConfig, objective: str,
                    examples: int, shift: bool, lengths: bool = False) -> list:
    """A fixed held-out set (seeded), identical across runs, so curves are comparable.

    ``lengths``: the sampler's first step instead, for :func:`blank_rates`: every canvas
    padded with ``<delete>`` as training pads them, and every position masked (another seed,
    so another sample of the held-out files).
    """
    held = Corpus(corpus, "heldout")
    rng = np.random.default_rng(4321 if lengths else 1234)
    docs = [held.sample(rng) for _ in range(examples)]
    data = DataConfig(**{**asdict(data), "expand_rate": 0.0,
                         "delete_rate": 1.0 if lengths else 0.0,
                         "min_t": 1.0 if lengths else data.min_t,
                         "free_length_rate": 0.0, "uncond_rate": 0.0, "function_rate": 0.0,
                         "canvases": 1, "blank_middles": True, "weighting": "elbo",
                         "span_kinds": data.span_kinds})
    return [make_batch(docs[i:i + 16], tok, data, rng, objective, shift)
            for i in range(0, len(docs), 16)]


@torch.no_grad()
def evaluate(model: Transformer, batches: list, objective: str) -> dict:
    """Held-out middle cross-entropy per token (nats).

    For AR it is the exact NLL of the middle; for diffusion the 1/t-weighted bound averaged
    over the fixed grid of mask rates the batches were made with. Always fp32, so the curve
    compares across machines whatever precision trained it.
    """
    model.eval()
    total, count = 0.0, 0
    for b in batches:
        if objective == "ar":
            logits, _ = model(b.idx, causal=True)
            tgt = b.targets.clone()
            pos = torch.arange(tgt.shape[1], device=tgt.device)
            tgt[pos[None, :] < b.n_ctx[:, None]] = IGNORE  # middle only
            ce, n = masked_ce(logits, tgt)
            total, count = total + ce.item(), count + int(n)
        else:
            logits, _ = model(b.idx, mask=infill_mask(b.n_ctx, b.valid))
            loss = weighted_ce(logits, b.targets, b.weights, b.denom)
            n = int(b.denom.sum())
            total, count = total + loss.item() * n, count + n
    model.train()
    return {"middle_ce": total / max(count, 1)}


@torch.no_grad()
def blank_rates(model: Transformer, batches: list, delete: int) -> dict:
    """How often the masked positions' argmax takes ``<delete>`` for content, and the reverse.

    ``false_delete``: of the positions whose target is a token of the middle, the share
    whose argmax is ``<delete>`` (the model blanking code out); ``missed_delete``: of the
    positions whose target is ``<delete>``, the share whose argmax is something else.
    """
    model.eval()
    false = content = missed = deletes = 0
    for b in batches:
        logits, _ = model(b.idx, mask=infill_mask(b.n_ctx, b.valid))
        guess = logits.argmax(-1)
        scored = b.targets != IGNORE
        is_delete = scored & (b.targets == delete)
        is_content = scored & ~is_delete
        false += int((is_content & (guess == delete)).sum())
        content += int(is_content.sum())
        missed += int((is_delete & (guess != delete)).sum())
        deletes += int(is_delete.sum())
    model.train()
    return {"false_delete": false / max(content, 1), "missed_delete": missed / max(deletes, 1)}
