"""SIGKILL during ``atomic_write`` leaves the old file or the new one, never half, mode kept.

A real writer process rewrites one file in a loop with two large texts that differ in every
line; the test kills it with SIGKILL at random moments (so some kills land inside the write,
the fsync or the rename) and then reads the target: it must be exactly one of the two texts,
with the mode it had before, and the only debris allowed is the killed write's own temp file.
A write also goes through a symlink to the file it names, and refuses a file its owner made
read-only, saying so in one line.
"""

from __future__ import annotations

import contextlib
import io
import os
import random
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from remask.cli.common import write
from remask.diffing.files import ChangedOnDisk, atomic_write

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


def test_a_symlink_is_written_through_and_stays_a_link(tmp_path: Path) -> None:
    # os.replace on the link's own path used to swap the link for a plain file and leave the
    # file it pointed at as it was.
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "mod.py"
    target.write_text("x = 1\n")
    link = tmp_path / "mod.py"
    link.symlink_to(target)
    atomic_write(link, "x = 2\n")
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_text() == "x = 2\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["mod.py", "mod.py", "real"]


def _as_nobody(path: Path, act: Callable[[], str]) -> str:
    """What ``act`` returns when run in a forked child that is not root and owns ``path``.

    Root writes any file, so a read-only file is only read-only to another user: the child
    drops to ``nobody`` (when the test runs as root), who owns the directory and the file, as
    a user owns their checkout.
    """
    nobody = 65534
    if os.geteuid() == 0:
        for p in (path.parent, path):
            os.chown(p, nobody, nobody)
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: no pytest machinery, just the act and its outcome
        os.close(read)
        if os.geteuid() == 0:
            os.setgid(nobody)
            os.setuid(nobody)
        os.write(write, ("=" + act()).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as f:
        said = f.read()
    os.waitpid(pid, 0)
    return said[1:]


def _write_as_nobody(path: Path, text: str) -> str:
    """atomic_write ``path`` as ``nobody``: the error's strerror, or '' when written."""
    def act() -> str:
        try:
            atomic_write(path, text)
        except OSError as e:
            return e.strerror or str(e)
        return ""
    return _as_nobody(path, act)


@pytest.fixture
def reachable() -> Iterator[Path]:
    """A directory every user can reach (pytest's own tmp_path is private to its user)."""
    with tempfile.TemporaryDirectory() as d:
        os.chmod(d, 0o755)
        yield Path(d)


def test_a_read_only_file_is_refused_not_replaced(reachable: Path) -> None:
    # Only the directory's permission governs a rename, so a file its owner made read-only
    # used to be replaced anyway; an editor refuses it, and so does remask now.
    home = reachable / "checkout"
    home.mkdir()
    target = home / "frozen.py"
    target.write_text("x = 1\n")
    target.chmod(0o444)
    assert _write_as_nobody(target, "x = 2\n") == "read-only file"
    assert target.read_text() == "x = 1\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o444
    assert [p.name for p in home.iterdir()] == ["frozen.py"]
    target.chmod(0o644)
    assert _write_as_nobody(target, "x = 2\n") == ""  # writable again: written, owner kept
    assert target.read_text() == "x = 2\n"
    assert target.stat().st_uid == (65534 if os.geteuid() == 0 else os.geteuid())


def test_the_commands_say_in_one_line_why_a_file_was_not_written(reachable: Path) -> None:
    # `remask fill --write` on a read-only file, or in a directory it may not write, ended in
    # a PermissionError traceback.
    target = reachable / "frozen.py"
    target.write_text("x = ???\n")
    target.chmod(0o444)

    def act() -> str:
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = write("fill", str(target), "x = 1\n", "x = ???\n")
        return f"{code} {err.getvalue()}"
    assert _as_nobody(target, act) == \
        f"2 remask fill: {target}: not written (read-only file); file left as it was\n"
    assert target.read_text() == "x = ???\n"


def test_a_file_changed_since_it_was_read_keeps_the_change(tmp_path: Path) -> None:
    target = tmp_path / "mod.py"
    target.write_text("x = 2\n")  # what the user saved after the command read "x = 1"
    with pytest.raises(ChangedOnDisk):
        atomic_write(target, "x = 3\n", expected="x = 1\n")
    assert target.read_text() == "x = 2\n"
    assert [p.name for p in tmp_path.iterdir()] == ["mod.py"]
    atomic_write(target, "x = 3\n", expected="x = 2\n")  # unchanged since read: written
    assert target.read_text() == "x = 3\n"
