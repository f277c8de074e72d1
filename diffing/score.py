"""The model's score for a candidate text at a span: how the Rewriter ranks its candidates.

A candidate may come from the model's own denoising or be mechanical (the new name the user
typed, an argument list updated for a new signature); both are scored the same way so one
ranking covers them: every token of the candidate is masked at once and the denoiser's mean
log-probability of the candidate's tokens is the score (one forward pass for all candidates).
"""

from __future__ import annotations

import torch

from remask.infill.engine import Engine


@torch.no_grad()
def score_middles(engine: Engine, prefix: str, suffix: str, middles: list[str]) -> list[float]:
    """Return the mean token log-probability of each middle between ``prefix`` and ``suffix``.

    An empty middle is scored as one ``<delete>`` token. The AR baseline has no masked
    scoring, so every candidate scores 0.0 there and the ranking falls back to order.
    """
    if not engine.is_diffusion or not middles:
        return [0.0] * len(middles)
    tok, sp = engine.tokenizer, engine.tokenizer.special
    rows = [tok.encode(m) or [sp.delete] for m in middles]
    M = max(len(r) for r in rows)
    ctx = engine.backend.context(tok.encode(prefix), tok.encode(suffix), M)
    canvas = torch.full((len(rows), M), sp.delete, dtype=torch.long)  # (B, M)
    valid = torch.zeros(len(rows), M, dtype=torch.bool)  # (B, M)
    target = torch.full((len(rows), M), sp.delete, dtype=torch.long)  # (B, M)
    for i, r in enumerate(rows):
        canvas[i, :len(r)], valid[i, :len(r)] = sp.mask, True
        target[i, :len(r)] = torch.tensor(r)
    logits, _ = engine.backend.logits(ctx, canvas, valid)  # (B, M, V)
    logp = torch.log_softmax(logits, dim=-1).gather(-1, target[..., None])[..., 0]  # (B, M)
    return [float(logp[i, :len(r)].mean()) for i, r in enumerate(rows)]
