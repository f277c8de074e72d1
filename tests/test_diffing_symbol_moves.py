"""A def or class moved to another module: found in an edit, and its follow-ups, run for real.

Each project is written to disk, the follow-ups applied, and the result imported and called in
a fresh interpreter: the check is that the code works after the move, not a spelling.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from remask.diffing.cycles import move_cycles
from remask.diffing.moves import moved_proposal, project_moves
from remask.diffing.relocate import Module, relocate
from remask.diffing.symbol_moves import moved_symbols, symbol_move

LIB = '"""Numbers."""\nimport os\n\n__all__ = ["grand", "total"]\n\n\n' \
    "def total(xs):\n    return sum(xs)\n\n\ndef grand(xs):\n    return total(xs) * 10\n"
USERS = {
    "pkg/use.py": "from pkg.lib import grand, total\n\n\ndef report(xs):\n"
                  "    return total(xs), grand(xs)\n",
    "pkg/dotted.py": "import pkg.lib\n\n\ndef report(xs):\n    return pkg.lib.total(xs)\n",
    "pkg/module.py": "from pkg import lib\n\n\ndef report(xs):\n    return lib.total(xs)\n",
    "pkg/both.py": "from . import lib\n\n\ndef report(xs):\n"
                   "    return lib.total(xs), lib.grand(xs)\n",
    "pkg/patched.py": 'from unittest import mock\n\nPATCH = mock.patch("pkg.lib.total")\n',
}


def project(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def follow(root: Path, old: str, new: str, name: str) -> dict[str, str]:
    """Apply the move's follow-ups to the files under ``root``; return the changed ones."""
    move = symbol_move(root / old, root / new, name, root)
    assert move is not None
    texts = {str(p): p.read_text() for p in root.rglob("*.py")}
    changed = {}
    for path, spans in project_moves([move], texts, root).items():
        proposal = moved_proposal(texts[path], spans, path, "definition")
        assert proposal is not None, path
        Path(path).write_text(proposal.text)
        changed[Path(path).relative_to(root).as_posix()] = proposal.text
    return changed


