"""Denoisers backed by ``transformers`` checkpoints in a local directory.

Two kinds of checkpoint stand behind the same :class:`~remask.infill.denoiser.Denoiser`:

* a masked LM (``AutoModelForMaskedLM``: BERT, RoBERTa, ModernBERT, ...), and
* a diffusion LM that ships its own modeling code through ``auto_map`` (LLaDA, Dream,
  Dream-Coder, DreamOn, DiffuCoder). Loading one runs Python from the checkpoint directory, so
  it happens only when the caller passes ``trust_remote_code``.

Both use the in-place layout ``head prefix <mask>*M suffix tail``, where ``head``/``tail`` are
whatever the tokenizer's own template wraps a sequence in (``[CLS]``/``[SEP]`` for BERT, ``<s>``
/``</s>`` for RoBERTa, a BOS or nothing for a dLLM). The canvas attends to the context and the
context to the canvas, so nothing can be cached: every step is one full forward pass.

The sampler needs ids for tokens these vocabularies lack (FIM markers, ``<expand>``,
``<delete>``, sometimes a pad or BOS). They get *virtual* ids just past the model's logits,
whose columns are always ``-inf``: the sampler can ban and compare them like any other id, but
the model can never propose one. Without a real ``<expand>``/``<delete>`` the canvas cannot
grow or shrink, so each candidate keeps its initial length (``SamplerConfig.init_length``,
doubled per candidate) and a span's length is only as right as that guess. A vocabulary that
has ``<|expand|>`` and ``<|delete|>`` (DreamOn) gets them used for real.
"""

from __future__ import annotations

import functools
import importlib.util
import json
from collections import defaultdict
from dataclasses import fields
from pathlib import Path
from typing import Any

import torch
from torch import Tensor

from .data import fit_context
from .denoiser import Context
from .tokenizer import SpecialIds, ids_with_line_break

MASKED_LM, REMOTE_CODE = "masked-lm", "remote-code"
# Context plus canvas per forward pass. Nothing is cached, so each step re-reads the whole
# window; past ~2k tokens a step costs more than a user waits for an edit.
MAX_WINDOW = 2048
# Families whose logits at position i predict token i+1 (kept from the AR model they were
# adapted from): Dream and the checkpoints built on its modeling code (model_type "Dream").
SHIFTED_MODEL_TYPES = frozenset({"dream"})
# Tokens the sampler uses, looked up by name in the vocabulary; missing ones become virtual.
NAMED_TOKENS = {"fim_prefix": "<|fim_prefix|>", "fim_suffix": "<|fim_suffix|>",
                "fim_middle": "<|fim_middle|>", "expand": "<|expand|>", "delete": "<|delete|>"}


def checkpoint_kind(config: dict[str, Any]) -> str | None:
    """Which transformers loader a ``config.json`` needs; None for remask's own format."""
    if "attention" in config:
        return None
    if "auto_map" in config:
        return REMOTE_CODE
    if "model_type" in config:
        return MASKED_LM
    return None


def mask_token_id(config: Any, tok: Any, where: Path) -> int:
    """Return the mask id from ``config.json`` or the tokenizer; both present must agree."""
    from_config = getattr(config, "mask_token_id", None)
    from_tok = tok.mask_token_id
    if from_config is not None and from_tok is not None and from_config != from_tok:
        raise ValueError(f"{where}: config.json says mask_token_id {from_config}, the tokenizer "
                         f"says {from_tok}; fix one of them")
    mask = from_config if from_config is not None else from_tok
    if mask is None:
        raise ValueError(f"{where}: no mask token (neither config.json's mask_token_id nor the "
                         "tokenizer's mask_token); this model can't denoise")
    return int(mask)


