"""`remask train`'s edges: export never destroys what it did not write, broken runs and
inits are one line, and numbers no run can use are refused before the corpus is touched."""

import json
import shutil

import pytest
from test_train import _train, home  # noqa: F401  (the tiny-corpus fixture)

from remask.cli import main


@pytest.fixture(scope="module")
def run(home):  # noqa: F811
    """One finished tiny run, copied by the tests that break it."""
    assert _train(home, "edge", "--max-tokens", "400") == 0
    return home / "runs" / "edge"


def _export(home, name, out):  # noqa: F811
    return main(["train", "--home", str(home), "--name", name, "--export", str(out)])


def test_export_never_replaces_a_folder_that_is_not_a_bundle(home, run, tmp_path, capsys):  # noqa: F811
    # Before, --export DIR deleted DIR whole and put the bundle there: a project, ~, the
    # run's own folder (its optimizer state and EMA) were gone.
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("keep")
    assert _export(home, "edge", project) == 2
    assert "not a model bundle" in capsys.readouterr().err
    assert [p.name for p in project.iterdir()] == ["notes.txt"]
    assert _export(home, "edge", run) == 2  # the run itself
    assert (run / "optim.safetensors").is_file() and (run / "state.json").is_file()
    bundle = tmp_path / "bundle"
    assert _export(home, "edge", bundle) == 0
    assert _export(home, "edge", bundle) == 0  # an earlier bundle is replaced


def test_export_records_the_manifest_of_the_corpus_it_trained_on(home, run, tmp_path):  # noqa: F811
    # Before, it copied ~/.cache/remask's manifest whatever --home the run used.
    assert _export(home, "edge", tmp_path / "b") == 0
    assert json.loads((tmp_path / "b" / "corpus-manifest.json").read_text()) == \
        json.loads((home / "corpus" / "manifest.json").read_text())


@pytest.mark.parametrize("damage", ["state", "ema", "weights"])
def test_a_broken_run_is_one_line_for_resume_and_export(home, run, tmp_path, capsys,  # noqa: F811
                                                        damage):
    broken = home / "runs" / f"broken-{damage}"
    shutil.rmtree(broken, ignore_errors=True)
    shutil.copytree(run, broken)
    if damage == "state":
        (broken / "state.json").write_text('{"step": 3, "tok')
    elif damage == "ema":
        (broken / "ema.safetensors").unlink()
    else:
        (broken / "model.safetensors").write_bytes(b"not safetensors")
    assert _train(home, broken.name, "--resume", "--max-tokens", "800") == 2
    assert _export(home, broken.name, tmp_path / "out") == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and all("not a usable run" in line for line in err)
    assert not (tmp_path / "out").exists()


def test_a_run_cut_short_mid_save_is_not_started_over(home, run, capsys):  # noqa: F811
    # A kill between _save_state's two renames leaves only NAME.old; a new run there would
    # have deleted that last checkpoint at its first save.
    old = home / "runs" / "cut.old"
    shutil.rmtree(old, ignore_errors=True)
    shutil.copytree(run, old)
    assert _train(home, "cut", "--resume", "--max-tokens", "800") == 2
    assert "cut short while saving" in capsys.readouterr().err
    assert (old / "state.json").is_file() and not (home / "runs" / "cut").exists()


def test_an_init_without_weights_is_one_line_and_no_run(home, run, tmp_path, capsys):  # noqa: F811
    init = tmp_path / "init"
    init.mkdir()
    shutil.copy(run / "config.json", init / "config.json")
    assert _train(home, "from-bad-init", "--init", str(init), "--max-tokens", "400") == 2
    err = capsys.readouterr().err
    assert "not a usable model" in err and err.count("\n") == 1
    assert not (home / "runs" / "from-bad-init").exists()


@pytest.mark.parametrize("flag, value", [("--max-tokens", "inf"), ("--max-tokens", "nan"),
                                         ("--max-minutes", "nan"), ("--lr", "inf"),
                                         ("--threads", "100000")])
def test_a_number_no_run_can_use_is_one_line(home, capsys, monkeypatch, flag, value):  # noqa: F811
    # Before: inf / nan tokens a traceback, lr inf a run of NaN weights, 100000 threads a
    # SIGSEGV in OpenMP.
    def no_run(*_a, **_k):
        raise AssertionError("training started")

    monkeypatch.setattr("remask.cli.train.train", no_run)
    assert _train(home, "bad-number", flag, value) == 2
    err = capsys.readouterr().err
    assert err.startswith("remask train: ") and err.count("\n") == 1
