"""What a module defines, read from real sources: the standard library's and a tmp project's."""

from __future__ import annotations

import os
import sys

from remask.diffing.checks import failing_imports
from remask.diffing.namespaces import import_fails, namespace


def test_the_standard_librarys_names_star_imports_and_submodules():
    os_ns = namespace("os", None)
    # ``os`` binds its functions by ``from posix import *`` and ``path`` under an ``if``
    assert {"getcwd", "listdir", "path", "sep"} <= os_ns.names and os_ns.complete
    assert "sys" in os_ns.modules and "path" not in os_ns.modules
    # os.path is the module ``os`` sets as it runs: posixpath here
    assert {"join", "splitext"} <= namespace("os.path", None).names
    # a compiled module of the interpreter's is imported to read it
    assert {"pi", "tau"} <= namespace("math", None).names
    # a package: its ``__init__``'s names and its submodules
    assert {"dumps", "decoder", "tool"} <= namespace("json", None).names
    assert namespace("json.nosuch", None) is None
    assert namespace("remask_nosuch_pkg", None) is None
    # names an enum's ``_convert_`` binds as ``ssl`` runs; a module a module puts in
    # ``sys.modules`` (``typing.io``): none of them judged
    assert not import_fails("ssl", "CERT_REQUIRED", None) and not namespace("ssl", None).complete
    assert not import_fails("typing.io", "TextIO", None)


def test_every_name_a_module_has_is_read():
    """A name the reading misses would refuse a right fill: ``os``, ``typing``, ``json``
    read from their sources hold every name importing them gives (and, from branches for
    other platforms, a few more)."""
    import json
    import typing
    for module in (os, typing, json):
        found = namespace(module.__name__, None).names
        assert set(dir(module)) - found == set(), module.__name__
    assert sys.platform != "linux" or {"getcwd", "fork", "O_RDONLY"} <= namespace("os", None).names


def _project(tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("from .core import *\nVERSION = '1'\n")
    (pkg / "core.py").write_text("__all__ = ['run']\n__all__ += ['stop']\nimport json\n\n"
                                 "def run():\n    pass\n\ndef stop():\n    pass\n\n"
                                 "def _hidden():\n    pass\n")
    (pkg / "lazy.py").write_text("def __getattr__(name):\n    return name\n")
    (pkg / "made.py").write_text("space = globals()\nfor n in 'ab':\n    space[n] = n\n")
    (pkg / "main.py").write_text("")
    return pkg


def test_a_projects_modules(tmp_path):
    pkg = _project(tmp_path)
    ns = namespace("pkg", tmp_path)
    # the star import takes core's ``__all__``, the ``+=`` too; the submodules are there
    assert {"run", "stop", "VERSION", "core", "lazy", "main"} <= ns.names
    assert "_hidden" not in ns.names and "json" not in ns.names
    core = namespace(".core", pkg)
    assert {"run", "stop", "_hidden", "json"} <= core.names and core.modules == {"json"}
    assert core.public == {"run", "stop"}
    # a module ``__getattr__`` may answer any name: not complete, never judged
    assert not namespace("pkg.lazy", tmp_path).complete
    assert not import_fails("pkg.lazy", "anything", tmp_path)
    assert not import_fails("pkg.made", "a", tmp_path)
    assert import_fails("pkg.core", "walk", tmp_path)
    assert not import_fails(".core", "_hidden", pkg)
    assert import_fails(".nosuch", "x", pkg)


def test_a_module_is_read_again_when_it_changes(tmp_path):
    """The language server outlives edits to the modules a file imports."""
    pkg = _project(tmp_path)
    assert import_fails("pkg.core", "pause", tmp_path)
    text = (pkg / "core.py").read_text() + "\ndef pause():\n    pass\n"
    (pkg / "core.py").write_text(text)
    stat = (pkg / "core.py").stat()
    os.utime(pkg / "core.py", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    assert not import_fails("pkg.core", "pause", tmp_path)


def test_failing_imports_judges_only_the_range(tmp_path):
    pkg = _project(tmp_path)
    path = str(pkg / "main.py")
    text = "from os import os, getcwd\nfrom .core import walk, run\nimport json.nosuch\n"
    assert failing_imports(text, path, 0, len(text)) == ["json.nosuch", ".core.walk", "os.os"]
    at = text.index("walk")
    assert failing_imports(text, path, at, at + 4) == [".core.walk"]
    at = text.index("run")
    assert failing_imports(text, path, at, at + 3) == []
    # the module's name in the range: every name it imports is judged
    at = text.index(".core")
    assert failing_imports(text, path, at, at + 5) == [".core.walk"]
    # not where the module's top is not found here, nor in a text Python cannot parse
    assert failing_imports("from remask_nosuch import x\n", path, 0, 30) == []
    assert failing_imports("from os import os\ndef f(:\n", path, 0, 20) == []