class HFTokenizer:
    """What the sampler and engine need from a tokenizer, over a fast HF tokenizer.

    Args:
        tok: a ``transformers`` tokenizer backed by ``tokenizers`` (a ``tokenizer.json``).
        mask: the mask id (see :func:`mask_token_id`).
        n_logits: the width of the model's logits; virtual ids start here.

    """

    def __init__(self, tok: Any, mask: int, n_logits: int) -> None:
        self.hf = tok
        self.backend = tok.backend_tokenizer
        vocab = tok.get_vocab()
        known: dict[str, int | None] = {
            "mask": mask, "pad": tok.pad_token_id,
            "bos": tok.bos_token_id if tok.bos_token_id is not None else tok.cls_token_id,
            "eos": tok.eos_token_id if tok.eos_token_id is not None else tok.sep_token_id,
            **{k: vocab.get(name) for k, name in NAMED_TOKENS.items()}}
        self.n_real = max(n_logits, len(tok))
        ids, virtual = {}, []
        for f in fields(SpecialIds):
            if known.get(f.name) is None:
                ids[f.name] = self.n_real + len(virtual)
                virtual.append(ids[f.name])
            else:
                ids[f.name] = int(known[f.name])
        self.special, self.n_virtual = SpecialIds(**ids), len(virtual)
        usable = {self.special.expand, self.special.delete} - set(virtual)
        # never proposed: virtual ids, the tokenizer's own specials, embedding rows it can't decode
        self.banned = sorted((set(tok.all_special_ids) | set(virtual) | {mask}
                              | set(range(len(tok), self.n_real))) - usable)
        self._special = frozenset(self.banned) | set(self.special.all())

    @property
    def vocab_size(self) -> int:
        """Logit columns the denoiser returns: the model's, then the virtual ids."""
        return self.n_real + self.n_virtual

    def encode(self, text: str) -> list[int]:
        """Encode text only: a literal "[MASK]" or "<|mask|>" in a file is never a mask."""
        if not text:
            return []
        self.backend.encode_special_tokens = True  # transformers resets it on each of its calls
        return self.backend.encode(text, add_special_tokens=False).ids

    def decode(self, ids: list[int]) -> str:
        """Decode, dropping special and virtual ids (they are not text)."""
        kept = [i for i in ids if i not in self._special]
        return self.backend.decode(kept, skip_special_tokens=False) if kept else ""

    def is_special(self, token_id: int) -> bool:
        return token_id in self._special

    @functools.cached_property
    def line_break_ids(self) -> list[int]:
        return ids_with_line_break(self)

    def frame(self) -> tuple[list[int], list[int]]:
        """Return the ids the tokenizer's template puts before and after a sequence."""
        bare = self.hf.encode("a", add_special_tokens=False)
        full = self.hf.encode("a", add_special_tokens=True)
        for i in range(len(full) - len(bare) + 1):
            if full[i:i + len(bare)] == bare:
                return full[:i], full[i + len(bare):]
        raise ValueError("cannot tell which tokens the tokenizer's template adds")


