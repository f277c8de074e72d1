"""Byte-level BPE tokenizer with the special tokens the infill scheme needs.

Special tokens are never produced from text: ``encode_special_tokens`` makes a
literal ``<|mask|>`` in a source file encode as ordinary bytes, so decode(encode(x))
== x for every input and a file can't inject control tokens into the model.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tokenizers import Tokenizer as HFTokenizer
from tokenizers import decoders, models, pre_tokenizers, trainers

SPECIAL_TOKENS = (
    "<|pad|>",
    "<|bos|>",
    "<|eos|>",
    "<|mask|>",
    "<|fim_prefix|>",
    "<|fim_suffix|>",
    "<|fim_middle|>",
    "<|expand|>",
    "<|delete|>",
)


@dataclass(frozen=True)
class SpecialIds:
    """Token ids of the special tokens, read from the tokenizer file, never hard-coded."""

    pad: int
    bos: int
    eos: int
    mask: int
    fim_prefix: int
    fim_suffix: int
    fim_middle: int
    expand: int
    delete: int

    def all(self) -> tuple[int, ...]:
        return tuple(getattr(self, name) for name in self.__dataclass_fields__)


class Tokenizer:
    """A thin wrapper over a HF ``tokenizers`` BPE model with exact byte round trips."""

    def __init__(self, hf: HFTokenizer) -> None:
        self.hf = hf
        self.hf.encode_special_tokens = True
        ids = {}
        for tok in SPECIAL_TOKENS:
            tid = hf.token_to_id(tok)
            if tid is None:
                raise ValueError(f"tokenizer lacks special token {tok}")
            ids[tok.strip("<|>")] = tid
        self.special = SpecialIds(**ids)
        self._special_set = frozenset(self.special.all())

    @property
    def vocab_size(self) -> int:
        return self.hf.get_vocab_size()

    @classmethod
    def load(cls, path: str | Path) -> Tokenizer:
        path = Path(path)
        if path.is_dir():
            path = path / "tokenizer.json"
        try:
            hf = HFTokenizer.from_file(str(path))
        except Exception as e:  # the tokenizers library raises bare Exceptions
            raise ValueError(f"{path}: not a tokenizer file ({e})") from None
        return cls(hf)

    def save(self, path: str | Path) -> None:
        self.hf.save(str(path))

    def encode(self, text: str) -> list[int]:
        if not text:
            return []
        return self.hf.encode(text, add_special_tokens=False).ids

    def encode_batch(self, texts: list[str]) -> list[list[int]]:
        out = self.hf.encode_batch(texts, add_special_tokens=False)
        return [e.ids if t else [] for e, t in zip(out, texts, strict=True)]

    def decode(self, ids: Iterable[int]) -> str:
        """Decode, dropping special tokens (an end or delete token inside a span is not text)."""
        kept = [i for i in ids if i not in self._special_set]
        return self.hf.decode(kept, skip_special_tokens=False) if kept else ""

    def encode_span(self, prefix: str, middle: str, suffix: str) -> tuple[list[int], ...]:
        """Tokenize the three parts apart so the span starts and ends on the caller's offsets."""
        p, m, s = self.encode_batch([prefix, middle, suffix])
        return p, m, s

    def is_special(self, token_id: int) -> bool:
        return token_id in self._special_set

    @functools.cached_property
    def line_break_ids(self) -> list[int]:
        return ids_with_line_break(self)


def ids_with_line_break(tok: Tokenizer) -> list[int]:
    """Ids of the ordinary tokens whose text holds a line break (banned in one-line fills)."""
    return [i for i in range(tok.vocab_size)
            if not tok.is_special(i) and any(c in tok.decode([i]) for c in "\r\n")]


def train_tokenizer(texts: Iterator[str], vocab_size: int) -> Tokenizer:
    """Train a byte-level BPE on ``texts`` (the training corpus) with our special tokens."""
    hf = HFTokenizer(models.BPE())
    hf.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    hf.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=vocab_size,
        special_tokens=list(SPECIAL_TOKENS),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    hf.train_from_iterator(texts, trainer=trainer)
    return Tokenizer(hf)
