"""``remask hook run`` end to end: real repositories, the real bundled model, the real Rewriter.

The model is a small one whose quality these tests do not judge: where the model decides
(a ``???`` fill), a test checks that the index holds exactly what the Rewriter proposes for the
same staged edit, or nothing changed when it proposes nothing. Renames are followed up
mechanically, so those tests require a rewrite.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hook_repo import BEFORE, RENAMED, GitRepo, make_repo, rename_proposal

from remask.cli import main
from remask.diffing.proposal import Proposal
from remask.diffing.rewriter import Rewriter, RewriterConfig


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    return make_repo(tmp_path, monkeypatch)


@pytest.fixture(scope="module")
def rewriter(engine) -> Rewriter:
    return Rewriter(engine, RewriterConfig(sampler=engine.sampler))


@pytest.fixture
def renamed(engine) -> Proposal:
    return rename_proposal(engine)


def index_state(repo: GitRepo) -> str:
    return repo.git("ls-files", "--stage")


@pytest.mark.slow
def test_rename_call_sites_are_updated_in_the_index(repo, renamed, capsys) -> None:
    repo.stage_rename()
    assert main(["hook", "run"]) == 1
    assert repo.staged("totals.py").decode() == renamed.text
    assert repo.read("totals.py").decode() == renamed.text  # nothing unstaged: tree follows
    out = capsys.readouterr().out
    assert "totals.py: Rename" in out and "index and working tree" in out

    state = index_state(repo)
    assert main(["hook", "run"]) == 0  # the second run has nothing left to do
    assert index_state(repo) == state
    assert repo.read("totals.py").decode() == renamed.text


@pytest.mark.slow
def test_a_rename_among_other_edits_of_the_commit_is_followed_up(repo, renamed) -> None:
    """A commit seldom holds one edit: the rename's call sites are renamed all the same."""
    extra = '\n\ndef mean(xs):\n    return sum(xs) / len(xs)\n'
    repo.write("totals.py", BEFORE)
    repo.commit()
    repo.write("totals.py", RENAMED.replace('"""Totals."""', '"""Totals, and a mean."""') + extra)
    repo.git("add", "totals.py")
    assert main(["hook", "run"]) == 1
    want = renamed.text.replace('"""Totals."""', '"""Totals, and a mean."""') + extra
    assert repo.staged("totals.py").decode() == want


@pytest.mark.slow
def test_a_hole_is_filled_as_the_rewriter_proposes(repo, rewriter) -> None:
    repo.write("calc.py", "def double(x):\n    return x * 2\n")
    repo.commit()
    after = "def double(x):\n    return x * 2\n\n\ndef triple(x):\n    return ???\n"
    repo.write("calc.py", after)
    repo.git("add", "calc.py")
    proposals = rewriter.propose("def double(x):\n    return x * 2\n", after, "calc.py")
    assert {p.kind for p in proposals} <= {"hole"}

    code = main(["hook", "run"])
    if proposals:  # the model produced a fill that parses
        assert code == 1
        assert repo.staged("calc.py").decode() == proposals[0].text
        assert "???" not in proposals[0].text
    else:  # it may refuse: then the hook has nothing to do
        assert code == 0
        assert repo.staged("calc.py").decode() == after
    assert main(["hook", "run"]) == 0


@pytest.mark.slow
def test_partial_staging_rewrites_the_index_only(repo, renamed, capsys) -> None:
    repo.stage_rename()
    unstaged = ('"""Totals, unstaged."""\n' + RENAMED.split("\n", 1)[1]
                + "\n\ndef mean(xs):\n    return total(xs) / len(xs)\n")
    repo.write("totals.py", unstaged)

    assert main(["hook", "run"]) == 1
    assert repo.staged("totals.py").decode() == renamed.text
    assert repo.read("totals.py") == unstaged.encode()  # every unstaged hunk, byte for byte
    assert "wrote the index only" in capsys.readouterr().out


def test_merge_in_progress_is_left_alone(repo, capsys) -> None:
    repo.write("totals.py", BEFORE)
    repo.commit()
    repo.git("checkout", "-q", "-b", "side")
    repo.write("totals.py", RENAMED)
    repo.commit()
    repo.git("checkout", "-q", "main")
    repo.write("totals.py", BEFORE.replace("[1, 2]", "[3]"))
    repo.commit()
    repo.git("merge", "--no-commit", "--no-ff", "side")  # stops before committing
    state, tree = index_state(repo), repo.read("totals.py")

    assert main(["hook", "run"]) == 0
    assert "merge is in progress" in capsys.readouterr().out
    assert index_state(repo) == state and repo.read("totals.py") == tree