class HFDenoiser:
    """A transformers model denoising the canvas in place between prefix and suffix.

    Args:
        model: returns an output with ``.logits`` (b, T, V) for ``input_ids`` (b, T).
        shift: logits at i predict token i+1 (Dream); otherwise token i (BERT, LLaDA).
        padded_batches: rows of different lengths share a forward pass, padded and masked
            through ``attention_mask`` (masked LMs). Remote code reads that argument its own
            way (Dream hands it to SDPA as a 4-D mask), so there no mask is passed and rows are
            batched only with rows of the same length.

    """

    def __init__(self, model: Any, tokenizer: HFTokenizer, *, shift: bool, window: int,
                 padded_batches: bool, name: str) -> None:
        self.model, self.tokenizer, self.shift, self.window = model, tokenizer, shift, window
        self.padded_batches, self.name = padded_batches, name
        self.head, self.tail = tokenizer.frame()
        sp = tokenizer.special
        self.pad = sp.pad if sp.pad < tokenizer.n_real else sp.mask  # attention hides it anyway
        self.device = next(model.parameters()).device

    def context(self, prefix: list[int], suffix: list[int], canvas_max: int) -> Context:
        budget = self.window - canvas_max - len(self.head) - len(self.tail)
        if budget < 0:
            raise ValueError(f"a {canvas_max}-token canvas does not fit this model's "
                             f"{self.window}-token window")
        return Context(*fit_context(prefix, suffix, budget))

    @torch.no_grad()
    def logits(self, ctx: Context, canvas: Tensor, valid: Tensor) -> tuple[Tensor, int]:
        """Logits for each row's canvas (``valid`` must be a prefix of each row)."""
        B, M = canvas.shape
        n = valid.sum(1).tolist()
        rows = [self.head + ctx.prefix + canvas[i, :n[i]].tolist() + ctx.suffix + self.tail
                for i in range(B)]
        start = len(self.head) + len(ctx.prefix)
        out = torch.zeros(B, M, self.tokenizer.vocab_size)  # (B, M, V+virtual)
        processed = 0
        for group in self._groups(n):
            T = max(len(rows[i]) for i in group)
            ids = torch.full((len(group), T), self.pad, dtype=torch.long)  # (b, T)
            attn = torch.zeros(len(group), T, dtype=torch.long)  # (b, T)
            for k, i in enumerate(group):
                ids[k, :len(rows[i])], attn[k, :len(rows[i])] = torch.tensor(rows[i]), 1
            kwargs = {"attention_mask": attn.to(self.device)} if self.padded_batches else {}
            logits = self.model(input_ids=ids.to(self.device), **kwargs).logits  # (b, T, W)
            if self.shift:  # position i-1 predicts token i
                logits = torch.cat([logits[:, :1], logits[:, :-1]], dim=1)
            W = min(logits.shape[-1], self.tokenizer.n_real)
            for k, i in enumerate(group):
                out[i, :n[i], :W] = logits[k, start:start + n[i], :W].float().cpu()
            out[:, :, W:] = -torch.inf  # ids past the model's logits: never proposed
            processed += len(group) * T
        out[..., self.tokenizer.banned] = -torch.inf
        return out, processed

    def _groups(self, lengths: list[int]) -> list[list[int]]:
        if self.padded_batches:
            return [list(range(len(lengths)))]
        by_len: dict[int, list[int]] = defaultdict(list)
        for i, m in enumerate(lengths):
            by_len[m].append(i)
        return list(by_len.values())


def pick_device(name: str | None) -> torch.device:
    """Return the requested device, else the GPU when there is one, else the CPU."""
    if name is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cuda" and not torch.cuda.is_available():
        raise ValueError("--device cuda: this torch sees no CUDA device")
    if name == "mps" and not torch.backends.mps.is_available():
        raise ValueError("--device mps: this torch sees no Apple GPU")
    if name not in ("cpu", "cuda", "mps"):
        raise ValueError(f"--device {name}: expected cpu, cuda or mps")
    return torch.device(name)


def pick_dtype(device: torch.device) -> torch.dtype:
    """bf16 on accelerators that support it (half the memory of fp32); fp32 elsewhere."""
    if device.type == "cuda":
        return torch.bfloat16 if torch.cuda.is_bf16_supported() else torch.float32
    if device.type == "mps":
        try:
            torch.ones(1, dtype=torch.bfloat16, device=device)
            return torch.bfloat16
        except (RuntimeError, TypeError):
            return torch.float32
    return torch.float32


def _dtype_arg(version: str, device: torch.device) -> dict[str, torch.dtype]:
    """``from_pretrained``'s dtype keyword: ``dtype`` since 4.56, ``torch_dtype`` before.

    dLLM checkpoints often pin an older transformers (Dream: 4.46), where ``dtype`` would be
    silently ignored and an 8B model loaded in fp32, twice the memory.
    """
    major, minor = (int(x) for x in version.split(".")[:2])
    return {"dtype" if (major, minor) >= (4, 56) else "torch_dtype": pick_dtype(device)}


