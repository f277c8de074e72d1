"""Training losses as small pure functions (testable on a tiny vocabulary)."""

from __future__ import annotations

import torch.nn.functional as F
from torch import Tensor

from .data import IGNORE


def weighted_ce(logits: Tensor, targets: Tensor, weights: Tensor, denom: Tensor) -> Tensor:
    """Return sum(weight * CE) / sum(denom).

    That is the token-mean CE for AR and the 1/t-weighted MDLM/LLaDA bound per canvas token for
    diffusion.

    Args:
        logits: (B, T, V), or (N, V) for the N positions that have a target.
        targets: (B, T) target ids, IGNORE where there is none.
        weights: (B, T) per-target weight (1 for AR, 1/t on masked positions for diffusion).
        denom: (B,) per-example normaliser (target count for AR, canvas length for diffusion).
    """
    flat = logits.reshape(-1, logits.shape[-1]).float()
    ce = F.cross_entropy(flat, targets.flatten(), reduction="none", ignore_index=IGNORE)  # (B*T,)
    return (ce * weights.flatten()).sum() / denom.sum().clamp_min(1.0)


HEAD_ROWS = 256  # the output head's row count in training is a multiple of this


def loss_positions(targets: Tensor, multiple: int = HEAD_ROWS) -> Tensor:
    """(B, T) bool: the positions that have a target, plus untargeted ones to a ``multiple``.

    Training computes the output head only where the loss reads it, and that count differs
    every step. On a CPU, memory grows with the shapes a matmul has met — oneDNN caches a
    primitive per shape, the heap keeps blocks of each size — so a run grew by gigabytes an
    hour (session 33: a bf16 4,096-wide head over 3,000–7,000 rows, 600 steps, 0.3 → 3.2 GB
    resident; 0.8 GB with oneDNN's cache off; rounded up to 256 rows, flat at 0.4 GB). The
    added positions carry ``IGNORE``: the loss is the same.
    """
    select = targets != IGNORE
    extra = -int(select.sum()) % multiple
    if extra:
        free = (~select).flatten().nonzero().squeeze(1)[:extra]
        select.view(-1)[free] = True
    return select


def masked_ce(logits: Tensor, targets: Tensor) -> tuple[Tensor, Tensor]:
    """Summed CE and count over positions with a target (held-out evaluation)."""
    flat = logits.reshape(-1, logits.shape[-1]).float()
    ce = F.cross_entropy(flat, targets.flatten(), reduction="sum", ignore_index=IGNORE)
    return ce, (targets != IGNORE).sum()


__all__ = ["HEAD_ROWS", "loss_positions", "masked_ce", "weighted_ce"]
