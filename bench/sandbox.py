"""Run model-written Python in a child process that can't reach the network or run away.

HumanEval checks execute untrusted completions. Each program runs in a fresh ``python -I -S``
with a temporary directory as its working directory, a minimal environment, hard resource
limits (CPU seconds, address space, file size, open files, processes; both soft and hard, so the
program can't raise them back), a wall-clock timeout that kills its whole process group, and,
because the kernel doesn't hold a real root user to RLIMIT_NPROC, a prelude that disables
process creation and destructive file calls (as OpenAI's ``reliability_guard`` does).

The network is cut one of two ways, reported by :func:`network_isolation`:

- ``"netns"``: the child runs under ``unshare -rn``, in a new user + network namespace holding
  only a down loopback device — nothing to connect to, whatever the code imports;
- ``"socket-patched"``: where namespaces are unavailable, a prelude replaces ``socket.socket``
  (and ``_socket.socket``) with a class that refuses to be created — a guard against accidents,
  not against code written to escape it.

This contains accidents (infinite loops, memory blow-ups, fork storms, big files, stray network
calls); it is not a jail: the program can still open any file its user can (run as root, that
is every file), only the calls listed in the prelude are refused.
"""

from __future__ import annotations

import functools
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from remask.diffing.verify import kill_group

MIB = 1 << 20


@dataclass(frozen=True)
class SandboxConfig:
    timeout: float = 10.0  # wall seconds before the process group is killed
    cpu_seconds: int = 10
    memory_mb: int = 1024  # address space (RLIMIT_AS)
    file_mb: int = 16  # largest file the program may write, stdout/stderr included
    max_processes: int = 32  # RLIMIT_NPROC; enforced inside the user namespace even for root
    max_files: int = 64  # open file descriptors

    def __post_init__(self) -> None:
        if self.timeout <= 0 or self.cpu_seconds < 1 or self.memory_mb < 64:
            raise ValueError("sandbox needs timeout > 0, cpu_seconds >= 1, memory_mb >= 64")


@dataclass(frozen=True)
class Outcome:
    """How one program ended: ``status`` is ``passed``, ``failed``, ``timeout`` or ``error``.

    ``error``: it never ran (the machine refused a new process); it counts as not passed.
    """

    status: str
    detail: str  # the last line of stderr (the exception), or why it was stopped
    seconds: float

    @property
    def passed(self) -> bool:
        return self.status == "passed"


# Runs before the program, inside the child: limits first, so nothing the program does
# happens without them. argv: [limits..., block_socket, program path].
_PRELUDE = """
import resource, sys
*limits, block, path = sys.argv[1:]
for spec in limits:
    name, value = spec.split("=")
    try:
        resource.setrlimit(getattr(resource, name), (int(value), int(value)))
    except (ValueError, OSError):
        pass  # a limit this kernel doesn't offer; the others still hold
if block == "1":
    import socket, _socket
    class _NoNetwork(socket.socket):
        def __init__(self, *a, **k):
            raise OSError("network access is disabled in the remask sandbox")
    socket.socket = _socket.socket = _NoNetwork
    def _refuse(*a, **k):
        raise OSError("network access is disabled in the remask sandbox")
    socket.create_connection = socket.socketpair = socket.fromfd = _refuse
# RLIMIT_NPROC doesn't bind a real root user (the kernel exempts it), so process creation is
# refused here too, as are the file and process calls a confused program could do damage with.
import os, shutil, _posixsubprocess
def _denied(*a, **k):
    raise PermissionError("not allowed in the remask sandbox")
for _name in ("fork", "forkpty", "system", "popen", "execv", "execve", "execvp", "execvpe",
              "spawnv", "spawnve", "spawnvp", "spawnvpe", "posix_spawn", "posix_spawnp",
              "kill", "killpg", "remove", "unlink", "rmdir", "removedirs", "rename", "renames",
              "replace", "truncate", "chmod", "chown", "putenv", "setuid", "setgid"):
    if hasattr(os, _name):
        setattr(os, _name, _denied)
_posixsubprocess.fork_exec = shutil.rmtree = shutil.move = shutil.chown = _denied
sys.argv = [path]
with open(path, encoding="utf-8") as f:
    source = f.read()
exec(compile(source, path, "exec"), {"__name__": "__main__", "__file__": path})
"""


