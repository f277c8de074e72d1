"""Training batches made in worker processes, for machines whose accelerator outruns a core.

``make_batch`` costs about a millisecond an example on one core, while a GPU step of a
few-million-parameter model takes thousands of examples a second, so a GPU run makes its
batches in a DataLoader's workers (forked: the corpus bytes are shared, not copied). Each
worker draws from its own generator seeded by (seed, rank, worker, first step): a run is
reproducible for a given worker count, and a resumed run draws fresh examples. With no workers
the caller's generator makes every batch in-process, which keeps CPU runs bit-exact on resume.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import fields

import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info

from .corpus import Corpus
from .data import Batch, DataConfig, make_batch
from .tokenizer import Tokenizer


class _Batches(IterableDataset):
    def __init__(self, corpus: Corpus, tok: Tokenizer, cfg: DataConfig, objective: str,
                 shift: bool, batch: int, seed: list[int]) -> None:
        self.corpus, self.tok, self.cfg = corpus, tok, cfg
        self.objective, self.shift, self.batch, self.seed = objective, shift, batch, seed

    def __iter__(self) -> Iterator[tuple[torch.Tensor, ...]]:
        info = get_worker_info()
        rng = np.random.default_rng([*self.seed, info.id if info else 0])
        while True:
            docs = [self.corpus.sample(rng) for _ in range(self.batch)]
            b = make_batch(docs, self.tok, self.cfg, rng, self.objective, self.shift)
            yield tuple(getattr(b, f.name) for f in fields(b))


def batch_stream(corpus: Corpus, tok: Tokenizer, cfg: DataConfig, objective: str, shift: bool,
                 batch: int, rng: np.random.Generator, workers: int, seed: list[int],
                 device: torch.device) -> Iterator[Batch]:
    """Endless training batches on ``device``; ``rng`` is used only when ``workers`` is 0."""
    if workers == 0:
        while True:
            docs = [corpus.sample(rng) for _ in range(batch)]
            yield to_device(make_batch(docs, tok, cfg, rng, objective, shift), device)
    # the Rust tokenizer's own thread pool must not be inherited across fork
    os.environ["TOKENIZERS_PARALLELISM"] = "false"
    loader = DataLoader(_Batches(corpus, tok, cfg, objective, shift, batch, seed),
                        batch_size=None, num_workers=workers, prefetch_factor=4,
                        pin_memory=device.type == "cuda", multiprocessing_context="fork")
    for tensors in loader:
        yield to_device(Batch(*tensors), device)


def to_device(b: Batch, device: torch.device) -> Batch:
    if device.type == "cpu":
        return b
    return Batch(*(getattr(b, f.name).to(device, non_blocking=True) for f in fields(b)))
