"""The Rewriter's settings: one frozen dataclass each front end fills from its own options."""

from __future__ import annotations

from dataclasses import dataclass, field

from remask.infill.sampler import SamplerConfig

from .canvas import HOLE_SAMPLES
from .spans import KINDS


@dataclass(frozen=True)
class RewriterConfig:
    marker: str = "???"
    candidates: int = 1  # canvases denoised as one batch per span
    rounds: int = 2  # re-mask-and-denoise rounds for positions inside new errors
    # Commit confidence for one-line holes (None: the sampler's). One-line fills run on a
    # budget of a few steps (canvas.LINE_STEPS), so a higher threshold costs no more time;
    # measured on the 2,254M-token bundle, 1,033 half-typed HumanEval lines filled as inline
    # completion fills them: pass@1 9.1% / 10.3% / 9.7% at 0.1 / 0.5 / 0.9, the same CPU-s.
    line_threshold: float | None = 0.5
    # Re-mask rounds for one-line holes (None: ``rounds``): inline completions, asked at
    # every pause in typing. Measured on 400 HumanEval lines half typed, the rest filled as
    # inline completion does (6 steps, broken candidates closed mechanically, rounds
    # batched): 0 / 1 / 2 rounds pass 6.5% / 7.75% / 7.75%, fill p95 253 / 303 / 379 ms.
    line_rounds: int | None = 1
    # Rows drawn beside the argmax rows for a hole (canvas.py says why); a quick ``fill_at``
    # (an inline completion nobody asked for) draws none.
    hole_samples: int = HOLE_SAMPLES
    sampler: SamplerConfig = field(default_factory=SamplerConfig)
    kinds: frozenset[str] = frozenset(KINDS)
    span_cap: int = 600  # max characters re-denoised for one edit
    verify: str | None = None  # shell command on a temp copy; first passing candidate wins
    verify_tries: int = 32  # at most this many runs of it for one ``fill_holes``
