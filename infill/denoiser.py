"""The narrow interface the sampler sees: logits for a batch of canvases, given a context.

Anything that can score masked positions — remask's own transformer, a transformers masked LM,
a dLLM with its own modeling code — stands behind :class:`Denoiser`; the sampler never learns
which. A :class:`Context` is prepared once per request, so a backend can cache the prefix and
suffix (remask's ``infill`` layout makes that cache exact).
"""

from __future__ import annotations

import json
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import torch
from torch import Tensor

from .data import fit_context
from .model import KVCache, Transformer, infill_mask, load_model
from .tokenizer import Tokenizer


@dataclass
class Context:
    """What a backend keeps about one request's prefix and suffix."""

    prefix: list[int]
    suffix: list[int]
    state: Any = None  # backend-specific, e.g. cached keys/values
    tokens_processed: int = 0  # context tokens run through the model when it was prepared


class Denoiser(Protocol):
    tokenizer: Tokenizer
    name: str

    def context(self, prefix: list[int], suffix: list[int], canvas_max: int) -> Context:
        """Prepare a request; the backend may drop far context to fit ``canvas_max`` tokens."""

    def logits(self, ctx: Context, canvas: Tensor, valid: Tensor) -> tuple[Tensor, int]:
        """Logits predicting every canvas position, and the token positions computed.

        Args:
            ctx: the request's prepared context.
            canvas: (B, M) token ids, the mask id where undecided.
            valid: (B, M) False at padding beyond a row's canvas.

        Returns:
            (B, M, V) logits and the number of positions the forward pass processed.
        """


class RemaskDenoiser:
    """remask's transformer in the ``infill`` layout, with an exact context cache.

    The context's keys and values depend only on its tokens, so the last few are kept: one
    request's re-mask rounds and candidate scoring reuse the fill's context instead of
    running it through the model again (a third of a quick fill's time).
    """

    recent = 4  # contexts kept; each is a few MB of keys and values

    def __init__(self, model: Transformer, tokenizer: Tokenizer, window: int = 320,
                 use_cache: bool = True, name: str = "remask") -> None:
        if model.cfg.attention != "infill":
            raise ValueError("this checkpoint was trained causally (AR); it is not a denoiser")
        self.model, self.tokenizer, self.window = model, tokenizer, window
        self.use_cache, self.name = use_cache, name
        self.sp = tokenizer.special
        self._kv: OrderedDict[tuple[tuple[int, ...], tuple[int, ...]], KVCache] = OrderedDict()

    def context(self, prefix: list[int], suffix: list[int], canvas_max: int) -> Context:
        p, s = fit_context(prefix, suffix, max(0, self.window - canvas_max - 3))
        ctx = Context(p, s)
        ids = torch.tensor([[self.sp.fim_prefix, *p, self.sp.fim_suffix, *s]])  # (1, Tc)
        if not self.use_cache:
            ctx.state = ids
            return ctx
        key = (tuple(p), tuple(s))
        if key in self._kv:
            self._kv.move_to_end(key)
            ctx.state = self._kv[key]  # never written to: a step concatenates new tensors
            return ctx
        # only the keys/values are wanted: no vocabulary projection (a fifth of the pass)
        _, kv = self.model(ids, causal=True, select=torch.zeros_like(ids, dtype=torch.bool))
        ctx.state, ctx.tokens_processed = kv, ids.shape[1]
        self._kv[key] = kv
        if len(self._kv) > self.recent:
            self._kv.popitem(last=False)
        return ctx

    def logits(self, ctx: Context, canvas: Tensor, valid: Tensor) -> tuple[Tensor, int]:
        B, M = canvas.shape
        mid = torch.full((B, 1), self.sp.fim_middle, dtype=torch.long)
        x = torch.cat([mid, canvas], dim=1)  # (B, M+1)
        xvalid = torch.cat([torch.ones(B, 1, dtype=torch.bool), valid], dim=1)
        if self.use_cache:
            kv: KVCache = ctx.state
            P = kv[0][0].shape[2]
            mask = None if bool(valid.all()) else torch.cat(  # no padding: attend to all
                [torch.ones(B, M + 1, P, dtype=torch.bool),
                 xvalid[:, None, :].expand(B, M + 1, M + 1)], dim=2)[:, None]
            out, _ = self.model(x, mask=mask, past=kv, pos=P)
            processed = B * (M + 1)
        else:
            ids = ctx.state.expand(B, -1)
            P = ids.shape[1]
            full = torch.cat([ids, x], dim=1)  # (B, P+M+1)
            fvalid = torch.cat([torch.ones(B, P, dtype=torch.bool), xvalid], dim=1)
            out, _ = self.model(full, mask=infill_mask(torch.full((B,), P), fvalid))
            out = out[:, P:]
            processed = B * (P + M + 1)
        # with shift, the logits at i predict the token at i+1: <fim_middle> predicts canvas[0]
        out = out[:, :-1] if self.model.cfg.shift else out[:, 1:]
        return out.float(), processed  # (B, M, V)


def training_window(directory: Path, default: int = 320) -> int:
    """The sequence length a bundle was trained on; RoPE positions past it were never seen."""
    info = directory / "training.json"
    if info.exists():
        return int(json.loads(info.read_text()).get("config", {}).get("data", {})
                   .get("block", default))
    return default


def load_denoiser(directory: Path, use_cache: bool = True,
                  dtype: torch.dtype = torch.float32) -> RemaskDenoiser:
    directory = Path(directory)
    model = load_model(directory, dtype=dtype)
    if not (directory / "tokenizer.json").is_file():
        raise ValueError(f"{directory / 'tokenizer.json'}: missing")
    tok = Tokenizer.load(directory)
    if tok.vocab_size != model.cfg.vocab_size:
        raise ValueError(f"{directory}: tokenizer has {tok.vocab_size} tokens, "
                         f"model {model.cfg.vocab_size}")
    return RemaskDenoiser(model, tok, training_window(directory), use_cache, directory.name)