def run(root: Path, code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_function_moved_out_keeps_every_importer_working(tmp_path):
    project(tmp_path, {"pkg/__init__.py": "", "pkg/lib.py": LIB, **USERS})
    # the user cuts total out of lib.py and pastes it into a new module
    project(tmp_path, {"pkg/lib.py": LIB.replace("def total(xs):\n    return sum(xs)\n\n\n", ""),
                       "pkg/maths.py": "def total(xs):\n    return sum(xs)\n"})
    changed = follow(tmp_path, "pkg/lib.py", "pkg/maths.py", "total")
    assert changed["pkg/use.py"].startswith("from pkg.lib import grand\nfrom pkg.maths import "
                                            "total\n")
    assert "import pkg.lib\nimport pkg.maths\n" in changed["pkg/dotted.py"]
    assert changed["pkg/module.py"].startswith("from pkg import maths\n")  # lib: total alone
    assert changed["pkg/both.py"].startswith("from . import lib\nfrom . import maths\n")
    assert '"pkg.maths.total"' in changed["pkg/patched.py"]
    # lib.py still calls it, lists it in __all__ no more, and imports it from its new home
    assert "from pkg.maths import total\n" in changed["pkg/lib.py"]
    assert '__all__ = ["grand"]' in changed["pkg/lib.py"]
    assert run(tmp_path, "import pkg.use, pkg.dotted, pkg.module, pkg.both, pkg.patched, "
                         "pkg.lib\nx = [1, 2]\nprint(pkg.use.report(x), pkg.dotted.report(x), "
                         "pkg.module.report(x), pkg.both.report(x), pkg.lib.grand(x))"
               ) == "(3, 30) 3 3 (3, 30) 30"


def test_where_the_new_module_imports_the_old_one_its_callers_import_it_when_called(tmp_path):
    lib = "def total(xs):\n    return sum(xs)\n\n\ndef grand(xs):\n    return total(xs) * 10\n"
    project(tmp_path, {"pkg/__init__.py": "", "pkg/lib.py": lib,
                       "pkg/maths.py": "from .lib import grand\n\n\ndef mean(xs):\n"
                                       "    return grand(xs) / 10 / len(xs)\n"})
    project(tmp_path, {"pkg/lib.py": 'def grand(xs):\n    """Ten times."""\n'
                                     "    return total(xs) * 10\n",
                       "pkg/maths.py": "from .lib import grand\n\n\ndef mean(xs):\n"
                                       "    return grand(xs) / 10 / len(xs)\n\n\n"
                                       "def total(xs):\n    return sum(xs)\n"})
    changed = follow(tmp_path, "pkg/lib.py", "pkg/maths.py", "total")
    assert changed["pkg/lib.py"] == 'def grand(xs):\n    """Ten times."""\n' \
        "    from pkg.maths import total\n    return total(xs) * 10\n"  # the docstring stays
    for first in ("pkg.lib", "pkg.maths"):  # a top-level import would fail one of these
        assert run(tmp_path, f"import {first}\nimport pkg.lib, pkg.maths\n"
                             "print(pkg.maths.mean([1, 2, 3]))") == "2.0"


def test_the_new_home_drops_its_import_of_the_name_from_the_old_one(tmp_path):
    project(tmp_path, {"pkg/__init__.py": "",
                       "pkg/lib.py": "def keep():\n    return 1\n",
                       "pkg/use.py": "from .lib import keep, total\n\n\n"
                                     "def total(xs):\n    return sum(xs) + keep()\n",
                       "pkg/only.py": "import os\nfrom pkg.lib import Thing\nfrom pkg import lib"
                                      "\n\n\nclass Thing:\n    pass\n\n\n"
                                      "def make() -> lib.Thing:\n    return lib.keep()\n"})
    changed = follow(tmp_path, "pkg/lib.py", "pkg/use.py", "total")
    assert changed["pkg/use.py"].startswith("from .lib import keep\n\n\ndef total")
    changed = follow(tmp_path, "pkg/lib.py", "pkg/only.py", "Thing")
    assert changed["pkg/only.py"] == "import os\nfrom pkg import lib\n\n\nclass Thing:\n" \
        "    pass\n\n\ndef make() -> Thing:\n    return lib.keep()\n"  # itself: no import
    assert run(tmp_path, "import pkg.use, pkg.only\nprint(pkg.use.total([1]))") == "2"


def test_moves_are_found_in_an_edit_and_a_re_export_is_none():
    a = "def total(xs):\n    return sum(xs)\n\n\nclass Box:\n    pass\n"
    found = moved_symbols([("/p/pkg/a.py", a, "class Box:\n    pass\n"),
                           ("/p/pkg/b.py", None, "def total(xs):\n    return sum(xs)\n")], "/p")
    assert [(m.old, m.new, m.symbol) for m in found] == [("pkg.a.total", "pkg.b.total", True)]
    # a.py imports it back from b.py: whoever imports it from a still gets it
    assert moved_symbols([("/p/pkg/a.py", a, "from .b import total\n"),
                          ("/p/pkg/b.py", "", "def total(xs):\n    return sum(xs)\n")],
                         "/p") == []
    # pasted into two modules: which one the importers want is the user's call
    twice = [("/p/pkg/a.py", a, ""), ("/p/pkg/b.py", "", "def total():\n    pass\n"),
             ("/p/pkg/c.py", "", "def total():\n    pass\n")]
    assert moved_symbols(twice, "/p") == []
    # a def renamed in place is no move; nor is a file that no longer parses
    assert moved_symbols([("/p/pkg/a.py", a, a.replace("total", "tot"))], "/p") == []
    assert moved_symbols([("/p/pkg/a.py", a, "def (:\n"),
                          ("/p/pkg/b.py", "", "def total(xs):\n    pass\n")], "/p") == []


def test_an_import_cycle_the_move_makes_is_said(tmp_path):
    # Abort pasted at the end of core.py, which imports termui first: termui's import of it
    # now finds core half-run, whichever module a program imports first
    project(tmp_path, {"pkg/__init__.py": "from .core import run\n",
                       "pkg/errors.py": "class Abort(Exception):\n    pass\n",
                       "pkg/core.py": "from .termui import ask\n\n\ndef run():\n    return ask()\n",
                       "pkg/termui.py": "from .errors import Abort\n\n\ndef ask():\n"
                                        "    return Abort\n"})
    project(tmp_path, {"pkg/errors.py": "",
                       "pkg/core.py": "from .termui import ask\n\n\ndef run():\n    return ask()\n"
                                      "\n\nclass Abort(Exception):\n    pass\n"})
    changed = follow(tmp_path, "pkg/errors.py", "pkg/core.py", "Abort")
    assert changed["pkg/termui.py"].startswith("from .core import Abort\n")
    move = symbol_move(tmp_path / "pkg/errors.py", tmp_path / "pkg/core.py", "Abort", tmp_path)
    [cycle] = move_cycles([move], {str(p): p.read_text() for p in tmp_path.rglob("*.py")},
                          tmp_path)
    assert cycle.said() == "importing pkg first may now fail: pkg -> pkg.core -> pkg.termui " \
        "imports Abort from pkg.core before that module defines it (an import cycle the move " \
        "makes)"
    done = subprocess.run([sys.executable, "-c", "import pkg"], cwd=tmp_path,
                          capture_output=True, text=True)
    assert "cannot import name 'Abort' from partially initialized module" in done.stderr


def test_a_def_removed_and_another_of_its_name_written_elsewhere_is_no_move():
    old = "def main():\n    parse()\n    run()\n    return 0\n"
    new = "def main(argv):\n    args = build(argv)\n    serve(args)\n    log.close()\n"
    assert moved_symbols([("/p/pkg/a.py", old, ""), ("/p/pkg/b.py", "", new)], "/p") == []
    touched = old.replace("    return 0\n", "    cleanup()\n    return 0\n")  # moved, edited
    assert len(moved_symbols([("/p/pkg/a.py", old, ""), ("/p/pkg/b.py", "", touched)],
                             "/p")) == 1


def test_relocate_takes_the_imports_along_and_drops_those_left_unused():
    old = Module('"""Numbers."""\nimport os\nimport re\nfrom .util import clean\n\n'
                 'SEP = os.sep\n\n\n# the sum, cleaned\n@cache\ndef total(xs):\n'
                 '    return sum(clean(x) for x in xs) + len(SEP) + len(re.escape("a"))\n\n\n'
                 'def grand(xs):\n    return total(xs) * 10\n', "pkg.lib", False)
    new = Module('"""Maths."""\nfrom .util import clean\n\n\ndef mean(xs):\n    return 0\n',
                 "pkg.sub.maths", False)
    old = Module(old.text.replace("@cache\n", "@functools.cache\n").replace(
        "import os\n", "import functools\nimport os\n"), old.name, old.package)
    done = relocate(old, new, "total")
    assert done.old == '"""Numbers."""\nimport os\n\nSEP = os.sep\n\n\n' \
        "def grand(xs):\n    return total(xs) * 10\n"  # functools, re, clean: read by it alone
    assert done.new == '"""Maths."""\nfrom .util import clean\nimport functools\nimport re\n' \
        'from ..lib import SEP\n\n\ndef mean(xs):\n    return 0\n\n\n# the sum, cleaned\n' \
        "@functools.cache\ndef total(xs):\n" \
        '    return sum(clean(x) for x in xs) + len(SEP) + len(re.escape("a"))\n'
    assert done.imported == ("SEP", "functools", "re")  # clean: maths.py has it
    assert relocate(old, new, "grand_total") == \
        "defines no grand_total at its top level (one inside an if or a try is not moved)"


def test_relocate_keeps_type_checking_imports_for_type_checkers():
    old = Module("from __future__ import annotations\n\nimport email.message\n"
                 "import email.parser\nfrom typing import TYPE_CHECKING\n\n"
                 "if TYPE_CHECKING:\n    from .conf import Conf\n\n\n"
                 "def read(conf: Conf) -> email.message.Message:\n"
                 "    return email.parser.Parser().parsestr(conf.text)\n", "pkg.lib", False)
    new = Module("import os\n", "pkg.io", False)
    done = relocate(old, new, "read")
    # Conf is imported for type checkers alone: the annotation must stay unevaluated there too
    assert done.new == "from __future__ import annotations\n\n" \
        "import os\nimport email.message\nimport email.parser\n" \
        "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from .conf import Conf\n\n\n" \
        "def read(conf: Conf) -> email.message.Message:\n" \
        "    return email.parser.Parser().parsestr(conf.text)\n"
    # the new module's own TYPE_CHECKING block takes it; a name it imports only for type
    # checkers is no runtime binding
    new = Module("import attrs\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n"
                 "    import email\n", "pkg.io", False)
    done = relocate(old, new, "read")
    assert "if TYPE_CHECKING:\n    import email\n    from .conf import Conf\n" in done.new
    assert done.imported == ("Conf", "email")


def test_relocate_moves_every_overload_with_the_implementation():
    old = Module("from typing import overload\n\n\n@overload\ndef get(x: int) -> int: ...\n"
                 "@overload\ndef get(x: str) -> str: ...\ndef get(x):\n    return x\n\n\n"
                 "def other():\n    return 1\n", "pkg.a", False)
    done = relocate(old, Module("", "pkg.b", False), "get")
    assert done.old == "def other():\n    return 1\n"
    assert done.new == "from typing import overload\n\n\n@overload\n" \
        "def get(x: int) -> int: ...\n\n@overload\ndef get(x: str) -> str: ...\n\n" \
        "def get(x):\n    return x\n"


def test_relocate_pastes_above_the_first_class_that_needs_it_as_the_module_runs(tmp_path):
    old = Module("class Base:\n    pass\n\n\nclass Item(Base):\n    pass\n", "pkg.nodes", False)
    new = Module("from . import nodes\n\n\nclass Parser:\n    def get(self) -> nodes.Item:\n"
                 "        return nodes.Item()\n\n\nclass Late(nodes.Base):\n    pass\n",
                 "pkg.parser", False)
    done = relocate(old, new, "Item")
    assert done.new == "from . import nodes\nfrom .nodes import Base\n\n\n" \
        "class Item(Base):\n    pass\n\n\nclass Parser:\n    def get(self) -> nodes.Item:\n" \
        "        return nodes.Item()\n\n\nclass Late(nodes.Base):\n    pass\n"
    # the same module with annotations left unevaluated: nothing reads Item as it runs
    lazy = Module("from __future__ import annotations\n\n" + new.text, new.name, False)
    assert relocate(old, lazy, "Item").new.endswith("\n\n\nclass Item(Base):\n    pass\n")
    project(tmp_path, {"pkg/__init__.py": "", "pkg/nodes.py": old.text, "pkg/parser.py": new.text})
    project(tmp_path, {"pkg/nodes.py": done.old, "pkg/parser.py": done.new})
    follow(tmp_path, "pkg/nodes.py", "pkg/parser.py", "Item")
    parser = (tmp_path / "pkg/parser.py").read_text()
    assert "def get(self) -> Item:\n        return Item()" in parser
    assert run(tmp_path, "import pkg.parser\nprint(type(pkg.parser.Parser().get()).__name__)") \
        == "Item"


def test_uses_through_a_from_imported_package_name_the_new_module_beside_it(tmp_path):
    project(tmp_path, {"pkg/__init__.py": "", "pkg/sub/__init__.py": "",
                       "pkg/sub/core.py": "class Source:\n    pass\n\n\n"
                                          "def other():\n    return 1\n",
                       "pkg/sub/termui.py": "",
                       # through the package: ``sub.core.Source``
                       "pkg/user.py": "from . import sub\nfrom .sub import core\n\n\n"
                                      "def f():\n    return sub.core.Source, core.other()\n",
                       # core read for Source alone, termui imported already
                       "pkg/user2.py": "from .sub import core\nfrom .sub import termui\n\n\n"
                                       "def g():\n    return core.Source, termui\n"})
    project(tmp_path, {"pkg/sub/core.py": "def other():\n    return 1\n",
                       "pkg/sub/termui.py": "class Source:\n    pass\n"})
    changed = follow(tmp_path, "pkg/sub/core.py", "pkg/sub/termui.py", "Source")
    assert changed["pkg/user.py"] == "from . import sub\nfrom .sub import termui\n" \
        "from .sub import core\n\n\ndef f():\n    return termui.Source, core.other()\n"
    assert changed["pkg/user2.py"] == "from .sub import termui\n\n\n" \
        "def g():\n    return termui.Source, termui\n"
    assert run(tmp_path, "import pkg.user, pkg.user2\nprint(pkg.user.f()[0].__module__, "
                         "pkg.user2.g()[0].__module__)") == "pkg.sub.termui pkg.sub.termui"
