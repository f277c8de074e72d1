"""Argument checks the benchmarks share, made before any model loads or task runs.

A benchmark takes minutes to hours, so a flag it cannot honour must fail in the first second
with one line, not as a traceback once the work is done: ``--json`` aimed at a directory, a
file's child or a folder nobody may write; ``nan`` or ``inf`` where a number of seconds is
wanted (``inf`` waits forever, ``nan`` compares false with every bound and slips past them);
more torch threads than OpenMP can start (the process dies of SIGSEGV).
"""

from __future__ import annotations

import math
import os
from pathlib import Path


def check_out(path: Path | None, flag: str = "--json") -> None:
    """ValueError with one line unless a file can be written at ``path`` (None: nothing to do).

    Missing folders above it are fine (the report makes them), so the nearest one that exists
    decides: it must be a folder this process may write into.
    """
    if path is None:
        return
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{flag} {path}: is a directory; name a file")
    parent = path.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"{flag} {path}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{flag} {path}: {parent} is not writable")


def positive(flag: str, value: float) -> None:
    """ValueError unless ``value`` is a finite number above 0 (seconds, rates)."""
    if not (math.isfinite(value) and value > 0):
        raise ValueError(f"{flag} must be > 0 and finite, got {value}")


# Candidates or drawn rows a hole may ask for: each row holds ~2 MB while it is denoised
# (``remask fill --samples 256``: 0.87 GB, 47 s), so a slip of the finger (100000) would
# take the machine's memory before the first step; past a few dozen rows nothing changes.
MAX_ROWS = 1024


def rows(value: int, flag: str, least: int) -> None:
    """ValueError unless ``least <= value <= MAX_ROWS`` (``--samples``, ``--candidates``)."""
    if not least <= value <= MAX_ROWS:
        raise ValueError(f"{flag} must be from {least} to {MAX_ROWS}, got {value}")


def threads(value: int, flag: str = "--threads") -> None:
    """ValueError unless ``value`` is 1 to this machine's CPU count.

    More threads than CPUs only wait on each other, and far more than that crash the process
    inside OpenMP (``torch.set_num_threads(100000)``: SIGSEGV), so the bound is the machine's.
    """
    cpus = os.cpu_count() or 1
    if not 1 <= value <= cpus:
        raise ValueError(f"{flag} must be from 1 to {cpus} (this machine's CPUs), got {value}")
