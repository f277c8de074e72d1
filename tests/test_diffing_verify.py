"""The verifier runs a command on one copy per proposal and kills all it started."""

import itertools
import subprocess
import time
import uuid

from remask.diffing.verify import Checkout, by_rank_sum


def _alive(tag: str) -> bool:
    return subprocess.run(["pgrep", "-f", tag], capture_output=True).returncode == 0


def test_a_hung_command_is_killed_with_every_process_it_started(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    tag = f"remask-verify-test-{uuid.uuid4().hex}"
    # the shell forks a python that never ends (as a fill with `while True:` under doctest)
    command = f"python -c 'import time; time.sleep(300)' {tag} ; true"
    t0 = time.monotonic()
    with Checkout(command, path, timeout=1.0) as checkout:
        assert not checkout.passes("x = 2\n")
    assert time.monotonic() - t0 < 30
    for _ in range(20):
        if not _alive(tag):
            break
        time.sleep(0.1)
    assert not _alive(tag)


def test_a_passing_command_sees_the_candidate_and_leaves_the_file(tmp_path):
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    with Checkout("python -c 'import m; assert m.x == 2'", path, timeout=60) as checkout:
        assert checkout.passes("x = 2\n")
        assert not checkout.passes("x = 3\n")
    assert path.read_text() == "x = 1\n"
    # a background child the command leaves behind does not outlive the check
    tag = f"remask-verify-test-{uuid.uuid4().hex}"
    with Checkout(f"(python -c 'import time; time.sleep(300)' {tag} &) ; true", path,
                  timeout=60) as checkout:
        assert checkout.passes("x = 2\n")
    time.sleep(0.3)
    assert not _alive(tag)


def test_candidates_of_one_size_never_run_the_one_before_from_its_bytecode(tmp_path):
    """Python's .pyc keys on size and mtime in seconds: four runs well inside one second."""
    (tmp_path / "m.py").write_text("x = 0\n")
    (tmp_path / "t.py").write_text("import sys, m\nsys.exit(m.x != 3)\n")
    command = "env -u PYTHONDONTWRITEBYTECODE python t.py"  # a user's shell writes them
    with Checkout(command, tmp_path / "m.py", timeout=60) as checkout:
        assert [checkout.passes(f"x = {i}\n") for i in (1, 2, 3, 4)] == [False, False, True,
                                                                          False]
        assert any(checkout._copy.rglob("*.pyc"))  # the cache was written, and was not used


def test_the_project_is_copied_once_for_all_candidates(tmp_path):
    """What the command leaves in the copy is there for the next candidate."""
    path = tmp_path / "m.py"
    path.write_text("x = 1\n")
    with Checkout("test ! -e ran && touch ran", path, timeout=60) as checkout:
        assert checkout.passes("x = 2\n")
        assert not checkout.passes("x = 3\n")
    assert not (tmp_path / "ran").exists()


def test_combinations_go_by_the_sum_of_their_ranks():
    assert list(by_rank_sum([3, 2])) == [(0, 0), (1, 0), (0, 1), (2, 0), (1, 1), (2, 1)]
    assert list(by_rank_sum([4])) == [(0,), (1,), (2,), (3,)]
    every = list(by_rank_sum([2, 3, 1, 2]))
    assert sorted(every) == sorted(itertools.product(range(2), range(3), range(1), range(2)))
    assert [sum(c) for c in every] == sorted(sum(c) for c in every)
    assert list(by_rank_sum([2, 0])) == []


def _project(tmp_path):
    """A home directory with a big unrelated file, and a project below it."""
    home = tmp_path / "home"
    (home / "proj" / "pkg").mkdir(parents=True)
    (home / "junk.bin").write_bytes(b"\0" * 1000)
    (home / "proj" / "pyproject.toml").write_text("[project]\nname = 'p'\n")
    (home / "proj" / "pkg" / "m.py").write_text("x = 1\n")
    return home, home / "proj" / "pkg" / "m.py"


def test_run_from_above_the_project_only_the_project_is_copied(tmp_path, monkeypatch):
    """Run from a home directory, the whole of it was copied for every check."""
    home, path = _project(tmp_path)
    monkeypatch.chdir(home)
    with Checkout("test -e pyproject.toml && test ! -e junk.bin", path, timeout=60) as c:
        assert c.passes("x = 2\n")


def test_run_from_inside_the_project_the_command_runs_where_the_user_is(tmp_path, monkeypatch):
    home, path = _project(tmp_path)
    monkeypatch.chdir(path.parent)
    with Checkout("grep -q 'x = 2' m.py && test -e ../pyproject.toml", path, timeout=60) as c:
        assert c.passes("x = 2\n")