def test_bad_files_are_skipped_with_one_line_each(repo, capsys) -> None:
    repo.write("gone.py", "x = 1\n")
    repo.write("old.py", "".join(f"value_{i} = {i}\n" for i in range(30)))
    repo.commit()
    repo.git("rm", "-q", "gone.py")
    repo.git("mv", "old.py", "new.py")
    repo.write("binary.py", b"\x00\x01\x02")
    repo.write("latin.py", b"name = '\xe9'\n")
    repo.write("huge.py", "# " + "x" * 2_000_001 + "\n")
    repo.git("add", "binary.py", "latin.py", "huge.py")
    state = index_state(repo)

    assert main(["hook", "run"]) == 0
    out = capsys.readouterr().out.splitlines()
    expected = {"binary.py": "staged version: binary file", "latin.py": "not UTF-8",
                "huge.py": "over the 2,000,000-byte cap",
                "gone.py": "deleted"}
    for path, reason in expected.items():
        [line] = [ln for ln in out if f" {path}: skipped" in ln]
        assert reason in line
    assert index_state(repo) == state

    assert main(["hook", "run", "gone.py", "new.py", "untracked.py"]) == 0
    out = capsys.readouterr().out
    assert "gone.py: skipped: deleted" in out and "untracked.py: skipped: not in the index" in out


