"""Helpers shared by the commands: model loading with one-line errors, diffs."""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path

from remask.infill.engine import Engine, load_engine
from remask.infill.sampler import SamplerConfig


class UsageError(Exception):
    """Bad input: the command prints the message as one line and exits 2."""


def add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", type=Path, default=None,
                   help="model directory (default: the bundled model)")
    p.add_argument("--threshold", type=float, default=SamplerConfig.threshold,
                   help="commit every masked token at least this confident")
    p.add_argument("--device", choices=("cpu", "cuda", "mps"), default=None,
                   help="where a transformers checkpoint runs (default: cuda if present)")
    p.add_argument("--trust-remote-code", action="store_true",
                   help="allow a checkpoint's own modeling code (auto_map) to run")


def engine_from_args(args: argparse.Namespace) -> Engine:
    try:
        sampler = SamplerConfig(threshold=args.threshold)
        return load_engine(args.model, sampler=sampler, device=args.device,
                           trust_remote_code=args.trust_remote_code)
    except ValueError as e:
        raise UsageError(f"cannot load model: {e}") from None


def unified_diff(old: str, new: str, path: str) -> str:
    return "".join(difflib.unified_diff(old.splitlines(keepends=True),
                                        new.splitlines(keepends=True),
                                        f"a/{path}", f"b/{path}"))


def fail(prog: str, message: str, code: int = 2) -> int:
    print(f"remask {prog}: {message}", file=sys.stderr)
    return code
