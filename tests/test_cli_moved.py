"""``remask moved OLD NEW`` end to end through ``main``, on a package moved on disk."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from remask.cli import main

MAIN = "from pkg import old\n\nprint(old.f())\n"


def run(capsys, *argv):
    code = main(["moved", *map(str, argv)])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def root(tmp_path, monkeypatch):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("")
    (tmp_path / "pkg/old.py").write_text("from . import helpers\n\n\ndef f():\n    return 1\n")
    (tmp_path / "pkg/helpers.py").write_text("")
    (tmp_path / "main.py").write_text(MAIN)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_renamed_module_diff_json_and_write(root, capsys):
    (root / "pkg/old.py").rename(root / "pkg/new.py")
    code, out, err = run(capsys, "pkg/old.py", "pkg/new.py")
    assert code == 0, err
    assert "-from pkg import old\n+from pkg import new\n" in out and "+print(new.f())" in out
    assert (root / "main.py").read_text() == MAIN  # not written without --write
    code, out, _ = run(capsys, "pkg/old.py", "pkg/new.py", "--json")
    [line] = out.splitlines()
    assert json.loads(line)["text"] == "from pkg import new\n\nprint(new.f())\n"
    code, _, _ = run(capsys, "pkg/old.py", "pkg/new.py", "--write")
    assert code == 0 and (root / "main.py").read_text() == "from pkg import new\n\nprint(new.f())\n"
    code, out, err = run(capsys, "pkg/old.py", "pkg/new.py")
    assert (code, out) == (0, "") and "nothing under . imports it (pkg.old -> pkg.new)" in err


def test_a_module_moved_down_a_package_writes_its_own_imports(root, capsys):
    (root / "pkg/sub").mkdir()
    (root / "pkg/sub/__init__.py").write_text("")
    (root / "pkg/old.py").rename(root / "pkg/sub/old.py")
    code, _, err = run(capsys, "pkg/old.py", "pkg/sub/old.py", "--write")
    assert code == 0, err
    assert (root / "pkg/sub/old.py").read_text().startswith("from .. import helpers\n")
    assert (root / "main.py").read_text() == "from pkg.sub import old\n\nprint(old.f())\n"


def test_the_config_and_docs_naming_a_moved_module_are_written_too(root, capsys):
    toml = '[project.scripts]\ntool = "pkg.old:f"\n\n[tool.coverage.run]\nomit = ["pkg/old.py"]\n'
    (root / "pyproject.toml").write_text(toml)
    (root / "docs").mkdir()
    (root / "docs/api.md").write_text("::: pkg.old\n\npkg.old does f.\n")
    (root / "pkg/old.py").rename(root / "pkg/new.py")
    code, _, err = run(capsys, "pkg/old.py", "pkg/new.py", "--write")
    assert code == 0, err
    assert (root / "pyproject.toml").read_text() == \
        toml.replace("pkg.old", "pkg.new").replace("pkg/old.py", "pkg/new.py")
    assert (root / "docs/api.md").read_text() == "::: pkg.new\n\npkg.old does f.\n"


def test_an_import_cycle_the_move_makes_is_a_warning(root, capsys):
    (root / "pkg/__init__.py").write_text("from .conv import Converter\n")
    (root / "pkg/conv.py").write_text("from .helpers import h\n\n\nclass Converter:\n    pass\n")
    (root / "pkg/helpers.py").write_text("def h():\n    pass\n")
    (root / "pkg/pre").mkdir()
    (root / "pkg/pre/__init__.py").write_text("from ..conv import Converter\n")
    (root / "pkg/helpers.py").rename(root / "pkg/pre/helpers.py")
    code, _, err = run(capsys, "pkg/helpers.py", "pkg/pre/helpers.py", "--write")
    assert code == 0
    assert (root / "pkg/conv.py").read_text().startswith("from .pre.helpers import h\n")
    assert "remask moved: warning: importing pkg first may now fail: pkg -> pkg.conv -> " \
        "pkg.pre.helpers -> pkg.pre imports Converter from pkg.conv before that module " \
        "defines it (an import cycle the move makes)" in err, err


def test_a_move_not_made_yet_is_previewed_then_made(root, capsys):
    code, out, err = run(capsys, "pkg/old.py", "pkg/sub/new.py")
    assert code == 0 and "pkg/old.py is not moved yet" in err
    assert "-from pkg import old\n+from pkg.sub import new\n" in out
    assert "-from . import helpers\n+from .. import helpers\n" in out  # its own, where it was
    assert (root / "pkg/old.py").exists() and (root / "main.py").read_text() == MAIN
    code, _, err = run(capsys, "pkg/old.py", "pkg/sub/new.py", "--write")
    assert code == 0, err
    assert not (root / "pkg/old.py").exists()
    assert (root / "pkg/sub/new.py").read_text().startswith("from .. import helpers\n")
    assert (root / "main.py").read_text() == "from pkg.sub import new\n\nprint(new.f())\n"


def test_a_tracked_module_is_moved_with_git_mv(root, capsys):
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=root, check=True)
    code, _, err = run(capsys, "pkg/old.py", "pkg/new.py", "--write")
    assert code == 0, err
    status = subprocess.run(["git", "status", "--short"], cwd=root, capture_output=True,
                            text=True, check=True).stdout
    assert "R  pkg/old.py -> pkg/new.py" in status  # staged as a rename; main.py unstaged
    assert " M main.py" in status


@pytest.mark.parametrize("old, new, says", [
    ("pkg/gone.py", "pkg/new.py", "pkg/gone.py: not found, nor pkg/new.py"),
    ("pkg/gone.py", "pkg/old.py", "nothing under . imports it (pkg.gone -> pkg.old)"),
    ("main.py", "pkg/old.py", "pkg/old.py: already there, and so is main.py"),
    ("notes.txt", "README.md", "README.md: not a Python module or package folder"),
    ("pkg/old.py", "pkg/old.txt", "pkg/old.txt: a .py module must stay one"),
    ("pkg/old.py", "./pkg/old.py", "pkg/old.py -> ./pkg/old.py: the same path"),
])
def test_bad_input_is_one_line(root, capsys, old, new, says):
    Path("README.md").write_text("")
    code, out, err = run(capsys, old, new)
    assert says in err and len(err.splitlines()) == 1 and out == ""
    assert code == (0 if "nothing under" in says else 2)


def test_a_name_no_import_can_spell(root, capsys):
    Path("my-script.py").write_text("x = 1\n")
    code, _, err = run(capsys, "my-old-script.py", "my-script.py")
    assert code == 2 and "no import can name one of them" in err
    code, _, err = run(capsys, "pkg/old.py", "pkg/new.py", "--project", "nowhere")
    assert code == 2 and "--project nowhere: not a directory" in err
    (root / "pkg/old.py").rename(root / "pkg/new.py")
    code, _, err = run(capsys, "pkg/old.py", "pkg/new.py", "--project", "pkg")
    assert code == 0, err  # the package folder as the project: pkg/new.py is new there
    code, _, err = run(capsys, "../elsewhere.py", "pkg/new.py")
    assert code == 2 and "../elsewhere.py: outside --project ." in err


def test_remask_moved_loads_no_torch():
    """No model is loaded for a move, so importing torch (seconds) is pure start-up cost."""
    import sys

    run = subprocess.run([sys.executable, "-c", "import sys, remask.cli.moved; "
                          "print('torch' in sys.modules)"], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.strip() == "False", run.stderr


def test_a_function_moved_to_another_module_updates_its_importers(root, capsys):
    (root / "pyproject.toml").write_text('[project.scripts]\ntool = "pkg.old:f"\n')
    code, _, err = run(capsys, "pkg/old.py::f", "pkg/helpers.py")
    (root / "pkg/old.py").write_text("")
    code, _, err = run(capsys, "pkg/old.py::f", "pkg/helpers.py")
    assert (code, err.strip()) == (2, "remask moved: pkg/helpers.py does not define f, nor "
                                      "does pkg/old.py")
    (root / "pkg/old.py").write_text("from . import helpers\n\n\ndef f():\n    return 1\n")
    (root / "pkg/helpers.py").write_text("def f():\n    return 1\n")
    code, _, err = run(capsys, "pkg/old.py::f", "pkg/helpers.py")
    assert code == 2 and "pkg/old.py and pkg/helpers.py both define f" in err
    (root / "pkg/old.py").write_text("from . import helpers\n")  # cut out
    code, out, err = run(capsys, "pkg/old.py::f", "pkg/helpers.py")
    assert code == 0, err
    assert "-from pkg import old\n+from pkg import helpers\n" in out
    assert (root / "main.py").read_text() == MAIN  # not written without --write
    code, _, _ = run(capsys, "pkg/old.py::f", "pkg/helpers.py::f", "--write")
    assert code == 0
    assert (root / "main.py").read_text() == "from pkg import helpers\n\nprint(helpers.f())\n"
    assert (root / "pyproject.toml").read_text() == '[project.scripts]\ntool = "pkg.helpers:f"\n'
    assert subprocess.run(["python", "main.py"], cwd=root, capture_output=True,
                          text=True).stdout == "1\n"


def test_a_moved_function_bad_input_is_one_line(root, capsys):
    (root / "pkg/old.py").write_text("from .helpers import f\n")  # re-exported: nothing breaks
    (root / "pkg/helpers.py").write_text("def f():\n    return 1\n")
    code, out, err = run(capsys, "pkg/old.py::f", "pkg/helpers.py")
    assert (code, out) == (0, "") and "pkg/old.py still binds f (a re-export?)" in err
    for old, new, why in [("pkg/old.py::f", "pkg/helpers.py::g", "a moved f keeps its name"),
                          ("pkg/old.py::f", "pkg/old.py", "the same module"),
                          ("pkg/nope.py::f", "pkg/helpers.py", "pkg/nope.py: not a Python "
                                                               "module"),
                          ("pkg/old.py::f", "../elsewhere.py", "not a Python module")]:
        code, out, err = run(capsys, old, new)
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, (old, new, err)
        assert why in err, err


def test_remask_moves_a_function_itself_with_the_imports_it_reads(root, capsys):
    (root / "pkg/old.py").write_text("import os\nfrom . import helpers\n\n\ndef f():\n"
                                     "    return os.sep\n\n\ndef g():\n    return f()\n")
    (root / "pkg/helpers.py").write_text("X = 1\n")
    before = {p: (root / p).read_text() for p in ("pkg/old.py", "pkg/helpers.py", "main.py")}
    code, out, err = run(capsys, "pkg/old.py::f", "pkg/helpers.py")  # a preview
    assert code == 0 and "f is not moved yet" in err
    assert "+def f():" in out and "-def f():" in out
    assert {p: (root / p).read_text() for p in before} == before
    code, _, err = run(capsys, "pkg/old.py::f", "pkg/helpers.py", "--write")
    assert code == 0, err
    assert (root / "pkg/helpers.py").read_text() == \
        "import os\n\nX = 1\n\n\ndef f():\n    return os.sep\n"
    # old.py lost f and os, and imports f for g, which still calls it
    assert (root / "pkg/old.py").read_text() == \
        "from . import helpers\nfrom .helpers import f\n\n\ndef g():\n    return f()\n"
    assert (root / "main.py").read_text() == "from pkg import helpers\n\nprint(helpers.f())\n"
    done = subprocess.run(["python", "-c", "import main, pkg.old; print(pkg.old.g())"],
                          cwd=root, capture_output=True, text=True)
    assert done.stdout == "/\n/\n", done.stderr
