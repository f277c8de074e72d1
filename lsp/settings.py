"""The server's settings, from ``initializationOptions`` and ``workspace/didChangeConfiguration``.

Clients send them as JSON objects with camelCase keys, either flat or under a ``"remask"`` key
(VS Code and Neovim both nest per-server settings that way). A bad value never stops the server:
it keeps the value it had and reports one line per problem, which the server shows the user.

initializationOptions apply over the defaults. A didChangeConfiguration that carries settings
replaces the section, as VS Code sends it (the whole ``remask`` section each time): a key it
leaves out goes back to its initializationOptions value, else its default, so a setting the
user removed does not live on. One that carries none (null: a client that expects to be asked
with workspace/configuration, which the server does not do) changes nothing.

Keys: ``model`` (directory; null for the bundled model), ``debounceMs``, ``commitThreshold``
(0–1], ``lineCommitThreshold`` (0–1], for one-line holes such as inline completions),
``spanCap`` (characters), ``candidates``, ``holeSamples`` (rows drawn beside the argmax rows for
a hole on lines of its own, 0–64), ``kinds`` (any of repair, rename, signature, hole,
dangling), ``progressDelayMs`` (how long a job runs before it shows work-done progress).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields, replace
from typing import Any

from remask.diffing.canvas import HOLE_SAMPLES
from remask.diffing.rewriter import RewriterConfig
from remask.infill.sampler import SamplerConfig

KINDS = frozenset({"repair", "rename", "signature", "hole", "dangling"})


@dataclass(frozen=True)
class Settings:
    model: str | None = None  # model directory; None: the bundled model (or --model)
    debounce_ms: int = 50  # quiet time after a change before spans are mapped and denoised
    commit_threshold: float = 0.9  # the sampler commits every masked token this confident
    line_commit_threshold: float = 0.5  # the same for one-line holes (RewriterConfig says why)
    span_cap: int = 600  # characters denoised per edit (what the edit determines goes past it)
    candidates: int = 1  # canvases denoised per span
    hole_samples: int = HOLE_SAMPLES  # drawn rows for a hole filled on request (0: none)
    kinds: frozenset[str] = field(default=KINDS)  # which proposal kinds are on
    progress_delay_ms: int = 200  # quick fills, most of typing, show no progress at all

    def merge(self, raw: Any, absent: Settings | None = None) -> tuple[Settings, list[str]]:
        """Apply a client's settings object; returns the new settings and one line per problem.

        A key ``raw`` leaves out takes its value from ``absent``: ``self`` by default (a
        merge), the initial settings for a section that replaces the old one. A bad value
        keeps the one in ``self``, whichever: the user mistyped, and what ran stays.
        """
        if raw is None or raw == []:  # an empty Lua table arrives as a JSON list
            return self, []
        if not isinstance(raw, dict):
            return self, [f"settings must be an object, got {type(raw).__name__}"]
        raw = raw.get("remask", raw) if isinstance(raw.get("remask"), dict) else raw
        changes: dict[str, Any] = {}
        problems: list[str] = []
        for f in fields(self):
            key = _camel(f.name)
            if key not in raw:
                continue
            try:
                changes[f.name] = _PARSERS[f.name](raw[key])
            except Exception as e:  # a value no parser foresaw is still just a bad value
                changes[f.name] = getattr(self, f.name)
                problems.append(f"setting '{key}': {_reason(e)}; "
                                f"keeping {_show(getattr(self, f.name))}")
        return replace(self if absent is None else absent, **changes), problems

    def rewriter_config(self, sampler: SamplerConfig) -> RewriterConfig:
        """Build the Rewriter's config for these settings over the engine's own sampler config."""
        return RewriterConfig(candidates=self.candidates, span_cap=self.span_cap,
                              kinds=self.kinds, line_threshold=self.line_commit_threshold,
                              hole_samples=self.hole_samples,
                              sampler=replace(sampler, threshold=self.commit_threshold))


def _reason(e: Exception) -> str:
    """One line: a message of the parsers' own, else the exception's type and first line."""
    if isinstance(e, TypeError | ValueError) and str(e):
        return str(e).splitlines()[0]
    return f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else 'bad value'}"


def _show(value: Any) -> str:
    return ", ".join(sorted(value)) if isinstance(value, frozenset) else repr(value)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(w.capitalize() for w in rest)


def _model(v: Any) -> str | None:
    if v is None or v == "":
        return None
    if not isinstance(v, str):
        raise TypeError("must be a directory path")
    return v


def _int_in(lo: int, hi: int):
    def parse(v: Any) -> int:
        # JSON's 1e999 reads as inf (and NaN is accepted): int() of either raises
        if isinstance(v, bool) or not isinstance(v, int | float) or (
                isinstance(v, float) and not math.isfinite(v)) or int(v) != v:
            raise TypeError("must be a whole number")
        if not lo <= v <= hi:
            raise ValueError(f"must be between {lo} and {hi}")
        return int(v)
    return parse


def _threshold(v: Any) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or v != v:  # NaN
        raise TypeError("must be a number")
    if not 0.0 < v <= 1.0:
        raise ValueError("must be in (0, 1]")
    return float(v)


def _kinds(v: Any) -> frozenset[str]:
    if not isinstance(v, list) or not all(isinstance(k, str) for k in v):
        raise TypeError("must be a list of names")
    unknown = sorted(set(v) - KINDS)
    if unknown:
        raise ValueError(f"unknown kinds {', '.join(unknown)} (known: {', '.join(sorted(KINDS))})")
    return frozenset(v)


_PARSERS = {"model": _model, "debounce_ms": _int_in(0, 10_000),
            "progress_delay_ms": _int_in(0, 60_000),
            "commit_threshold": _threshold, "line_commit_threshold": _threshold,
            "span_cap": _int_in(1, 100_000),
            "candidates": _int_in(1, 16), "hole_samples": _int_in(0, 64), "kinds": _kinds}
