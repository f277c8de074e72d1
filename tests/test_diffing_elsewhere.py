"""Follow-ups in other modules (``diffing.elsewhere``): real files in a real package tree.

Each case writes a small project, edits one module and applies every span's mechanical
candidate in the others; the result must be the program the developer would have written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from remask.diffing.elsewhere import project_spans
from remask.diffing.exports import exported
from remask.diffing.files import python_files
from remask.diffing.modules import module_names
from remask.diffing.proposal import TextEdit, apply_edits

CORE = '''\
def parse(text, strict=False):
    return text


class Thing:
    def __init__(self, a, b):
        self.a, self.b = a, b

    @classmethod
    def make(cls, a, b):
        return cls(a, b)

    def show(self, fmt):
        return fmt
'''


def project(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def follow(root: Path, edited: str, old: str, new: str) -> dict[str, str]:
    """Edit ``edited`` (``old`` → ``new`` once); return each other file as its spans leave it."""
    path = root / edited
    before = path.read_text()
    assert old in before
    after = before.replace(old, new, 1)
    path.write_text(after)
    others = {str(p): p.read_text() for p in python_files(root)}
    found = project_spans(before, after, str(path), others, str(root))
    return {str(Path(p).relative_to(root)): apply_edits(
        others[p], [TextEdit(s.start, s.end, s.mechanical[0]) for s in spans])
        for p, spans in found.items()}


@pytest.fixture
def pkg(tmp_path):
    project(tmp_path, {
        "pkg/__init__.py": 'from .core import parse, Thing\n__all__ = ["parse", "Thing"]\n',
        "pkg/core.py": CORE,
        "pkg/sub/__init__.py": "",
        "pkg/sub/user.py": (
            "from .. import core\nfrom ..core import parse as p\nfrom pkg.core import Thing\n\n"
            "def go(x):\n    core.parse(x, True)\n    p(x)\n    t = Thing(1, 2)\n"
            "    Thing.make(1, 2)\n    t.show(x)\n    return core.Thing(3, 4)\n"),
        "pkg/sub/again.py": "from .. import parse\n\nparse('re-exported, relative')\n",
        "app.py": (
            "import pkg\nfrom pkg import parse\n\n\ndef main():\n"
            "    parse('a', strict=True)\n    pkg.parse('b')\n    return pkg.Thing(5, 6)\n"),
        "other.py": "def parse(text):\n    return text\n",
        "client.py": (
            "from other import parse\n\n\ndef run(parse_it):\n    return parse('x')\n"),
    })
    return tmp_path


def test_a_rename_follows_every_import_and_the_reexport(pkg):
    out = follow(pkg, "pkg/core.py", "def parse(", "def read(")
    assert out == {
        "pkg/__init__.py": 'from .core import read, Thing\n__all__ = ["read", "Thing"]\n',
        "pkg/sub/user.py": (
            "from .. import core\nfrom ..core import read as p\nfrom pkg.core import Thing\n\n"
            "def go(x):\n    core.read(x, True)\n    p(x)\n    t = Thing(1, 2)\n"
            "    Thing.make(1, 2)\n    t.show(x)\n    return core.Thing(3, 4)\n"),
        "pkg/sub/again.py": "from .. import read\n\nread('re-exported, relative')\n",
        "app.py": (
            "import pkg\nfrom pkg import read\n\n\ndef main():\n"
            "    read('a', strict=True)\n    pkg.read('b')\n    return pkg.Thing(5, 6)\n"),
    }  # other.py's own parse, and client.py that imports it, are another function


def test_renames_elsewhere_take_the_new_name_without_a_model_pass(pkg):
    """The new name is what the edit determines; a new argument is the model's to write."""
    def spans(old: str, new: str) -> list:
        path = pkg / "pkg/core.py"
        before = path.read_text()
        others = {str(p): p.read_text() for p in python_files(pkg) if p != path}
        found = project_spans(before, before.replace(old, new, 1), str(path), others, str(pkg))
        return [s for spans in found.values() for s in spans]
    renames = spans("def parse(", "def read(")
    assert len(renames) == 9 and not any(s.model for s in renames)
    calls = spans("def parse(text, strict=False)", "def parse(text, mode, strict=False)")
    assert len(calls) == 5 and all(s.model for s in calls)


