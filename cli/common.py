"""Helpers shared by the commands: model loading with one-line errors, diffs.

torch is imported only when a command actually loads a model, so commands with nothing to do
(a pre-commit hook run on a clean commit, ``--help``) start in a fraction of a second.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from remask.bench import checks
from remask.diffing.files import atomic_write, check_source, read_source
from remask.infill.precision import PRECISIONS

if TYPE_CHECKING:
    from remask.infill.engine import Engine

DEFAULT_THRESHOLD = 0.9  # the sampler's default; kept here so --help needs no torch
DEFAULT_LINE_THRESHOLD = 0.5  # RewriterConfig.line_threshold, for the same reason
DEFAULT_STEPS = 256  # SamplerConfig.max_steps, for the same reason


class UsageError(Exception):
    """Bad input: the command prints the message as one line and exits 2."""


def own_errors(sub: argparse._SubParsersAction) -> None:
    """Let each command of ``sub`` report unknown arguments with its own usage line.

    ``main`` parses with ``parse_known_args`` and hands leftovers to ``command_parser``: the
    main parser would print ``usage: remask [-h] {fill} ...``, which says nothing of the flags.
    The deepest command's parser wins (``remask bench infill``, not ``remask bench``).
    """
    for parser in sub.choices.values():
        parser.set_defaults(command_parser=parser)


STDIN = "-"


def add_input_args(p: argparse.ArgumentParser) -> None:
    """FILE, or ``-``: read the text from stdin and print the whole result, as a filter does.

    Editors without an LSP client pipe a buffer through a command and take its output as the
    new buffer (Vim's ``:%!``, Helix's ``:pipe``, Emacs's ``shell-command-on-region``), so the
    output is the text itself, the input unchanged where nothing validates (exit 1).
    """
    p.add_argument("file", help=f"the file, or {STDIN} to filter stdin to stdout")
    p.add_argument("--stdin-filename", metavar="PATH", default=None,
                   help=f"with {STDIN}: the file the text is (its name in messages, its "
                        "project for --verify)")


def read_input(args: argparse.Namespace) -> tuple[str, str]:
    """The text to rewrite and the path it is known by; UsageError or SourceError if none."""
    if args.file != STDIN:
        if args.stdin_filename is not None:
            raise UsageError(f"--stdin-filename goes with {STDIN} (stdin) only")
        return read_source(args.file), args.file
    if args.write:
        raise UsageError(f"--write with {STDIN}: the result goes to stdout")
    if args.verify is not None and args.stdin_filename is None:
        raise UsageError(f"--verify with {STDIN} needs --stdin-filename: the command runs in "
                         "that file's project")
    path = args.stdin_filename or "<stdin>"
    return check_source(sys.stdin.buffer.read(), path), path


def show(args: argparse.Namespace, path: str, old: str, new: str) -> None:
    """Print the change: the whole new text for stdin (a filter), else a unified diff.

    ``args``: a command's; only those taking :func:`add_input_args`' FILE can read stdin
    (``propagate``'s BEFORE and AFTER cannot).
    """
    if getattr(args, "file", None) == STDIN:
        sys.stdout.write(new)
    else:
        sys.stdout.write(unified_diff(old, new, path))


def add_model_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", type=Path, default=None,
                   help="model directory (default: the bundled model)")
    p.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD,
                   help="commit every masked token at least this confident")
    p.add_argument("--steps", type=int, default=DEFAULT_STEPS,
                   help="denoising steps a canvas may take at most: each step commits at least "
                        "what the steps left need (fewer: faster, less accurate)")
    p.add_argument("--line-threshold", type=float, default=DEFAULT_LINE_THRESHOLD,
                   help="the same for a one-line hole (the rest of a line, within a budget "
                        "of a few steps; measured best there)")
    p.add_argument("--device", choices=("cpu", "cuda", "mps"), default=None,
                   help="where a transformers checkpoint runs (default: cuda if present)")
    p.add_argument("--trust-remote-code", action="store_true",
                   help="allow a checkpoint's own modeling code (auto_map) to run")
    p.add_argument("--precision", choices=PRECISIONS, default="auto",
                   help="weights' float type for remask's own models (auto: bf16 where the "
                        "CPU computes it natively, 15-35%% faster a step; else fp32)")
    p.add_argument("--ranker", default="bundled",
                   help="AR checkpoint that ranks the diffusion model's candidate lengths "
                        "with the denoiser (default: the bundled AR baseline; 'none': the "
                        "denoiser alone)")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads on CPU (default 1: a denoising step is a few small "
                        "matrices, and more threads only wait on each other)")


def engine_from_args(args: argparse.Namespace) -> Engine:
    from remask.infill.engine import BUNDLED_AR, load_engine
    from remask.infill.sampler import SamplerConfig

    if args.steps < 1:
        raise UsageError("--steps must be at least 1")
    try:
        checks.threads(args.threads)
    except ValueError as e:
        raise UsageError(str(e)) from None
    for flag, value in (("--threshold", args.threshold), ("--line-threshold", args.line_threshold)):
        if not 0.0 < value <= 1.0:
            raise UsageError(f"{flag} must be in (0, 1], got {value}")
    import torch

    torch.set_num_threads(args.threads)
    try:
        sampler = SamplerConfig(threshold=args.threshold, max_steps=args.steps)
        ranker = {"bundled": BUNDLED_AR, "none": None}.get(args.ranker, Path(args.ranker))
        if ranker is not None and not (ranker / "config.json").is_file():
            raise UsageError(f"--ranker {args.ranker}: no model there")
        engine = load_engine(args.model, sampler=sampler, device=args.device,
                             trust_remote_code=args.trust_remote_code, precision=args.precision,
                             ranker=ranker)
    except ValueError as e:
        raise UsageError(f"cannot load model: {e}") from None
    if ranker not in (BUNDLED_AR, None) and engine.ranker is None:  # named, so wanted
        raise UsageError(f"--ranker {args.ranker}: does not load, or ranks another tokenizer's "
                         "text than the model's")
    return engine


def unified_diff(old: str, new: str, path: str) -> str:
    """The change as ``git diff`` writes it, so ``git apply`` and ``patch`` take it.

    Lines end at a newline only (``str.splitlines`` also ends them at a form feed, U+2028
    and others that git leaves inside a line), and a last line without one is marked so.
    """
    out = []
    for line in difflib.unified_diff(_lines(old), _lines(new), f"a/{path}", f"b/{path}"):
        out.append(line if line.endswith("\n") else f"{line}\n\\ No newline at end of file\n")
    return "".join(out)


def _lines(text: str) -> list[str]:
    lines = [f"{line}\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def write(prog: str, path: str, text: str, read: str) -> int:
    """Write ``text`` over ``read`` (what the command read from ``path``) atomically.

    0, or 2 and one line saying why it was not written: a read-only file, a directory remask
    may not write, a file saved by someone else while the model worked.
    """
    try:
        atomic_write(path, text, expected=read)
    except OSError as e:
        return fail(prog, f"{path}: not written ({e.strerror or e}); file left as it was")
    return 0


def fail(prog: str, message: str, code: int = 2) -> int:
    print(f"remask {prog}: {message}", file=sys.stderr)
    return code
