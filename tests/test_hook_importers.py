"""The hook follows a commit's renamed or re-signed names into the modules importing them.

Real repositories, the real bundled model through ``remask hook run``; the follow-ups here are
mechanical (the imported name, call sites' arguments), so each test requires the rewrite.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hook_repo import GitRepo, make_repo

from remask.cli import main

LIB = "def total(xs, scale):\n    return sum(xs) * scale\n"
USE = "from pkg.lib import total\n\n\ndef report(xs):\n    return total(xs, 2)\n"
MAIN = "from pkg import lib\n\nprint(lib.total([1], scale=3))\n"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    r = make_repo(tmp_path, monkeypatch)
    for path, text in {"pkg/__init__.py": "", "pkg/lib.py": LIB, "pkg/use.py": USE,
                       "main.py": MAIN, "README.md": "total\n"}.items():
        r.write(path, text)
    r.commit()
    return r


@pytest.mark.slow
def test_staged_and_unstaged_importers_follow_a_rename(repo, capsys) -> None:
    repo.write("pkg/lib.py", LIB.replace("def total", "def grand_total"))
    repo.git("add", "pkg/lib.py")
    repo.write("main.py", MAIN + "# unstaged work\n")  # main.py: the index only
    assert main(["hook", "run"]) == 1
    out = capsys.readouterr().out
    assert repo.staged("pkg/use.py").decode() == USE.replace("total", "grand_total")
    assert repo.read("pkg/use.py").decode() == USE.replace("total", "grand_total")
    assert repo.staged("main.py").decode() == MAIN.replace("total", "grand_total")
    assert repo.read("main.py").decode() == MAIN + "# unstaged work\n"  # left as it was
    assert "pkg/use.py: Rename 2 references (lines 1, 5), following pkg/lib.py " \
        "(this file was not staged); wrote the index and working tree" in out
    assert "main.py: " in out and "index only" in out
    assert "rewrote 2 files" in out
    assert main(["hook", "run"]) == 0  # the second run has nothing left to do


@pytest.mark.slow
def test_a_staged_importer_gets_its_call_sites_updated_beside_its_own_edit(repo) -> None:
    repo.write("pkg/lib.py", LIB.replace("(xs, scale)", "(xs, *, scale)"))
    repo.write("pkg/use.py", USE + "\n\ndef twice(xs):\n    return report(xs) * 2\n")
    repo.git("add", "pkg/lib.py", "pkg/use.py")
    assert main(["hook", "run", "--dry-run"]) == 1
    assert repo.staged("pkg/use.py").decode().count("scale") == 0  # dry run: nothing written
    assert main(["hook", "run"]) == 1
    staged = repo.staged("pkg/use.py").decode()
    assert "return total(xs, scale=2)" in staged and "def twice(xs)" in staged
    assert repo.staged("main.py").decode() == MAIN  # passes scale by name already


def test_an_edit_inside_a_function_loads_no_model_and_touches_no_importer(repo) -> None:
    repo.write("pyproject.toml", '[tool.remask]\nmodel = "no-such-model"\n')
    repo.commit()
    repo.write("pkg/lib.py", LIB.replace("* scale", "* scale + 0"))
    repo.git("add", "pkg/lib.py")
    assert main(["hook", "run"]) == 0  # a missing model would be exit 2
    assert repo.staged("main.py").decode() == MAIN


@pytest.mark.slow
def test_importers_through_star_re_exports_the_commit_leaves_out(repo) -> None:
    # neither package __init__ spells ``total``: the hook reads them as the edited file's
    # packages and as modules naming its module
    repo.write("pkg/__init__.py", "from .sub import *\n")
    repo.write("pkg/sub/__init__.py", "from .lib import *\n")
    repo.write("pkg/sub/lib.py", LIB)
    repo.write("app.py", "from pkg import total\n\nprint(total([1], 2))\n")
    repo.commit()
    repo.write("pkg/sub/lib.py", LIB.replace("def total", "def grand_total"))
    repo.git("add", "pkg/sub/lib.py")
    assert main(["hook", "run"]) == 1
    assert repo.staged("app.py").decode() == "from pkg import grand_total\n\n" \
        "print(grand_total([1], 2))\n"
    assert repo.staged("pkg/__init__.py").decode() == "from .sub import *\n"


def test_a_moved_module_updates_its_importers_without_a_model(repo, capsys) -> None:
    repo.write("pyproject.toml", '[tool.remask]\nmodel = "no-such-model"\n')
    repo.write("pkg/helpers.py", "")
    repo.write("pkg/lib.py", "from . import helpers\n\n" + LIB)
    repo.commit()
    (repo.root / "pkg/sub").mkdir()
    repo.write("pkg/sub/__init__.py", "")
    repo.git("add", "pkg/sub/__init__.py")
    repo.git("mv", "pkg/lib.py", "pkg/sub/core.py")
    repo.write("main.py", MAIN + "# unstaged work\n")  # main.py: the index only
    assert main(["hook", "run"]) == 1  # a model would be loaded in vain: exit 2
    out = capsys.readouterr().out
    moved = "from .. import helpers\n\n" + LIB  # its own import, from where it is now
    assert repo.staged("pkg/sub/core.py").decode() == moved == repo.read("pkg/sub/core.py").decode()
    assert repo.staged("pkg/use.py").decode() == USE.replace("from pkg.lib", "from pkg.sub.core")
    assert repo.staged("main.py").decode() == \
        "from pkg.sub import core\n\nprint(core.total([1], scale=3))\n"
    assert repo.read("main.py").decode() == MAIN + "# unstaged work\n"
    assert "pkg/use.py: Update 1 reference to the moved module (line 1), following the move " \
        "of pkg/lib.py to " \
        "pkg/sub/core.py (this file was not staged)" in out, out
    assert main(["hook", "run"]) == 0


def test_a_moved_module_updates_the_config_and_docs_naming_it(repo, capsys) -> None:
    toml = ('[tool.remask]\nmodel = "no-such-model"\n\n[project.scripts]\n'
            'tool = "pkg.lib:total"\n\n[tool.ruff.lint.per-file-ignores]\n'
            '"pkg/lib.py" = ["E501"]\n')
    repo.write("pyproject.toml", toml)
    repo.write("docs/api.rst", ".. automodule:: pkg.lib\n\nWhy pkg.lib is slow.\n")
    repo.write("CHANGES.md", "pkg.lib is new\n")
    repo.commit()
    repo.git("mv", "pkg/lib.py", "pkg/core.py")
    assert main(["hook", "run"]) == 1  # and no model loaded: that would be exit 2
    assert repo.staged("pyproject.toml").decode() == \
        toml.replace("pkg.lib:", "pkg.core:").replace("pkg/lib.py", "pkg/core.py")
    assert repo.read("pyproject.toml") == repo.staged("pyproject.toml")
    assert repo.staged("docs/api.rst").decode() == \
        ".. automodule:: pkg.core\n\nWhy pkg.lib is slow.\n"
    assert repo.staged("CHANGES.md").decode() == "pkg.lib is new\n"
    out = capsys.readouterr().out
    assert "pyproject.toml: Update 2 references to the moved module (lines 5, 8), following " \
        "the move of " \
        "pkg/lib.py to pkg/core.py (this file was not staged)" in out, out
    assert main(["hook", "run"]) == 0


def test_a_function_moved_to_another_module_updates_its_importers(repo, capsys) -> None:
    toml = '[tool.remask]\nmodel = "no-such-model"\n\n[project.scripts]\ntool = "pkg.lib:total"\n'
    repo.write("pyproject.toml", toml)
    repo.write("pkg/lib.py", LIB + "\n\ndef grand(xs):\n    return total(xs, 10)\n")
    repo.write("tests.py", 'from unittest import mock\n\nmock.patch("pkg.lib.total")\n')
    repo.commit()
    repo.write("pkg/lib.py", "def grand(xs):\n    return total(xs, 10)\n")  # cut out
    repo.write("pkg/maths.py", LIB)  # pasted into a new module
    repo.git("add", "pkg/lib.py", "pkg/maths.py")
    repo.write("main.py", MAIN + "# unstaged work\n")  # main.py: the index only
    assert main(["hook", "run"]) == 1  # and no model loaded: that would be exit 2
    assert repo.staged("pkg/lib.py").decode() == \
        "from pkg.maths import total\n\n\ndef grand(xs):\n    return total(xs, 10)\n"
    assert repo.staged("pkg/use.py").decode() == USE.replace("pkg.lib", "pkg.maths")
    assert repo.staged("main.py").decode() == \
        "from pkg import maths\n\nprint(maths.total([1], scale=3))\n"  # lib read for it alone
    assert repo.read("main.py").decode() == MAIN + "# unstaged work\n"
    assert repo.staged("tests.py").decode() == \
        'from unittest import mock\n\nmock.patch("pkg.maths.total")\n'
    assert repo.staged("pyproject.toml").decode() == toml.replace("pkg.lib:", "pkg.maths:")
    out = capsys.readouterr().out
    assert "pkg/use.py: Update 1 reference to the moved definition (line 1), following the " \
        "move of pkg.lib.total to pkg.maths.total (this file was not staged)" in out, out
    assert main(["hook", "run"]) == 0


def test_an_import_cycle_a_staged_move_makes_is_a_warning(repo, capsys) -> None:
    repo.write("pkg/__init__.py", "from .conv import Converter\n")
    repo.write("pkg/conv.py", "from .helpers import h\n\n\nclass Converter:\n    pass\n")
    repo.write("pkg/helpers.py", "def h():\n    pass\n")
    repo.write("pkg/pre/__init__.py", "from ..conv import Converter\n")
    repo.commit()
    repo.git("mv", "pkg/helpers.py", "pkg/pre/helpers.py")
    assert main(["hook", "run"]) == 1
    assert repo.staged("pkg/conv.py").decode().startswith("from .pre.helpers import h\n")
    out = capsys.readouterr().out
    assert "remask hook: warning: importing pkg first may now fail: pkg -> pkg.conv -> " \
        "pkg.pre.helpers -> pkg.pre imports Converter" in out, out
    assert main(["hook", "run"]) == 0  # the cycle stays; the commit is the user's call

