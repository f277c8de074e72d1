"""Import cycles a move makes, each finding checked against a real Python importing it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from remask.diffing.cycles import move_cycles
from remask.diffing.files import python_files
from remask.diffing.moves import moved_proposal, moves_for, project_moves


def write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def move(root: Path, old: str, new: str):
    """Move ``old`` to ``new`` with remask's follow-ups written; the cycles it finds."""
    moves = moves_for(root / old, root / new, root)
    (root / new).parent.mkdir(parents=True, exist_ok=True)
    (root / old).rename(root / new)
    texts = {str(p): p.read_text() for p in python_files(root)}
    for path, spans in project_moves(moves, texts, root).items():
        texts[path] = moved_proposal(texts[path], spans, path).text
        Path(path).write_text(texts[path])
    return move_cycles(moves, texts, root)


def imports(root: Path, module: str) -> str:
    """What a fresh Python says importing ``module`` first: "" where it imports."""
    run = subprocess.run([sys.executable, "-c", f"import {module}"], cwd=root,
                         capture_output=True, text=True)
    return run.stderr.strip().splitlines()[-1] if run.returncode else ""


CONVERTERS = {
    "pkg/__init__.py": "from .converters import Converter\n",
    "pkg/converters.py": "from .fns import identity\n\n\nclass Converter:\n    pass\n",
    "pkg/fns.py": "def identity(x):\n    return x\n",
    "pkg/preconf/__init__.py": "from ..converters import Converter\n",
}


def test_a_package_joined_that_imports_the_modules_importer(tmp_path):
    write(tmp_path, CONVERTERS)
    [cycle] = move(tmp_path, "pkg/fns.py", "pkg/preconf/fns.py")
    assert (cycle.first, cycle.half_run, cycle.name) == ("pkg", "pkg.converters", "Converter")
    assert cycle.chain == ("pkg", "pkg.converters", "pkg.preconf.fns", "pkg.preconf")
    assert "cannot import name 'Converter'" in imports(tmp_path, "pkg")
    assert cycle.said().startswith("importing pkg first may now fail: pkg -> pkg.converters")


def test_a_package_left_whose_init_came_first(tmp_path):
    write(tmp_path, {
        "app/__init__.py": "",
        "app/routing/__init__.py": "from .map import Map\n",
        "app/routing/map.py": "from .matcher import Matcher\n\n\nclass Map:\n    pass\n",
        "app/routing/matcher.py": "from .rules import Rule\n\n\nclass Matcher:\n    pass\n",
        "app/routing/rules.py": "class Rule:\n    pass\n",
        "app/debug/__init__.py": "",
    })
    assert imports(tmp_path, "app.routing.matcher") == ""  # routing's __init__ ran first
    [cycle] = move(tmp_path, "app/routing/matcher.py", "app/debug/matcher.py")
    assert (cycle.first, cycle.half_run, cycle.name) == ("app.debug.matcher", "app.debug.matcher",
                                                          "Matcher")
    assert "cannot import name 'Matcher'" in imports(tmp_path, "app.debug.matcher")


def test_cycles_that_import_nothing_half_run_are_not_said(tmp_path):
    write(tmp_path, {
        **CONVERTERS,
        # the name is bound before the import that comes back
        "pkg/converters.py": "class Converter:\n    pass\n\n\nfrom .fns import identity\n",
    })
    assert move(tmp_path, "pkg/fns.py", "pkg/preconf/fns.py") == []
    assert imports(tmp_path, "pkg") == imports(tmp_path, "pkg.preconf.fns") == ""


def test_imports_that_never_run_on_import_are_not_followed(tmp_path):
    write(tmp_path, {
        **CONVERTERS,
        "pkg/preconf/__init__.py": (
            "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
            "    from ..converters import Converter\n\n\ndef make():\n"
            "    from ..converters import Converter\n    return Converter()\n\n\n"
            "if __name__ == '__main__':\n    from ..converters import Converter\n"),
        "pkg/preconf/__init__.pyi": "from ..converters import Converter\n",  # never runs
    })
    assert move(tmp_path, "pkg/fns.py", "pkg/preconf/fns.py") == []
    assert imports(tmp_path, "pkg") == ""


def test_before_the_rename_the_files_are_read_where_they_were(tmp_path):
    write(tmp_path, CONVERTERS)
    moves = moves_for(tmp_path / "pkg/fns.py", tmp_path / "pkg/preconf/fns.py", tmp_path)
    texts = {str(p): p.read_text() for p in python_files(tmp_path)}
    for path, spans in project_moves(moves, texts, tmp_path).items():
        texts[path] = moved_proposal(texts[path], spans, path).text
    [cycle] = move_cycles(moves, texts, tmp_path, done=False)
    assert cycle.chain == ("pkg", "pkg.converters", "pkg.preconf.fns", "pkg.preconf")


def test_an_attribute_read_off_a_half_run_module_as_it_runs_is_a_cycle(tmp_path):
    # ``class Sub(base.Base)`` reads Base off pkg.base as it runs, as a from-import would;
    # once helpers sits in pkg.inner, whose package imports pkg.sub, pkg.base is half-run then
    write(tmp_path, {"pkg/__init__.py": "",
                     "pkg/base.py": "from .helpers import h\n\n\nclass Base:\n    pass\n",
                     "pkg/helpers.py": "def h():\n    pass\n",
                     "pkg/sub.py": "from . import base\n\n\nclass Sub(base.Base):\n    pass\n",
                     "pkg/inner/__init__.py": "from .. import sub\n"})
    assert imports(tmp_path, "pkg.base") == ""
    [cycle] = move(tmp_path, "pkg/helpers.py", "pkg/inner/helpers.py")
    assert cycle.said() == "importing pkg.base first may now fail: pkg.base -> " \
        "pkg.inner.helpers -> pkg.inner -> pkg.sub imports Base from pkg.base before that " \
        "module defines it (an import cycle the move makes)"
    assert "partially initialized module 'pkg.base' has no attribute 'Base'" in \
        imports(tmp_path, "pkg.base")