def test_a_changed_signature_updates_calls_through_every_name(pkg):
    out = follow(pkg, "pkg/core.py", "def parse(text, strict=False)",
                 "def parse(text, mode, strict=False)")
    assert out["pkg/sub/user.py"].count("mode") == 2
    assert "core.parse(x, mode, True)\n    p(x, mode)\n" in out["pkg/sub/user.py"]
    assert "parse('a', mode, strict=True)\n    pkg.parse('b', mode)\n" in out["app.py"]
    assert out["pkg/sub/again.py"] == \
        "from .. import parse\n\nparse('re-exported, relative', mode)\n"
    assert set(out) == {"pkg/sub/user.py", "app.py", "pkg/sub/again.py"}


def test_a_class_init_and_classmethod_are_followed_to_their_calls(pkg):
    out = follow(pkg, "pkg/core.py", "def __init__(self, a, b)", "def __init__(self, b)")
    assert "t = Thing(2)" in out["pkg/sub/user.py"]
    assert "return core.Thing(4)" in out["pkg/sub/user.py"]
    assert "return pkg.Thing(6)" in out["app.py"]
    (pkg / "pkg/core.py").write_text(CORE)
    out = follow(pkg, "pkg/core.py", "def make(cls, a, b)", "def make(cls, a, *, b)")
    assert out == {"pkg/sub/user.py": (pkg / "pkg/sub/user.py").read_text().replace(
        "Thing.make(1, 2)", "Thing.make(1, b=2)")}


def test_an_instance_method_is_followed_to_objects_known_to_be_of_its_class(pkg):
    out = follow(pkg, "pkg/core.py", "def show(self, fmt)", "def show(self, fmt, width)")
    assert out == {"pkg/sub/user.py": (
        "from .. import core\nfrom ..core import parse as p\nfrom pkg.core import Thing\n\n"
        "def go(x):\n    core.parse(x, True)\n    p(x)\n    t = Thing(1, 2)\n"
        "    Thing.make(1, 2)\n    t.show(x, width)\n    return core.Thing(3, 4)\n")}
    after = CORE.replace("def show(self, fmt)", "def show(self, fmt, width)")
    [ex] = exported(CORE, after, ("pkg.core",))
    assert (ex.name, ex.instance_method, ex.callee) == ("Thing", True, set())  # not Thing.show


def test_what_says_an_object_is_of_the_class(tmp_path):
    project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/net.py": "class Client:\n    def send(self, data):\n        return data\n",
        "pkg/use.py": (
            "from typing import Optional\n\nfrom pkg import net\nfrom pkg.net import Client\n\n\n"
            "def a(c: Client, d: 'Client', e: Client | None, f: Optional[net.Client], g):\n"
            "    c.send(1); d.send(2); e.send(3); f.send(4); g.send(5)\n"
            "    with Client() as h:\n        h.send(6)\n"
            "    k: net.Client = make()\n    k.send(7)\n"
            "    net.Client().send(8)\n    items: list[Client] = []\n    items.send(9)\n"),
    })
    out = follow(tmp_path, "pkg/net.py", "def send(self, data)", "def send(self, data, *, when)")
    use = out["pkg/use.py"]
    for n in (1, 2, 3, 4, 6, 7, 8):
        assert f".send({n}, when=when)" in use, n
    assert "g.send(5)" in use and "items.send(9)" in use  # untyped; a list of them