def test_not_a_repository_is_one_line(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.chdir(tmp_path)
    assert main(["hook", "run"]) == 2
    err = capsys.readouterr().err
    assert "not a git repository" in err and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_dry_run_prints_the_diff_and_writes_nothing(repo, capsys) -> None:
    repo.stage_rename()
    state = index_state(repo)
    assert main(["hook", "run", "--dry-run", "totals.py"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("--- a/totals.py\n+++ b/totals.py\n")
    assert "+print(grand_total([1, 2]))" in out and "would rename" in out
    assert index_state(repo) == state and repo.read("totals.py") == RENAMED.encode()


@pytest.mark.slow
def test_under_pre_commit_only_the_working_tree_is_written(repo, renamed, monkeypatch) -> None:
    repo.stage_rename()
    monkeypatch.setenv("PRE_COMMIT", "1")
    assert main(["hook", "run", "totals.py"]) == 1
    assert repo.staged("totals.py") == RENAMED.encode()
    assert repo.read("totals.py").decode() == renamed.text


def test_under_pre_commit_unstashed_work_is_skipped(repo, monkeypatch, capsys) -> None:
    """``pre-commit run --all-files`` does not stash: the working tree is the user's."""
    repo.stage_rename()
    repo.write("totals.py", RENAMED + "# more\n")
    monkeypatch.setenv("PRE_COMMIT", "1")
    assert main(["hook", "run", "totals.py"]) == 0
    assert "did not stash" in capsys.readouterr().out
    assert repo.read("totals.py") == (RENAMED + "# more\n").encode()
    assert repo.staged("totals.py") == RENAMED.encode()


def saving_meanwhile(repo: GitRepo, monkeypatch: pytest.MonkeyPatch, saved: str) -> None:
    """Make the user save ``saved`` just after the hook's last look at the working tree."""
    from remask.hook import run

    write = run.atomic_write

    def late_save(path, text, expected=None):
        repo.write("totals.py", saved)
        write(path, text, expected)

    monkeypatch.setattr(run, "atomic_write", late_save)


@pytest.mark.slow
def test_a_save_while_the_hook_ran_is_kept(repo, renamed, monkeypatch, capsys) -> None:
    repo.stage_rename()
    saving_meanwhile(repo, monkeypatch, RENAMED + "# saved\n")
    assert main(["hook", "run"]) == 1
    assert repo.read("totals.py") == (RENAMED + "# saved\n").encode()
    assert repo.staged("totals.py").decode() == renamed.text  # the commit is still checked
    assert "keeps what you saved while remask ran" in capsys.readouterr().out


@pytest.mark.slow
def test_under_pre_commit_a_save_while_the_hook_ran_is_kept(repo, monkeypatch, capsys) -> None:
    repo.stage_rename()
    monkeypatch.setenv("PRE_COMMIT", "1")
    saving_meanwhile(repo, monkeypatch, RENAMED + "# saved\n")
    assert main(["hook", "run", "totals.py"]) == 0
    assert repo.read("totals.py") == (RENAMED + "# saved\n").encode()
    assert repo.staged("totals.py") == RENAMED.encode()
    assert "saved while remask ran" in capsys.readouterr().out


def test_config_limits_the_kinds(repo) -> None:
    repo.write("pyproject.toml", '[tool.remask]\nkinds = ["hole", "repair"]\n')
    repo.stage_rename()
    assert main(["hook", "run"]) == 0
    assert repo.staged("totals.py") == RENAMED.encode()


def test_the_model_is_loaded_only_when_a_file_needs_it(repo, capsys) -> None:
    repo.write("pyproject.toml", '[tool.remask]\nmodel = "no-such-model"\n')
    repo.write("plain.py", "x = 1\n")
    repo.commit()
    repo.write("plain.py", "x = 2\n")
    repo.git("add", "plain.py")
    assert main(["hook", "run"]) == 0  # no span: the missing model is never touched

    repo.stage_rename()
    assert main(["hook", "run"]) == 2
    err = capsys.readouterr().err
    assert "cannot load model" in err and "no-such-model" in err
    assert repo.staged("totals.py") == RENAMED.encode()


def test_bad_config_is_one_line(repo, capsys) -> None:
    repo.write("pyproject.toml", '[tool.remask]\nkinds = ["everything"]\n')
    repo.stage_rename()
    assert main(["hook", "run"]) == 2
    err = capsys.readouterr().err
    assert "unknown kind 'everything'" in err and len(err.strip().splitlines()) == 1


def crlf(text: str) -> bytes:
    return text.replace("\n", "\r\n").encode()


@pytest.mark.slow
def test_autocrlf_files_are_not_taken_for_unstaged_work(repo, renamed, capsys) -> None:
    """With core.autocrlf the working tree holds CRLF and the blob LF: no unstaged work all the
    same, so the working tree gets the rewrite too, with the line endings checkout gives it."""
    repo.git("config", "core.autocrlf", "true")
    repo.write("totals.py", crlf(BEFORE))
    repo.commit()
    repo.write("totals.py", crlf(RENAMED))
    repo.git("add", "totals.py")
    assert main(["hook", "run"]) == 1
    assert "index and working tree" in capsys.readouterr().out
    assert repo.staged("totals.py").decode() == renamed.text
    assert repo.read("totals.py") == crlf(renamed.text)
    assert repo.git("diff", "--name-only") == ""  # nothing left unstaged


@pytest.mark.slow
def test_under_pre_commit_an_eol_attribute_is_no_unstaged_work(repo, renamed,
                                                              monkeypatch) -> None:
    repo.write(".gitattributes", "*.py text eol=crlf\n")
    repo.write("totals.py", crlf(BEFORE))
    repo.commit()
    repo.write("totals.py", crlf(RENAMED))
    repo.git("add", "totals.py")
    monkeypatch.setenv("PRE_COMMIT", "1")
    assert main(["hook", "run", "totals.py"]) == 1
    assert repo.read("totals.py") == crlf(renamed.text)
    assert repo.staged("totals.py") == RENAMED.encode()


@pytest.mark.slow
def test_a_temporary_index_with_unstaged_work_is_a_failure(repo, monkeypatch, capsys) -> None:
    """``git commit -p`` / ``-i``: the index the hook sees is dropped when the hook fails."""
    repo.stage_rename()
    unstaged = RENAMED + "\n# unstaged note\n"
    repo.write("totals.py", unstaged)
    temporary = repo.root / ".git" / "next-index-1.lock"
    temporary.write_bytes((repo.root / ".git" / "index").read_bytes())
    monkeypatch.setenv("GIT_INDEX_FILE", str(temporary))
    assert main(["hook", "run"]) == 2
    out = capsys.readouterr().out
    assert "totals.py: not written" in out and "git add -p" in out and "rewrote" not in out
    assert repo.staged("totals.py") == RENAMED.encode()
    assert repo.read("totals.py") == unstaged.encode()


@pytest.mark.slow
def test_a_failed_working_tree_write_leaves_the_index_alone(repo, monkeypatch, capsys) -> None:
    """A read-only file (as a non-root user sees it): neither side gets the rewrite."""
    from remask.hook import run

    def read_only(path, text, expected=None):
        raise PermissionError(13, "read-only file", str(path))

    repo.stage_rename()
    monkeypatch.setattr(run, "atomic_write", read_only)
    assert main(["hook", "run"]) == 2
    assert repo.staged("totals.py") == RENAMED.encode()
    assert repo.read("totals.py") == RENAMED.encode()
    assert "totals.py: not written: read-only file" in capsys.readouterr().out


def test_a_file_name_starting_with_a_dash_is_a_file(repo, capsys) -> None:
    """pre-commit passes staged names with no ``--`` before them."""
    repo.write("-old.py", "x = 1\n")
    repo.commit()
    repo.write("-old.py", b"\x00binary now")
    repo.git("add", "--", "-old.py")
    assert main(["hook", "run", "-old.py"]) == 0
    assert "-old.py: skipped: staged version: binary file" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main(["hook", "run", "-no-such-file.py"])  # not a file: still an unknown option
    assert e.value.code == 2


def test_a_file_name_with_a_newline_is_one_quoted_line(repo, capsys) -> None:
    repo.write("a\nb.py", b"\x00binary")
    repo.git("add", "a\nb.py")
    assert main(["hook", "run"]) == 0
    [line] = capsys.readouterr().out.splitlines()
    assert line == 'remask hook: "a\\nb.py": skipped: staged version: binary file'


@pytest.mark.slow
def test_a_sha256_repository(tmp_path, monkeypatch, renamed) -> None:
    repo = make_repo(tmp_path, monkeypatch, "--object-format=sha256")
    repo.stage_rename()
    assert main(["hook", "run"]) == 1
    assert repo.staged("totals.py").decode() == renamed.text
    assert repo.read("totals.py").decode() == renamed.text
