"""A hole that is a binding's target: the names the code it binds for reads and nothing binds."""

from __future__ import annotations

import pytest

from remask.cli import main
from remask.diffing.binding_holes import binding_candidates
from remask.diffing.holes import cursor_hole, marker_spans


def candidates(text: str) -> tuple[str, ...]:
    i = text.index("???")
    return binding_candidates(text, i, i + 3, "???")


@pytest.mark.parametrize(("text", "expected"), [
    # parameters: all the names the body reads unbound, then each, by first read
    ("import math\n\ndef area(???):\n    return math.pi * r ** 2 + h\n", ("r, h", "r", "h")),
    ("def f(a, ???):\n    return a + b\n", ("b",)),
    ("class C:\n    def f(???):\n        return x + self.y\n", ("self, x", "self", "x")),
    ("g = lambda ???: x + 1\n", ("x",)),
    # a loop's target, a comprehension's
    ("def t(rows):\n    s = 0\n    for ??? in rows:\n        s += price * qty\n    return s\n",
     ("price, qty", "price", "qty")),
    ("def n(ps):\n    return [p.name for ??? in ps if p.age]\n", ("p",)),
    # a with's and an except's ``as``: one name
    ("def w(path, obj):\n    with open(path) as ???:\n        obj.dump(fh)\n", ("fh",)),
    ("try:\n    pass\nexcept OSError as ???:\n    print(err)\n", ("err",)),
    # an assignment's target: what the statements after it read
    ("def m(load):\n    ??? = load()\n    return config['name']\n", ("config",)),
])
def test_a_binding_takes_the_names_its_code_reads_unbound(text, expected):
    assert candidates(text) == expected


@pytest.mark.parametrize("text", [
    "def f(a):\n    x[???] = a\n    return y\n",  # a subscript's index binds nothing
    "def f(a):\n    ???.name = a\n    return y\n",  # nor an attribute's object
    "def f(???):\n    return len([])\n",  # nothing read unbound (len is a builtin)
    "y = 1\n\ndef f(???):\n    return y\n",  # a module's name is bound
    "def f(a):\n    return ???\n",  # no binding
    "def f(a):\n    for ??? in a:\n        pass\n    return zz\n",  # read after the loop only
    "from os import *\n\ndef f(???):\n    return q\n",  # a star import may bind anything
    "def f(???:\n",  # no parse
])
def test_other_holes_get_no_binding_candidates(text):
    assert candidates(text) == ()


def test_the_hole_spans_carry_them():
    text = "def area(???):\n    return 3.14 * r ** 2\n"
    [span] = marker_spans(text, "???")
    assert span.mechanical == ("r",)
    assert cursor_hole(text, text.index("???"), "???").mechanical == ("r",)


def test_fill_binds_what_the_code_reads(tmp_path, capsys):
    """The bundled model writes ``f`` for ``with open(...) as ???``; the body reads ``fh``."""
    src = tmp_path / "save.py"
    src.write_text("import json\n\n\ndef save(obj, path):\n    with open(path, 'w') as ???:\n"
                   "        json.dump(obj, fh)\n")
    assert main(["fill", str(src), "--write"]) == 0
    assert "as fh:" in src.read_text()