def test_attributes_of_self_the_class_says_hold_an_instance(tmp_path):
    project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/net.py": "class Client:\n    def send(self, data):\n        return data\n",
        "pkg/use.py": (
            "from dataclasses import dataclass\n\nfrom pkg.net import Client\n\n\n"
            "class Service:\n    def __init__(self, backup: Client | None, other):\n"
            "        self.client = Client()\n        self.backup = backup\n"
            "        self.other = other\n        self.cache: Client = make()\n\n"
            "    def run(self):\n        self.client.send(1); self.backup.send(2)\n"
            "        self.cache.send(3); self.other.send(4)\n\n"
            "    @staticmethod\n    def static(self):\n        self.client.send(5)\n\n\n"
            "@dataclass\nclass Job:\n    client: Client\n    name: str\n\n"
            "    def go(this):\n        this.client.send(6); this.name.send(7)\n\n\n"
            "class Other:\n    def go(self):\n        self.client.send(8)\n"),
    })
    out = follow(tmp_path, "pkg/net.py", "def send(self, data)", "def send(self, data, *, when)")
    use = out["pkg/use.py"]
    for n in (1, 2, 3, 6):
        assert f".send({n}, when=when)" in use, n
    for n in (4, 5, 7, 8):  # untyped, a static method's argument, a str, another class's
        assert f".send({n})" in use, n
    out = follow(tmp_path, "pkg/net.py", "def send(", "def transmit(")
    assert "self.client.transmit(1); self.backup.transmit(2)" in out["pkg/use.py"]
    assert "this.client.transmit(6)" in out["pkg/use.py"]
    assert "self.other.send(4)" in out["pkg/use.py"] and "self.client.send(8)" in out["pkg/use.py"]


def test_objects_of_subclasses_that_inherit_the_method(tmp_path):
    project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/net.py": "class Client:\n    def send(self, data):\n        return data\n",
        "pkg/retry.py": (
            "from pkg.net import Client\n\n\nclass Retry(Client):\n    pass\n\n\n"
            "class Twice(Retry):\n    pass\n\n\nclass Own(Client):\n"
            "    def send(self, data):\n        return data\n\n\n"
            "def go(r: 'Retry', o: Own):\n    Retry().send(1); Twice().send(2); r.send(3)\n"
            "    o.send(4)\n"),
        "app.py": (
            "from pkg.retry import Own, Twice\n\n\ndef go(t: Twice, o: Own):\n"
            "    t.send(5); o.send(6)\n"),
    })
    out = follow(tmp_path, "pkg/net.py", "def send(self, data)", "def send(self, data, *, when)")
    retry = out["pkg/retry.py"]
    for n in (1, 2, 3):
        assert f".send({n}, when=when)" in retry, n
    assert "o.send(4)\n" in retry  # Own overrides send: its own signature
    assert out["app.py"].endswith("    t.send(5, when=when); o.send(6)\n")
    out = follow(tmp_path, "pkg/net.py", "def send(", "def transmit(")
    retry = out["pkg/retry.py"]
    assert "Retry().transmit(1); Twice().transmit(2); r.transmit(3)" in retry
    assert "o.transmit(4)" in retry and "    def transmit(self, data):" in retry  # the override


def test_a_star_import_brings_only_what_all_lists(tmp_path):
    lib = '__all__ = ["run"]\n\n\ndef open(path):\n    return path\n\n\ndef run(a):\n    return a\n'
    use = "from lib import *\n\nprint(open('x').read(), run(1))\n"
    project(tmp_path, {"lib.py": lib, "use.py": use, "pkg/__init__.py": "from lib import *\n",
                       "other.py": "from pkg import *\n\nrun(2)\n"})
    assert follow(tmp_path, "lib.py", "def open(", "def open_file(") == {}  # the builtin
    out = follow(tmp_path, "lib.py", "def run(a)", "def run(a, b)")
    assert "run(1, b)" in out["use.py"] and out["other.py"] == "from pkg import *\n\nrun(2, b)\n"
    (tmp_path / "lib.py").write_text(lib.replace('["run"]', '["run", "open"]'))
    assert "open_file('x')" in follow(tmp_path, "lib.py", "def open(", "def open_file(")["use.py"]
    (tmp_path / "lib.py").write_text(lib.replace('__all__ = ["run"]\n\n\n', ""))
    (tmp_path / "use.py").write_text("from lib import *\n\nprint(_run(1))\n")
    (tmp_path / "lib.py").write_text("def _run(a):\n    return a\n")
    assert follow(tmp_path, "lib.py", "def _run(", "def _go(") == {}  # no __all__: not _names


