"""SIGKILL during ``atomic_write`` leaves the old file or the new one, never half, mode kept.

A real writer process rewrites one file in a loop with two large texts that differ in every
line; the test kills it with SIGKILL at random moments (so some kills land inside the write,
the fsync or the rename) and then reads the target: it must be exactly one of the two texts,
with the mode it had before, and the only debris allowed is the killed write's own temp file.
"""

from __future__ import annotations

import os
import random
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from remask.diffing.files import atomic_write

WRITER = r"""
import sys
from remask.diffing.files import atomic_write
path = sys.argv[1]
a, b = (open(p, newline="").read() for p in sys.argv[2:4])
atomic_write(path, b)
print("ready", flush=True)
i = 0
while True:
    atomic_write(path, a if i % 2 else b)
    i += 1
"""

KILLS = 12


def _texts(tmp: Path) -> tuple[str, str]:
    """Two ~8 MB texts (CRLF, tabs, non-ASCII) that differ everywhere, saved for the writer."""
    a = "".join(f"def f_{i}(x):\r\n\treturn x + {i}  # é ✓ 𝔸\n" for i in range(200_000))
    b = "".join(f"class C_{i}:\n    value = '{i}' * 2  # ü\r\n" for i in range(200_000))
    (tmp / "a.txt").write_text(a, newline="")
    (tmp / "b.txt").write_text(b, newline="")
    return a, b


def _kill_at(tmp: Path, target: Path, delay: float) -> None:
    """Start the writer, let it run ``delay`` seconds past its first write, then SIGKILL it."""
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(target), str(tmp / "a.txt"),
                             str(tmp / "b.txt")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "ready", proc.stderr.read()
        time.sleep(delay)
        assert proc.poll() is None, "the writer died before it was killed"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        proc.stdout.close()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL


def test_sigkill_mid_write_leaves_old_or_new_with_mode(tmp_path: Path) -> None:
    a, b = _texts(tmp_path)
    target = tmp_path / "work" / "module.py"
    target.parent.mkdir()
    target.write_text(a, newline="")
    target.chmod(0o751)
    rng = random.Random(12)
    mid_write = 0
    for _ in range(KILLS):
        _kill_at(tmp_path, target, rng.uniform(0.0, 0.6))
        data = target.read_bytes()
        assert data in (a.encode(), b.encode()), f"half-written file: {len(data)} bytes"
        assert stat.S_IMODE(target.stat().st_mode) == 0o751
        debris = [p.name for p in target.parent.iterdir() if p != target]
        # the killed write's temp file may remain (nothing ran to unlink it); nothing else
        assert len(debris) <= 1, debris
        assert all(d.startswith(".module.py.") and d.endswith(".remask") for d in debris)
        mid_write += bool(debris)
        for d in debris:
            (target.parent / d).unlink()
    # the writer spends nearly all its time inside a write, so kills must land there
    assert mid_write >= KILLS // 2, f"only {mid_write} of {KILLS} kills landed mid-write"


def test_interrupted_write_in_process_cleans_up_and_keeps_old(tmp_path: Path) -> None:
    """An exception inside the write (here: unencodable text) leaves the old file, no temp."""
    target = tmp_path / "keep.py"
    target.write_text("x = 1\r\n", newline="")
    target.chmod(0o600)
    with pytest.raises(UnicodeEncodeError):
        atomic_write(target, "y = '\ud800'\n")  # a lone surrogate cannot be UTF-8
    assert target.read_bytes() == b"x = 1\r\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["keep.py"]


def test_write_keeps_mode_and_bytes_exactly(tmp_path: Path) -> None:
    target = tmp_path / "script.py"
    target.write_text("#!/usr/bin/env python\n", newline="")
    target.chmod(0o755)
    text = "\ufeffa\r\n\tb\rc\n𝔸\n"
    atomic_write(target, text)
    assert target.read_bytes() == text.encode("utf-8")
    assert stat.S_IMODE(target.stat().st_mode) == 0o755
    assert [p.name for p in tmp_path.iterdir()] == ["script.py"]
