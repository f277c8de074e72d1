"""The verifier runs a command on a copy and, past its timeout, kills all it started."""

import subprocess
import time
import uuid

from remask.diffing.verify import passes


def _alive(tag: str) -> bool:
    return subprocess.run(["pgrep", "-f", tag], capture_output=True).returncode == 0


def test_a_hung_command_is_killed_with_every_process_it_started(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    tag = f"remask-verify-test-{uuid.uuid4().hex}"
    # the shell forks a python that never ends (as a fill with `while True:` under doctest)
    command = f"python -c 'import time; time.sleep(300)' {tag} ; true"
    t0 = time.monotonic()
    assert not passes(command, path, "x = 2\n", timeout=1.0)
    assert time.monotonic() - t0 < 30
    for _ in range(20):
        if not _alive(tag):
            break
        time.sleep(0.1)
    assert not _alive(tag)


def test_a_passing_command_sees_the_candidate_and_leaves_the_file(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    assert passes("python -c 'import m; assert m.x == 2'", path, "x = 2\n", timeout=60)
    assert not passes("python -c 'import m; assert m.x == 2'", path, "x = 3\n", timeout=60)
    assert path.read_text() == "x = 1\n"
    # a background child the command leaves behind does not outlive the check
    tag = f"remask-verify-test-{uuid.uuid4().hex}"
    assert passes(f"(python -c 'import time; time.sleep(300)' {tag} &) ; true", path,
                  "x = 2\n", timeout=60)
    time.sleep(0.3)
    assert not _alive(tag)