def test_a_module_that_binds_the_new_name_imports_it_under_the_old(tmp_path):
    project(tmp_path, {
        "lib.py": "def load(path):\n    return path\n",
        "main.py": "from lib import load\n\nread = open\n\nprint(load('x'), read)\n",
    })
    out = follow(tmp_path, "lib.py", "def load(", "def read(")
    assert out == {"main.py": "from lib import read as load\n\nread = open\n\n"
                              "print(load('x'), read)\n"}


def test_a_local_that_shadows_the_import_and_a_star_import(tmp_path):
    project(tmp_path, {
        "lib.py": "LIMIT = 3\n",
        "a.py": "from lib import LIMIT\n\ndef f(LIMIT=LIMIT):\n    return LIMIT\n",
        "b.py": "from lib import *\n\nprint(LIMIT)\n",
    })
    out = follow(tmp_path, "lib.py", "LIMIT = 3", "MAX = 3")
    assert out == {
        "a.py": "from lib import MAX\n\ndef f(LIMIT=MAX):\n    return LIMIT\n",
        "b.py": "from lib import *\n\nprint(MAX)\n",
    }


def test_a_rename_inside_a_function_is_no_module_change(pkg):
    assert follow(pkg, "pkg/core.py", "return text", "return text.strip()") == {}
    (pkg / "pkg/core.py").write_text(CORE)
    assert follow(pkg, "pkg/core.py", "self.a, self.b = a, b", "self.x, self.b = a, b") == {}


def test_module_names(tmp_path):
    project(tmp_path, {"pkg/__init__.py": "", "pkg/sub/__init__.py": "", "pkg/sub/a.py": "",
                       "src/ns/b.py": "", "my-script.py": ""})
    assert module_names(tmp_path / "pkg/sub/a.py", tmp_path) == ("pkg.sub.a",)
    assert module_names(tmp_path / "pkg/sub/__init__.py", tmp_path) == ("pkg.sub",)
    assert module_names(tmp_path / "src/ns/b.py", tmp_path) == ("b", "src.ns.b")
    assert module_names(tmp_path / "my-script.py", tmp_path) == ()


def test_relative_imports_above_the_top_and_broken_files_are_skipped(tmp_path):
    project(tmp_path, {
        "lib.py": "def load(path):\n    return path\n",
        "top.py": "from .. import lib\nfrom ..lib import load\nload(1)\n",
        "broken.py": "from lib import load\nload(1\n",
        ".venv/pyvenv.cfg": "", ".venv/x.py": "from lib import load\n",
    })
    assert follow(tmp_path, "lib.py", "def load(", "def fetch(") == {}


def test_reexports_by_star_and_of_the_module_itself(tmp_path):
    project(tmp_path, {
        "pkg/__init__.py": "from .events import *\n",
        "pkg/events.py": "def new_loop(a):\n    return a\n",
        "pkg/context.py": "from . import events\n",
        "pkg/conn.py": "from .context import events\n\nloop = events.new_loop(1)\n",
        "main.py": "import pkg\nfrom pkg import new_loop\nx = pkg.new_loop(1)\ny = new_loop(2)\n",
    })
    out = follow(tmp_path, "pkg/events.py", "def new_loop", "def fresh_loop")
    assert out == {
        "pkg/conn.py": "from .context import events\n\nloop = events.fresh_loop(1)\n",
        "main.py": "import pkg\nfrom pkg import fresh_loop\nx = pkg.fresh_loop(1)\n"
                   "y = fresh_loop(2)\n",
    }


def test_a_base_class_init_called_from_a_subclass_in_another_module(tmp_path):
    project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/message.py": "class Message:\n    def __init__(self, policy=None):\n"
                          "        self.policy = policy\n",
        "pkg/mime.py": "from pkg import message\n\n\nclass Base(message.Message):\n"
                       "    def __init__(self, policy=None):\n"
                       "        message.Message.__init__(self, policy=policy)\n\n\n"
                       "class Part(Base):\n    def __init__(self):\n"
                       "        super().__init__(policy=1)\n",
        "pkg/text.py": "from .message import Message\n\n\nclass Text(Message):\n"
                       "    def __init__(self):\n        super().__init__(policy=2)\n",
    })
    out = follow(tmp_path, "pkg/message.py", "policy=None", "pol=None")
    assert "message.Message.__init__(self, pol=policy)" in out["pkg/mime.py"]
    assert "super().__init__(policy=1)" in out["pkg/mime.py"]  # Base's own __init__: left
    assert out["pkg/text.py"].endswith("super().__init__(pol=2)\n")


