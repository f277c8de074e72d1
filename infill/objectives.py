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


def masked_ce(logits: Tensor, targets: Tensor) -> tuple[Tensor, Tensor]:
    """Summed CE and count over positions with a target (held-out evaluation)."""
    flat = logits.reshape(-1, logits.shape[-1]).float()
    ce = F.cross_entropy(flat, targets.flatten(), reduction="sum", ignore_index=IGNORE)
    return ce, (targets != IGNORE).sum()


__all__ = ["weighted_ce", "masked_ce"]