@functools.cache
def network_isolation() -> str:
    """Return ``"netns"`` if ``unshare -rn`` works on this machine, else ``"socket-patched"``."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return "socket-patched"
    try:
        probe = subprocess.run([unshare, "-rn", sys.executable, "-I", "-S", "-c", "pass"],
                               capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "socket-patched"
    return "netns" if probe.returncode == 0 else "socket-patched"


def _limits(cfg: SandboxConfig) -> list[str]:
    return [f"RLIMIT_CPU={cfg.cpu_seconds}", f"RLIMIT_AS={cfg.memory_mb * MIB}",
            f"RLIMIT_FSIZE={cfg.file_mb * MIB}", f"RLIMIT_NOFILE={cfg.max_files}",
            f"RLIMIT_NPROC={cfg.max_processes}", "RLIMIT_CORE=0"]


# Tries, a second apart and more, to start a program while the machine refuses new processes
# (fork: EAGAIN). Seen here for a few seconds while other work started hundreds of processes: a
# two-hour benchmark died of it at one task's judgement.
START_TRIES = 6


def _start(cmd: list[str], **kwargs) -> subprocess.Popen | None:
    """``subprocess.Popen(cmd, **kwargs)``, tried again while fork says EAGAIN; None at last."""
    for attempt in range(START_TRIES):
        try:
            return subprocess.Popen(cmd, **kwargs)
        except BlockingIOError:
            time.sleep(2 ** attempt)
    return None


def run_program(source: str, cfg: SandboxConfig | None = None) -> Outcome:
    """Execute ``source`` in the sandbox; it passes when it exits 0 within the limits."""
    cfg = cfg or SandboxConfig()
    netns = network_isolation() == "netns"
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="remask-sandbox-") as tmp:
        work = Path(tmp)
        program = work / "program.py"
        program.write_text(source, encoding="utf-8")
        cmd = [sys.executable, "-I", "-S", "-c", _PRELUDE, *_limits(cfg),
               "0" if netns else "1", str(program)]
        if netns:
            cmd = [shutil.which("unshare") or "unshare", "-rn", *cmd]
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": tmp, "TMPDIR": tmp,
               "PYTHONHASHSEED": "0"}
        # Output goes to files (capped by RLIMIT_FSIZE), not pipes: a program printing in a
        # loop can't fill our memory.
        with open(work / "stdout", "wb") as out, open(work / "stderr", "wb") as err:
            proc = _start(cmd, cwd=tmp, env=env, stdin=subprocess.DEVNULL, stdout=out,
                          stderr=err, start_new_session=True)
            if proc is None:
                return Outcome("error", "could not start a process (fork: EAGAIN)",
                               time.perf_counter() - t0)
            try:
                code = proc.wait(timeout=cfg.timeout)
            except subprocess.TimeoutExpired:
                return Outcome("timeout", f"killed after {cfg.timeout:g}s",
                               time.perf_counter() - t0)
            finally:
                kill_group(proc)  # on timeout, and any children the program left behind
        tail = (work / "stderr").read_bytes()[-4096:].decode("utf-8", "replace")
    lines = [ln for ln in tail.splitlines() if ln.strip()]
    detail = lines[-1] if lines else ("" if code == 0 else f"exit code {code}")
    if code in (-signal.SIGXCPU, -signal.SIGKILL):  # the kernel's answer to RLIMIT_CPU
        detail = f"killed by {signal.Signals(-code).name} (CPU limit {cfg.cpu_seconds}s)"
    return Outcome("passed" if code == 0 else "failed", detail, time.perf_counter() - t0)