def test_an_import_that_must_keep_its_local_name(tmp_path):
    """A class attribute (``self.Percolator``) and a name the module also defines itself."""
    project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/perc.py": "class Percolator:\n    pass\n\n\ndef get_stream(s):\n    return s\n",
        "pkg/editor.py": "class Editor:\n    from pkg.perc import Percolator\n\n"
                         "    def __init__(self):\n        self.p = self.Percolator(1)\n",
        "pkg/compat.py": "import sys\nif sys.platform == 'win32':\n"
                         "    from .perc import get_stream\nelse:\n"
                         "    def get_stream(s):\n        return None\n\nrv = get_stream(1)\n",
    })
    out = follow(tmp_path, "pkg/perc.py", "class Percolator", "class Percolator2")
    assert out == {"pkg/editor.py": (tmp_path / "pkg/editor.py").read_text().replace(
        "import Percolator\n", "import Percolator2 as Percolator\n")}
    (tmp_path / "pkg/perc.py").write_text("class Percolator:\n    def __init__(self, a):\n"
                                          "        pass\n\n\ndef get_stream(s):\n    return s\n")
    out = follow(tmp_path, "pkg/perc.py", "(self, a)", "(self, a, b)")  # ``self.Percolator``
    assert out == {"pkg/editor.py": (tmp_path / "pkg/editor.py").read_text().replace(
        "self.Percolator(1)", "self.Percolator(1, b)")}
    (tmp_path / "pkg/perc.py").write_text(
        "class Percolator:\n    pass\n\n\ndef get_stream(s):\n    return s\n")
    out = follow(tmp_path, "pkg/perc.py", "def get_stream", "def stream_of")
    assert out == {"pkg/compat.py": (tmp_path / "pkg/compat.py").read_text().replace(
        "import get_stream\n", "import stream_of as get_stream\n")}


def test_a_namespace_folder_inside_a_package_imports_relatively(tmp_path):
    project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/helpers.py": "def get_root(name):\n    return name\n",
        "pkg/sansio/app.py": "from ..helpers import get_root\nfrom .. import helpers as h\n\n"
                             "a = get_root('x')\nb = h.get_root('y')\n",
    })
    assert module_names(tmp_path / "pkg/sansio/app.py", tmp_path) == ("pkg.sansio.app",)
    out = follow(tmp_path, "pkg/helpers.py", "def get_root", "def find_root")
    assert out == {"pkg/sansio/app.py": "from ..helpers import find_root\n"
                   "from .. import helpers as h\n\na = find_root('x')\nb = h.find_root('y')\n"}


def test_subclasses_that_inherit_a_changed_init_are_called_as_it(tmp_path):
    project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/case.py": "class TestCase:\n    def __init__(self, name='run'):\n"
                       "        self.n = name\n\n\nclass Quiet(TestCase):\n    pass\n",
        "pkg/tests.py": "from pkg.case import TestCase, Quiet\n\n\nclass Foo(TestCase):\n"
                        "    def test(self):\n        pass\n\n\nclass Own(TestCase):\n"
                        "    def __init__(self, x):\n        super().__init__(x)\n\n\n"
                        "t, u, q, o = Foo('a'), TestCase('b'), Quiet('c'), Own('d')\n",
        "main.py": "from pkg.tests import Foo, Own\n\nFoo(name='e'), Own('f')\n",
    })
    out = follow(tmp_path, "pkg/case.py", "(self, name='run')", "(self)")
    assert out["pkg/tests.py"].endswith(
        "super().__init__()\n\n\nt, u, q, o = Foo(), TestCase(), Quiet(), Own('d')\n")
    assert out["main.py"] == "from pkg.tests import Foo, Own\n\nFoo(), Own('f')\n"


