"""A denoiser that plays a fixed script through the real ``Denoiser`` interface.

The real model's choices can't be predicted, so mechanics that depend on what the model says
(growing and shrinking canvases, re-mask rounds) are driven by this instead.
"""

import torch

from remask.infill.denoiser import Context
from remask.infill.tokenizer import Tokenizer


class Scripted:
    """Predicts ``target`` left to right with high confidence; extra positions → <delete>,
    a short canvas → <expand> at its last masked position."""

    name = "scripted"

    def __init__(self, tokenizer: Tokenizer, target: list[int], conf: float = 0.99):
        self.tokenizer, self.target, self.conf = tokenizer, target, conf
        self.calls = 0

    def context(self, prefix, suffix, canvas_max):
        return Context(prefix, suffix)

    def logits(self, ctx, canvas, valid):
        self.calls += 1
        sp = self.tokenizer.special
        B, M = canvas.shape
        V = self.tokenizer.vocab_size
        out = torch.full((B, M, V), -20.0)
        for b in range(B):
            n = int(valid[b].sum())
            for j in range(n):
                short = j == n - 1 and n < len(self.target)
                if j < len(self.target):
                    want = sp.expand if short else self.target[j]
                else:
                    want = sp.delete
                out[b, j, want] = 20.0 * self.conf
        return out, B * M


class PerLength(Scripted):
    """A canvas of n tokens writes the text of ``lines`` that is n tokens long (one text per
    starting length: the engine lists shorter ones first where scores tie)."""

    def __init__(self, tokenizer, lines: list[str]):
        super().__init__(tokenizer, [])
        self.by_length = {len(ids): ids for ids in map(tokenizer.encode, lines)}
        assert len(self.by_length) == len(lines)

    def logits(self, ctx, canvas, valid):
        out = torch.full((*canvas.shape, self.tokenizer.vocab_size), -20.0)
        for b in range(canvas.shape[0]):
            ids = self.by_length.get(int(valid[b].sum()), [self.tokenizer.special.delete])
            out[b, torch.arange(len(ids)), torch.tensor(ids)] = 20.0
        return out, canvas.numel()