def _window(config: Any, tok: Any) -> int:
    """Positions the model can take: the least of the tokenizer's and the config's limits."""
    limits = [tok.model_max_length] if 0 < tok.model_max_length < 1_000_000 else []
    limits += [v for k in ("max_position_embeddings", "max_sequence_length", "n_positions")
               if isinstance(v := getattr(config, k, None), int)]
    return min([*limits, MAX_WINDOW])


def _model_class(kind: str, auto_map: dict[str, str]) -> Any:
    import transformers

    if kind == MASKED_LM:
        return transformers.AutoModelForMaskedLM
    for name in ("AutoModelForMaskedLM", "AutoModel", "AutoModelForCausalLM"):
        if name in auto_map:
            return getattr(transformers, name)
    raise ValueError(f"auto_map names none of AutoModelForMaskedLM, AutoModel, "
                     f"AutoModelForCausalLM ({', '.join(auto_map)})")


def load_hf_denoiser(directory: Path, kind: str, device: str | None = None,
                     trust_remote_code: bool = False) -> HFDenoiser:
    """Load a transformers checkpoint from ``directory`` (never from the network).

    Raises ValueError with a one-line reason: remote code without ``trust_remote_code``,
    pickle-only weights, no mask token, a device this machine lacks.
    """
    raw = json.loads((directory / "config.json").read_text())
    if kind == REMOTE_CODE and not trust_remote_code:
        files = sorted({v.split(".")[0] + ".py" for v in raw["auto_map"].values()
                        if isinstance(v, str)})
        raise ValueError(f"{directory} ships its own modeling code ({', '.join(files)}); loading "
                         "it runs that Python, so remask does it only with --trust-remote-code")
    if not any(directory.glob("*.safetensors")):
        pickled = [p.name for p in directory.glob("*.bin")]
        raise ValueError(f"{directory}: no .safetensors weights"
                         + (f" (only pickle: {', '.join(pickled)}); remask never unpickles "
                            "weights, convert them to safetensors first" if pickled else ""))
    try:
        import transformers
    except ImportError:
        raise ValueError("transformers checkpoints need `pip install remask[hf]`") from None
    transformers.logging.set_verbosity_error()
    transformers.utils.logging.disable_progress_bar()
    dev = pick_device(device)
    common = {"local_files_only": True, "trust_remote_code": trust_remote_code}
    # with accelerate, weights go straight to the device; without, they pass through CPU memory
    placed = {"device_map": str(dev)} if importlib.util.find_spec("accelerate") else {}
    try:
        tok = transformers.AutoTokenizer.from_pretrained(directory, **common)
        model = _model_class(kind, raw.get("auto_map", {})).from_pretrained(
            directory, use_safetensors=True, **_dtype_arg(transformers.__version__, dev),
            **common, **placed)
    except Exception as e:  # foreign modeling code may raise anything
        raise ValueError(f"{directory}: {type(e).__name__}: {str(e).splitlines()[0]}") from None
    if not getattr(tok, "is_fast", False) or getattr(tok, "backend_tokenizer", None) is None:
        raise ValueError(f"{directory}: remask needs a fast tokenizer (tokenizer.json)")
    model.to(dev).eval()
    # LLaDA's config names its (padded) embedding rows embedding_size, the others vocab_size
    n_logits = max(getattr(model.config, k, 0) or 0 for k in ("vocab_size", "embedding_size"))
    tokenizer = HFTokenizer(tok, mask_token_id(model.config, tok, directory), n_logits)
    model_type = str(getattr(model.config, "model_type", "")).lower()
    return HFDenoiser(model, tokenizer, shift=model_type in SHIFTED_MODEL_TYPES,
                      window=_window(model.config, tok), padded_batches=kind == MASKED_LM,
                      name=directory.name)
