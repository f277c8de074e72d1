"""An interrupted hook run (SIGKILL at several moments) leaves staged and unstaged work intact.

A real ``remask hook run`` process works on a staged rename whose file also carries unstaged
work; it is killed mid-run. Afterwards the staged blob is either the user's staged text or the
hook's whole rewrite of it (never a mix), the working tree still holds the unstaged work, and
git can still stage (no stale ``index.lock``).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hook_repo import RENAMED, GitRepo

UNSTAGED = RENAMED + "\n# unstaged work the hook must never touch\n"
# Moments to kill at, as fractions of an uninterrupted run: start-up, model load, rewriting,
# writing the index. Fractions, not seconds, so a faster machine still gets interrupted.
FRACTIONS = (0.1, 0.35, 0.6, 0.8)


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=str(tmp_path / "gitconfig"), GIT_CONFIG_NOSYSTEM="1")
    return env


@pytest.fixture(scope="module")
def run_seconds(tmp_path_factory: pytest.TempPathFactory) -> float:
    """How long one uninterrupted hook run takes here, on the same staged rename."""
    tmp_path = tmp_path_factory.mktemp("timing")
    repo = GitRepo(tmp_path / "repo")
    repo.stage_rename()
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "remask.cli", "hook", "run"], cwd=repo.root,
                   env=_env(tmp_path), capture_output=True, timeout=300)
    return time.perf_counter() - t0


@pytest.mark.slow
@pytest.mark.parametrize("fraction", FRACTIONS)
def test_sigkilled_hook_leaves_staged_and_unstaged_intact(tmp_path: Path, fraction: float,
                                                          run_seconds: float) -> None:
    delay = fraction * run_seconds
    env = _env(tmp_path)
    repo = GitRepo(tmp_path / "repo")
    repo.stage_rename()
    repo.write("totals.py", UNSTAGED)
    staged = repo.staged("totals.py")
    proc = subprocess.Popen([sys.executable, "-m", "remask.cli", "hook", "run"], cwd=repo.root,
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    time.sleep(delay)
    killed = proc.poll() is None
    if killed:
        os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    proc.stderr.close()
    now = repo.staged("totals.py")
    if now != staged:  # the hook finished its write: a whole rewrite that still parses
        assert b"grand_total(xs)" in now, now
        compile(now, "totals.py", "exec")
    assert repo.read("totals.py") == UNSTAGED.encode()
    assert not (repo.root / ".git" / "index.lock").exists()
    repo.git("add", "--intent-to-add", "totals.py")  # git can still write its index
    if not killed:
        pytest.skip(f"the hook finished within {delay:.1f}s; nothing was interrupted")
