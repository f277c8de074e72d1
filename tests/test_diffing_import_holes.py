"""A hole that ends an import's list: the modules and names the file reads and never binds."""

from __future__ import annotations

import json

import pytest

from remask.cli import main
from remask.diffing.holes import cursor_hole, marker_spans
from remask.diffing.import_holes import import_candidates
from remask.diffing.rewriter import Rewriter

USES = "\n\ndef area(r):\n    return math.pi * r ** 2, re.sub('a', 'b', str(r))\n"


def candidates(text: str, path: str | None = None) -> tuple[str, ...]:
    i = text.index("???")
    return import_candidates(text, i, i + 3, "???", path)


def test_import_takes_the_modules_the_file_reads_first_use_first():
    assert candidates("import ???" + USES) == ("math, re", "math", "re")
    # a module already imported, or a name that is no module, is no candidate
    assert candidates("import re\nimport ???" + USES) == ("math",)
    assert candidates("import ???\n\nprint(undefined_thing)\n") == ()
    assert candidates("import os, ???" + USES)[0] == "math, re"


def test_from_import_takes_the_names_the_module_defines():
    text = "from collections import ???\n\nd = OrderedDict(); c = Counter('ab'); e = Nope()\n"
    assert candidates(text) == ("OrderedDict, Counter", "OrderedDict", "Counter")
    # a compiled standard module is read by importing it; a name list in parentheses goes on
    text = "from math import (sqrt, ???)\n\nprint(pi * sqrt(2), floor(1.5))\n"
    assert candidates(text) == ("pi, floor", "pi", "floor")
    # ``os`` binds ``path`` under an ``if``, ``getcwd`` by ``from posix import *``, and
    # imports ``sys`` for itself; ``os.path`` is the module ``os`` sets as it runs
    text = "from os import ???\n\nprint(path.join(getcwd(), 'b'), sys.argv)\n"
    assert candidates(text) == ("path, getcwd", "path", "getcwd")
    text = "from os.path import ???\n\nprint(splitext(basename('a.b')))\n"
    assert candidates(text) == ("splitext, basename", "splitext", "basename")


def test_the_projects_own_modules_are_found_beside_the_file(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "helpers.py").write_text("import os\nfrom ._impl import *\n__all__ = ['shout']\n\n"
                                    "def shout(s):\n    return s\n\n"
                                    "def whisper(s):\n    return s\n")
    (pkg / "_impl.py").write_text("def hum(s):\n    return s\n\ndef _private(s):\n    pass\n")
    (pkg / "sub").mkdir()
    (pkg / "sub" / "__init__.py").write_text("VALUE = 1\n")
    (pkg / "sub" / "deep.py").write_text("")
    main_py = str(pkg / "main.py")
    # a script's folder is on ``sys.path`` when it runs; a package's is not
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "helpers.py").write_text("")
    uses = "import ???\n\nhelpers.shout('x')\n"
    assert candidates(uses, str(tmp_path / "tools" / "run.py")) == ("helpers",)
    assert candidates(uses, main_py) == ()
    # ``__all__`` is what a star import takes; ``from .helpers import whisper`` works too.
    # ``hum`` comes from a star import; ``os`` is a module helpers imports for itself
    text = "from .helpers import ???\n\nshout(whisper(hum(_private(os.sep))))\n"
    assert candidates(text, main_py) == ("shout, whisper, hum", "shout", "whisper", "hum")
    text = "from pkg.sub import ???\n\nprint(VALUE, deep, other)\n"
    assert candidates(text, str(tmp_path / "run.py")) == ("VALUE, deep", "VALUE", "deep")


@pytest.mark.parametrize("text", [
    "import ??? as m" + USES,  # the hole names one module, which `as` renames
    "x = ???" + USES,  # no import
    "from os import *\nimport ???" + USES,  # a star import may bind anything
])
def test_other_holes_get_no_import_candidates(text):
    assert candidates(text) == ()


def test_the_hole_spans_carry_them():
    text = "import ???" + USES
    [span] = marker_spans(text, "???")
    assert span.mechanical == ("math, re", "math", "re")
    typed = "import " + USES
    assert cursor_hole(typed, len("import "), "???").mechanical[0] == "math, re"


def test_fill_imports_what_the_file_reads(tmp_path, capsys):
    # the model wrote `import os`
    src = tmp_path / "area.py"
    src.write_text("import ???" + USES)
    assert main(["fill", str(src), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["text"] == "import math, re" + USES


def test_an_import_typed_up_to_its_name_is_completed_with_it(engine):
    # the inline-completion path: the rest of the line after `from collections import `
    text = "from collections import \n\n\ndef count(xs):\n    return Counter(xs), deque(xs)\n"
    p = Rewriter(engine).fill_at(text, text.index(" \n") + 1, "c.py")
    assert p is not None and p.trace["sources"] == ["mechanical"]
    assert p.text.startswith("from collections import Counter, deque\n")
