"""A small pre-norm transformer (RoPE, SwiGLU, SDPA) that serves as AR model and denoiser.

One backbone, two attention layouts, so an autoregressive fill-in-the-middle checkpoint can be
adapted to masked diffusion without changing a weight's meaning:

* ``causal`` — plain left-to-right attention (AR-FIM pre-training and the AR baseline);
* ``infill`` — the context (``<fim_prefix> prefix <fim_suffix> suffix``) stays causal and never
  sees the canvas, while the canvas (``<fim_middle>`` and the span's tokens) attends to the whole
  context and to itself in both directions. Because the context cannot see the canvas, its keys
  and values are exact to cache across denoising steps: a step only computes canvas positions.

Weights are stored as ``config.json`` + ``model.safetensors``; nothing is ever unpickled.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

import torch
import torch.nn.functional as F
from safetensors.torch import load_file, save_file
from torch import Tensor, nn

KVCache = list[tuple[Tensor, Tensor]]


@dataclass(frozen=True)
class ModelConfig:
    vocab_size: int = 8192
    n_layer: int = 6
    n_head: int = 4
    d_model: int = 256
    d_ff: int = 688  # SwiGLU hidden width, ~8/3 of d_model
    max_len: int = 1024  # RoPE table size; training windows are shorter
    rope_theta: float = 10000.0
    shift: bool = True  # logits at position i predict token i+1, as the AR model was trained
    attention: str = "causal"  # "causal" (AR) or "infill" (diffusion) — how it was trained

    def __post_init__(self) -> None:
        if self.d_model % self.n_head:
            raise ValueError("d_model must be a multiple of n_head")
        if self.attention not in ("causal", "infill"):
            raise ValueError(f"unknown attention layout {self.attention!r}")


def _rope_tables(cfg: ModelConfig) -> tuple[Tensor, Tensor]:
    hd = cfg.d_model // cfg.n_head
    inv = 1.0 / cfg.rope_theta ** (torch.arange(0, hd, 2).float() / hd)
    ang = torch.outer(torch.arange(cfg.max_len).float(), inv)  # (L, hd/2)
    return ang.cos(), ang.sin()


def _apply_rope(x: Tensor, cos: Tensor, sin: Tensor) -> Tensor:
    # x: (B, H, T, hd); cos/sin: (T, hd/2), or (B, 1, T, hd/2) per row. Each interleaved
    # pair (x[2i], x[2i+1]) is rotated as the complex number x[2i] + j·x[2i+1]: one multiply
    # instead of a dozen small ops, which matters when a denoising step runs few tokens.
    pairs = torch.view_as_complex(x.float().unflatten(-1, (-1, 2)))  # (B, H, T, hd/2)
    turn = torch.complex(cos.float(), sin.float())  # (T, hd/2) or (B, 1, T, hd/2)
    return torch.view_as_real(pairs * turn).flatten(-2).type_as(x)


class Attention(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.n_head = cfg.n_head
        self.qkv = nn.Linear(cfg.d_model, 3 * cfg.d_model, bias=False)
        self.proj = nn.Linear(cfg.d_model, cfg.d_model, bias=False)

    def forward(self, x: Tensor, cos: Tensor, sin: Tensor, mask: Tensor | None, causal: bool,
                past: tuple[Tensor, Tensor] | None) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        q, k = _apply_rope(q, cos, sin), _apply_rope(k, cos, sin)  # (B, H, T, hd)
        if past is not None:
            pk, pv = past
            k = torch.cat([pk.expand(B, -1, -1, -1).to(k.dtype), k], dim=2)  # (B, H, P+T, hd)
            v = torch.cat([pv.expand(B, -1, -1, -1).to(v.dtype), v], dim=2)
            if causal and T > 1:
                P = k.shape[2] - T
                mask = torch.ones(T, P + T, dtype=torch.bool, device=x.device).tril(P)
            causal = False
        y = F.scaled_dot_product_attention(q, k, v, attn_mask=mask,
                                           is_causal=causal and mask is None)
        return self.proj(y.transpose(1, 2).reshape(B, T, C)), (k, v)


class MLP(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.gate_up = nn.Linear(cfg.d_model, 2 * cfg.d_ff, bias=False)
        self.down = nn.Linear(cfg.d_ff, cfg.d_model, bias=False)

    def forward(self, x: Tensor) -> Tensor:
        gate, up = self.gate_up(x).chunk(2, dim=-1)
        return self.down(F.silu(gate) * up)


class Block(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.norm1 = nn.RMSNorm(cfg.d_model)
        self.attn = Attention(cfg)
        self.norm2 = nn.RMSNorm(cfg.d_model)
        self.mlp = MLP(cfg)

    def forward(self, x, cos, sin, mask, causal, past):
        a, kv = self.attn(self.norm1(x), cos, sin, mask, causal, past)
        x = x + a
        return x + self.mlp(self.norm2(x)), kv


class Transformer(nn.Module):
    def __init__(self, cfg: ModelConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.embed = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.norm = nn.RMSNorm(cfg.d_model)
        cos, sin = _rope_tables(cfg)
        self.register_buffer("rope_cos", cos, persistent=False)
        self.register_buffer("rope_sin", sin, persistent=False)
        self.apply(self._init)
        for name, p in self.named_parameters():
            if name.endswith(("proj.weight", "down.weight")):
                nn.init.normal_(p, std=0.02 / math.sqrt(2 * cfg.n_layer))

    @staticmethod
    def _init(m: nn.Module) -> None:
        if isinstance(m, (nn.Linear, nn.Embedding)):
            nn.init.normal_(m.weight, std=0.02)

    def num_params(self) -> int:
        return sum(p.numel() for p in self.parameters())

    def forward(self, idx: Tensor, *, mask: Tensor | None = None, causal: bool = False,
                past: KVCache | None = None, pos: int | Tensor = 0,
                select: Tensor | None = None) -> tuple[Tensor, KVCache]:
        """Logits for ``idx`` and the keys/values it produced.

        Args:
            idx: (B, T) token ids at positions ``pos .. pos+T-1``.
            mask: optional (B, 1, T, T) boolean attention mask (True = may attend).
            causal: causal attention among ``idx`` (ignored when ``mask`` is given).
            past: per-layer (k, v) of earlier positions, each (1 or B, H, P, hd); every
                new position may attend to all of them.
            pos: absolute position of ``idx[:, 0]`` (RoPE), or (B, T) of each token (training
                lays several canvases at the same positions after one context).
            select: optional (B, T) bool; logits only where True (training skips the costly
                vocabulary projection at positions without a target).

        Returns:
            logits (B, T, V), or (N, V) with ``select``, and per-layer (k, v) with ``past``.
        """
        T = idx.shape[1]
        end = int(pos.max()) + 1 if isinstance(pos, Tensor) else pos + T
        if end > self.cfg.max_len:
            raise ValueError(f"sequence of {end} tokens exceeds max_len {self.cfg.max_len}")
        if isinstance(pos, Tensor):
            cos, sin = self.rope_cos[pos][:, None], self.rope_sin[pos][:, None]  # (B, 1, T, hd/2)
        else:
            cos, sin = self.rope_cos[pos:pos + T], self.rope_sin[pos:pos + T]
        x = self.embed(idx)  # (B, T, C)
        kvs = []
        for i, block in enumerate(self.blocks):
            x, kv = block(x, cos, sin, mask, causal, None if past is None else past[i])
            kvs.append(kv)
        x = self.norm(x if select is None else x[select])
        return F.linear(x, self.embed.weight), kvs  # tied head: (B, T, V) or (N, V)


def infill_mask(n_ctx: Tensor, valid: Tensor, segment: Tensor | None = None) -> Tensor:
    """The ``infill`` attention layout for a batch, as a boolean SDPA mask.

    Args:
        n_ctx: (B,) number of context tokens (they attend causally, never to the canvas).
        valid: (B, T) False at padding, which no position attends to.
        segment: optional (B, T), 0 in the context and k in the k-th of several canvases
            after it: each canvas sees the context and itself, never another canvas. Without
            it, everything from ``n_ctx`` on is one canvas.

    Returns:
        (B, 1, T, T) mask, True where query i may attend to key j.
    """
    T = valid.shape[1]
    ar = torch.arange(T, device=valid.device)
    causal = ar[None, :] <= ar[:, None]  # (T, T)
    if segment is None:
        segment = (ar[None, :] >= n_ctx[:, None]).long()  # (B, T)
    context = segment == 0
    same = (segment[:, :, None] == segment[:, None, :]) & ~context[:, :, None]  # (B, T, T)
    allowed = (causal[None] & context[:, None, :]) | same
    allowed = allowed & valid[:, None, :]
    allowed = allowed | torch.eye(T, dtype=torch.bool, device=valid.device)[None]
    return allowed[:, None]


def save_model(model: Transformer, directory: Path, dtype: torch.dtype = torch.float16) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    state = {k: v.detach().cpu().to(dtype).contiguous() for k, v in model.state_dict().items()}
    save_file(state, str(directory / "model.safetensors"))
    (directory / "config.json").write_text(json.dumps(asdict(model.cfg), indent=1) + "\n")


def load_config(directory: Path) -> ModelConfig:
    return ModelConfig(**json.loads((directory / "config.json").read_text()))


def load_model(directory: Path, device: str = "cpu", dtype: torch.dtype = torch.float32
               ) -> Transformer:
    """Load a remask checkpoint; raise ValueError with a one-line reason when it is unusable.

    ``dtype`` applies to the weights only: the RoPE tables stay fp32 (rounded to bf16, the
    angles of far positions would be off by several percent).
    """
    directory = Path(directory)
    cfg_path, weights = directory / "config.json", directory / "model.safetensors"
    for p in (cfg_path, weights):
        if not p.is_file():
            raise ValueError(f"{p}: missing")
    try:
        cfg = load_config(directory)
        model = Transformer(cfg)
    except (OSError, json.JSONDecodeError) as e:
        raise ValueError(f"{cfg_path}: unreadable ({e})") from None
    except (TypeError, ValueError, ArithmeticError, RuntimeError) as e:  # keys, sizes, types
        raise ValueError(f"{cfg_path}: no remask model fits it ({e})") from None
    try:
        state = load_file(str(weights), device=device)
    except OSError as e:
        raise ValueError(f"{weights}: unreadable ({e})") from None
    except Exception as e:  # safetensors raises its own error type for corrupt files
        raise ValueError(f"{weights}: corrupt safetensors file ({e})") from None
    expected = model.state_dict()
    for name, t in expected.items():
        if name not in state:
            raise ValueError(f"{weights}: missing tensor {name}")
        if state[name].shape != t.shape:
            raise ValueError(f"{weights}: {name} has shape {tuple(state[name].shape)}, "
                             f"config says {tuple(t.shape)}")
    model.load_state_dict({k: v.float() for k, v in state.items()}, strict=True)
    for p in model.parameters():
        p.data = p.data.to(dtype)
    return model.to(device).eval()
