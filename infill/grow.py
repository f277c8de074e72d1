"""Grow a trained model wider or deeper without changing what it computes.

The bundled model is small because two CPU cores can train only a small one, and after ~3B
tokens it has stopped improving (held-out CE flat within 0.005 over the last 100M): it is out
of capacity, not data. Training a bigger one from scratch would throw those tokens away, so a
bigger model starts as the small one grown: every new weight that writes into the residual
stream or the tied embedding starts at zero, every other new weight is random, so the grown
model's logits equal the old one's and training only has to learn what the new capacity adds.

Width keeps the head size (new dimensions arrive as new heads) and rescales each RMSNorm's
gain by sqrt(old / new): the new residual dimensions are zero, so the mean square over the
wider vector is the old one times old / new. Depth inserts a copy of each block after it with
its two output projections zeroed, so the copy starts as the identity but with features worth
training (a random block would have to find them first). Chosen for CPU latency too: on one
thread a 16-token denoising step of 6 layers × 384 takes 1.6× the shipped model's time, 12
layers × 256 (fewer parameters) 2.2× (session 35, bf16, 300 tokens of cached context).
"""

from __future__ import annotations

import math
from dataclasses import replace

import torch
from torch import Tensor

from .model import ModelConfig, Transformer

INIT_STD = 0.02  # new random weights, as ``Transformer`` draws its own


def grown_config(cfg: ModelConfig, d_model: int, n_layer: int) -> ModelConfig:
    """The shape ``cfg`` grows to; ValueError with one line if it can't grow that way."""
    head_dim = cfg.d_model // cfg.n_head
    if d_model < cfg.d_model or n_layer < cfg.n_layer:
        raise ValueError(f"can only grow: {cfg.n_layer} layers × {cfg.d_model} to "
                         f"{n_layer} × {d_model}")
    if d_model % head_dim:
        raise ValueError(f"width {d_model} is not a multiple of the head size {head_dim}")
    d_ff = max(cfg.d_ff, int(d_model * 8 / 3) // 16 * 16)
    return replace(cfg, d_model=d_model, n_layer=n_layer, n_head=d_model // head_dim, d_ff=d_ff)


@torch.no_grad()
def grow(model: Transformer, d_model: int, n_layer: int, seed: int = 0) -> Transformer:
    """A model of ``d_model`` × ``n_layer`` computing what ``model`` computes (fp32)."""
    old = model.cfg
    new_cfg = grown_config(old, d_model, n_layer)
    gen = torch.Generator().manual_seed(seed)
    src = {k: v.float() for k, v in model.state_dict().items()}
    wide = _widen(src, old, new_cfg, gen)
    out = Transformer(new_cfg)
    out.load_state_dict(_deepen(wide, old.n_layer, n_layer))
    return out


def shape_change(old: ModelConfig, to: tuple[int, int], tokens: int) -> dict:
    """The training record of a growth at ``tokens``: curves before and after it differ."""
    return {"tokens": tokens, "why": f"grown from {old.n_layer} layers × {old.d_model} to "
                                     f"{to[1]} × {to[0]}"}


def _widen(src: dict[str, Tensor], old: ModelConfig, new: ModelConfig, gen: torch.Generator
           ) -> dict[str, Tensor]:
    """``src`` at the new width (and d_ff), the layer count unchanged."""
    d0, d1, f0, f1 = old.d_model, new.d_model, old.d_ff, new.d_ff
    gain = math.sqrt(d0 / d1)

    def rand(*shape: int) -> Tensor:
        return torch.randn(*shape, generator=gen) * INIT_STD

    def place(w: Tensor, rows: int, cols: int, rows_zero: bool, cols_zero: bool) -> Tensor:
        """``w`` in the top-left of a (rows, cols) matrix; the rest random or zero.

        New rows that write into the residual stream must be zero (``rows_zero``), and new
        columns that read outputs the residual never sees yet (``cols_zero``): new heads and
        new hidden units. New columns reading new residual dimensions may be random, since
        those dimensions are zero; that makes them carry gradient from the first step.
        """
        r0, c0 = w.shape
        out = rand(rows, cols)
        out[:r0, :c0] = w
        if rows_zero:
            out[r0:] = 0.0
        if cols_zero:
            out[:, c0:] = 0.0
        return out

    dst: dict[str, Tensor] = {}
    for name, w in src.items():
        if name == "embed.weight":  # (V, d): input and the tied head; new dims read as zero
            dst[name] = torch.cat([w, w.new_zeros(w.shape[0], d1 - d0)], dim=1)
        elif name.endswith(("norm1.weight", "norm2.weight")) or name == "norm.weight":
            dst[name] = torch.cat([w * gain, w.new_full((d1 - d0,), gain)])
        elif name.endswith("attn.qkv.weight"):  # (3d, d): q, k, v, each d rows of heads
            dst[name] = torch.cat([place(part, d1, d1, False, False)
                                   for part in w.split(d0, dim=0)])
        elif name.endswith("attn.proj.weight"):  # (d, d): residual ← heads
            dst[name] = place(w, d1, d1, True, True)
        elif name.endswith("mlp.gate_up.weight"):  # (2 f, d): gate rows, then up rows
            dst[name] = torch.cat([place(part, f1, d1, False, False)
                                   for part in w.split(f0, dim=0)])
        elif name.endswith("mlp.down.weight"):  # (d, f): residual ← hidden units
            dst[name] = place(w, d1, f1, True, True)
        else:
            raise ValueError(f"grow: no rule for {name}")
    return dst


def _deepen(src: dict[str, Tensor], n0: int, n1: int) -> dict[str, Tensor]:
    """``src`` with ``n1 - n0`` blocks inserted, each a copy of the one below, outputs zeroed.

    The copies are spread evenly from the bottom: 6 → 9 copies blocks 0, 2 and 4, 6 → 12
    each block once.
    """
    extra = n1 - n0
    copies = [0] * n0
    for k in range(extra):
        copies[k * n0 // extra] += 1
    order: list[tuple[int, bool]] = []  # (source block, is a zeroed copy)
    for i in range(n0):
        order += [(i, False)] + [(i, True)] * copies[i]
    dst = {k: v for k, v in src.items() if not k.startswith("blocks.")}
    for j, (i, copy) in enumerate(order):
        for name, w in src.items():
            prefix = f"blocks.{i}."
            if name.startswith(prefix):
                zero = copy and name.endswith(("attn.proj.weight", "mlp.down.weight"))
                dst[f"blocks.{j}." + name[len(prefix):]] = torch.zeros_like(w) if zero \
                    else w.clone()
    return dst


__all__ = ["grow", "grown_config", "shape_change"]