def test_nested_calls_under_two_names_are_one_span(tmp_path):
    """``m.f(g(1))`` with ``g`` an alias of ``f``; a class and its heir nested likewise."""
    project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/m.py": "def f(a):\n    return a\n\n\nclass List(list):\n"
                    "    def __init__(self, items):\n        list.__init__(self, items)\n\n\n"
                    "class Header(List):\n    pass\n",
        "pkg/use.py": "from pkg import m\nfrom pkg.m import f as g\n\nx = m.f(g(1))\n"
                      "h = m.Header([m.List([1])])\n",
    })
    out = follow(tmp_path, "pkg/m.py", "def f(a)", "def f(a, b)")
    assert "x = m.f(g(1, b), b)\n" in out["pkg/use.py"]
    (tmp_path / "pkg/m.py").write_text((tmp_path / "pkg/m.py").read_text().replace(
        "def f(a, b)", "def f(a)"))
    out = follow(tmp_path, "pkg/m.py", "(self, items)", "(self, items, extra)")
    assert out["pkg/use.py"].endswith("h = m.Header([m.List([1], extra)], extra)\n")


def test_grand_heirs_and_a_subclass_under_an_if_inherit_a_changed_init(tmp_path):
    project(tmp_path, {
        "nodes.py": "class Node:\n    def __init__(self, a):\n        self.a = a\n\n\n"
                    "class Stmt(Node):\n    pass\n\n\nclass Assign(Stmt):\n    pass\n",
        "dll.py": "import os\nfrom nodes import Node, Stmt\n\n\nclass Expr(Stmt):\n    pass\n\n\n"
                  "if os.name == 'nt':\n    class Win(Expr):\n        pass\n\n\n"
                  "e, w = Expr(1), Win(2)\n",
        "main.py": "from nodes import Assign\nfrom dll import Win\n\nAssign(3), Win(4)\n",
    })
    out = follow(tmp_path, "nodes.py", "(self, a)", "(self, a, b)")
    assert out["dll.py"].endswith("e, w = Expr(1, b), Win(2, b)\n")
    assert out["main.py"].endswith("Assign(3, b), Win(4, b)\n")


def test_strings_that_name_the_renamed_function_by_its_path(tmp_path):
    project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/lib.py": "def total(xs):\n    return sum(xs)\n",
        "pkg/use.py": "from pkg.lib import total\n\n\ndef report(xs):\n    return total(xs)\n",
        "tests/test_use.py": (
            "from unittest import mock\n\nfrom pkg import lib\n\n\n"
            "@mock.patch('pkg.use.total')\n"
            "def test_report(total):\n"
            "    with mock.patch.object(lib, 'total'), mock.patch(\"pkg.lib.total.__doc__\"):\n"
            "        assert getattr(lib, 'total') and hasattr(lib, 'totals')\n"
            "    ENTRY = 'pkg.lib:total'\n"
            "    return ['pkg.lib.totally', 'total', f'pkg.lib.{1}total', r'pkg.lib.total']\n"),
    })
    out = follow(tmp_path, "pkg/lib.py", "def total", "def grand_total")
    test = out["tests/test_use.py"]
    assert "@mock.patch('pkg.use.grand_total')" in test  # where it is looked up
    assert "mock.patch.object(lib, 'grand_total')" in test
    assert "mock.patch(\"pkg.lib.grand_total.__doc__\")" in test
    assert "getattr(lib, 'grand_total') and hasattr(lib, 'totals')" in test
    assert "ENTRY = 'pkg.lib:grand_total'" in test
    # other words, other paths, an f-string, a raw string: left
    assert "return ['pkg.lib.totally', 'total', f'pkg.lib.{1}total', r'pkg.lib.total']" in test
    assert "def test_report(total):" in test  # the patch's parameter is the test's own name


