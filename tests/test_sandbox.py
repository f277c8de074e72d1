"""The sandbox that runs model-written code: verdicts, limits, no network, clean surroundings."""

from __future__ import annotations

import socket
import subprocess
import threading

import pytest

from remask.bench import sandbox
from remask.bench.humaneval import load_tasks, subset
from remask.bench.sandbox import SandboxConfig, network_isolation, run_program


def test_canonical_solutions_pass_and_wrong_ones_fail():
    for task in subset(load_tasks("single-line"), 3):
        assert task.judge(task.canonical_solution).passed, task.task_id
        assert not task.judge("    return None\n").passed, task.task_id


def test_exception_is_reported_as_failure_with_its_last_line():
    out = run_program("raise ValueError('boom')")
    assert out.status == "failed"
    assert out.detail == "ValueError: boom"


@pytest.fixture
def listener():
    """A real TCP server on the host's loopback, reachable from any unsandboxed process."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen()
    srv.settimeout(5)
    accepted = []
    thread = threading.Thread(target=lambda: _accept(srv, accepted), daemon=True)
    thread.start()
    yield srv.getsockname()[1], accepted
    srv.close()


def _accept(srv: socket.socket, accepted: list) -> None:
    try:
        accepted.append(srv.accept())
    except OSError:
        pass


def test_network_is_unreachable(listener):
    port, accepted = listener
    program = f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
    out = run_program(program)
    assert out.status == "failed"
    assert out.detail.startswith(("OSError", "ConnectionRefusedError", "TimeoutError"))
    assert not accepted
    assert network_isolation() in ("netns", "socket-patched")
    # the same program outside the sandbox does connect: the test can fail
    socket.create_connection(("127.0.0.1", port), timeout=2).close()


def test_wall_clock_timeout_kills_the_program():
    out = run_program("import time\ntime.sleep(60)", SandboxConfig(timeout=1))
    assert out.status == "timeout"
    assert out.seconds < 10


def test_cpu_limit_stops_a_busy_loop():
    out = run_program("while True:\n    pass", SandboxConfig(timeout=20, cpu_seconds=1))
    assert out.status == "failed"
    assert "CPU limit" in out.detail


def test_memory_limit():
    out = run_program("x = bytearray(3 * 1024 ** 3)", SandboxConfig(memory_mb=512))
    assert out.status == "failed"
    assert "MemoryError" in out.detail


def test_file_size_limit():
    out = run_program("open('big', 'wb').write(b'x' * (8 << 20))", SandboxConfig(file_mb=1))
    assert out.status == "failed"
    assert "File too large" in out.detail


def test_no_new_processes():
    for program in ("import os\nos.fork()", "import subprocess\nsubprocess.run(['true'])"):
        out = run_program(program)
        assert out.status == "failed"
        assert "PermissionError" in out.detail


def test_runs_in_a_fresh_temp_dir_with_a_clean_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("REMASK_TEST_SECRET", "x")
    monkeypatch.chdir(tmp_path)
    program = ("import os, sys\n"
               "assert 'REMASK_TEST_SECRET' not in os.environ\n"
               f"assert os.getcwd() != {str(tmp_path)!r}\n"
               "assert 'remask-sandbox-' in os.getcwd()\n"
               "assert sys.flags.isolated\n"
               "open('scratch.txt', 'w').write('ok')\n")
    assert run_program(program).passed
    assert not (tmp_path / "scratch.txt").exists()


def test_bad_config_is_rejected():
    with pytest.raises(ValueError):
        SandboxConfig(timeout=0)


def test_a_refused_fork_is_tried_again_and_at_last_an_error_not_a_crash(monkeypatch):
    """fork's EAGAIN for a few seconds killed a whole benchmark at one task's judgement."""
    real, refusals = subprocess.Popen, []

    def popen(*args, **kwargs):
        if len(refusals) < 2:
            refusals.append(1)
            raise BlockingIOError(11, "Resource temporarily unavailable")
        return real(*args, **kwargs)

    monkeypatch.setattr(sandbox.time, "sleep", lambda s: None)
    monkeypatch.setattr(sandbox.subprocess, "Popen", popen)
    assert run_program("print(1)\n").passed and len(refusals) == 2

    def never(*args, **kwargs):
        raise BlockingIOError(11, "Resource temporarily unavailable")

    monkeypatch.setattr(sandbox.subprocess, "Popen", never)
    out = run_program("print(1)\n")
    assert out.status == "error" and not out.passed and "EAGAIN" in out.detail