def test_a_renamed_method_follows_objects_of_its_class_and_subclasses(tmp_path):
    project(tmp_path, {
        "pkg/__init__.py": "from .net import Client\n",
        "pkg/net.py": "class Client:\n    def send(self, data):\n        return data\n",
        "pkg/use.py": (
            "from pkg import Client\n\n\ndef go(c: Client, other):\n"
            "    other.send(1)\n    Client.send(c, 2)\n    return c.send(3)\n\n\n"
            "class Retry(Client):\n    def send(self, data):\n        return super().send(data)\n\n"
            "    def twice(self, data):\n        return self.send(data) + self.send(data)\n"),
        "tests/test_net.py": (
            "from unittest import mock\n\nfrom pkg.net import Client\n\n"
            "P = mock.patch.object(Client, 'send'), mock.patch('pkg.net.Client.send')\n"),
    })
    out = follow(tmp_path, "pkg/net.py", "def send(", "def transmit(")
    assert out.pop("tests/test_net.py").endswith(
        "P = mock.patch.object(Client, 'transmit'), mock.patch('pkg.net.Client.transmit')\n")
    assert out == {"pkg/use.py": (
        "from pkg import Client\n\n\ndef go(c: Client, other):\n"
        "    other.send(1)\n    Client.transmit(c, 2)\n    return c.transmit(3)\n\n\n"
        "class Retry(Client):\n    def transmit(self, data):\n"
        "        return super().transmit(data)\n\n"
        "    def twice(self, data):\n        return self.transmit(data) + self.transmit(data)\n")}


NET_FACTORIES = '''\
from typing import Self


class Client:
    def send(self, data):
        return data

    @classmethod
    def connect(cls, url):
        if not url:
            return cls(None)
        return cls(url)

    @classmethod
    def default(cls) -> Self:
        return make()

    @staticmethod
    def local() -> "Client":
        return make()

    @classmethod
    def many(cls, n):
        return [cls(i) for i in range(n)]

    @classmethod
    def url(cls, x) -> str:
        return x


def open_client(url) -> Client | None:
    return make()


async def dial(url):
    def helper():
        return 3
    return Client(url)


def name_of(c):
    return Client(c) if c else None
'''


def test_objects_a_factory_of_the_class_returns(tmp_path):
    """A class method returning ``cls(…)`` or saying it returns the class (``Self``,
    ``"Client"``), a function saying so or returning ``Client(…)``, awaited or through the
    package: their objects are the class's. A list of them, a ``str``, a function that may
    return None without saying so: not."""
    project(tmp_path, {
        "pkg/__init__.py": "from .net import Client, open_client\n",
        "pkg/net.py": NET_FACTORIES,
        "pkg/use.py": (
            "from pkg import Client, open_client\nfrom pkg.net import dial, name_of\n\n\n"
            "async def go():\n"
            "    a = Client.connect('x'); a.send(1)\n    b = Client.default(); b.send(2)\n"
            "    c = Client.local(); c.send(3)\n    d = open_client('y'); d.send(4)\n"
            "    e = await dial('z'); e.send(5)\n    Client.connect('w').send(6)\n"
            "    f = Client.many(2); f.send(7)\n    g = Client.url('u'); g.send(8)\n"
            "    h = name_of(1); h.send(9)\n"
            "    with Client.connect('v') as k:\n        k.send(10)\n\n\n"
            "class Service:\n    def __init__(self):\n        self.client = open_client('s')\n\n"
            "    def run(self):\n        return self.client.send(11)\n"),
        "pkg/only.py": (  # names no class, only a factory
            "from pkg.net import dial\n\n\nasync def go():\n"
            "    d = await dial('o')\n    d.send(13)\n"),
        "pkg/api.py": "from pkg import net as transport\n",  # the module, re-exported
        "app.py": (
            "from pkg.api import transport\n\n\ndef go():\n"
            "    c = transport.open_client('q')\n    c.send(12)\n"),
    })
    out = follow(tmp_path, "pkg/net.py", "def send(self, data)", "def send(self, data, *, when)")
    use = out["pkg/use.py"]
    for n in (1, 2, 3, 4, 5, 6, 10, 11):
        assert f".send({n}, when=when)" in use, n
    assert "c.send(12, when=when)" in out["app.py"]
    assert "d.send(13, when=when)" in out["pkg/only.py"]
    for n in (7, 8, 9):
        assert f".send({n})" in use, n
    out = follow(tmp_path, "pkg/net.py", "def send(", "def transmit(")
    use = out["pkg/use.py"]
    assert "a.transmit(1)" in use and "e.transmit(5)" in use and "self.client.transmit(11)" in use
    assert "f.send(7)" in use and "h.send(9)" in use
