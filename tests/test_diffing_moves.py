"""A moved or renamed module (``diffing.moves``): real files moved in a real package tree.

Each case writes a small project, moves a file or folder as a user would (the rename done,
or about to be, as a language server is asked), applies every span's candidate and checks
the result is the program the developer would have written.
"""

from __future__ import annotations

from pathlib import Path

from remask.diffing.files import python_files
from remask.diffing.moves import Move, moved_proposal, moves_for, project_moves


def project(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def move(root: Path, old: str, new: str, done: bool = True) -> dict[str, str]:
    """Move ``old`` to ``new`` (or only plan it); return each changed file's proposed text."""
    moves = moves_for(root / old, root / new, root)
    if done:
        (root / new).parent.mkdir(parents=True, exist_ok=True)
        (root / old).rename(root / new)
    texts = {str(p): p.read_text() for p in python_files(root)}
    out = {}
    for path, spans in project_moves(moves, texts, root).items():
        proposal = moved_proposal(texts[path], spans, path)
        assert proposal is not None, path
        out[Path(path).relative_to(root).as_posix()] = proposal.text
    return out


PKG = {
    "pkg/__init__.py": 'from . import old\n\n__all__ = ["old", "older"]\n',
    "pkg/old.py": "from .helpers import h\nfrom . import helpers\n\n\ndef f():\n"
                  "    return h() + helpers.h()\n",
    "pkg/older.py": "X = 1\n",
    "pkg/helpers.py": "def h():\n    return 1\n",
    "pkg/sub/__init__.py": "",
    "pkg/user.py": "from .old import f\nfrom . import older\n\nprint(f(), older.X)\n",
    "app.py": "import pkg.old\nimport pkg.old as o\nfrom pkg import old, older\n\n"
              "print(pkg.old.f(), o.f(), old.f(), older.X)\n",
    "clash.py": "from pkg import old\n\nnew = 2\nprint(old.f() + new)\n",
    "tests/test_old.py": "from unittest import mock\n\n\n"
                         "@mock.patch('pkg.old.f')\n"
                         "def test_f(f):\n    return 'pkg.older.X', 'pkg.old:f'\n",
}


def test_a_module_renamed_in_its_package(tmp_path):
    project(tmp_path, PKG)
    out = move(tmp_path, "pkg/old.py", "pkg/new.py")
    assert out == {
        "pkg/__init__.py": 'from . import new\n\n__all__ = ["new", "older"]\n',
        "pkg/user.py": "from .new import f\nfrom . import older\n\nprint(f(), older.X)\n",
        "app.py": "import pkg.new\nimport pkg.new as o\nfrom pkg import new, older\n\n"
                  "print(pkg.new.f(), o.f(), new.f(), older.X)\n",
        "clash.py": "from pkg import new as old\n\nnew = 2\nprint(old.f() + new)\n",
        "tests/test_old.py": "from unittest import mock\n\n\n"
                             "@mock.patch('pkg.new.f')\n"
                             "def test_f(f):\n    return 'pkg.older.X', 'pkg.new:f'\n",
    }  # pkg/new.py's relative imports still reach pkg.helpers: unchanged


def test_a_module_moved_to_another_package(tmp_path):
    project(tmp_path, PKG)
    out = move(tmp_path, "pkg/old.py", "pkg/sub/new.py")
    assert out["pkg/sub/new.py"] == (  # its own imports, spelled from where it is now
        "from ..helpers import h\nfrom .. import helpers\n\n\ndef f():\n"
        "    return h() + helpers.h()\n")
    assert out["pkg/__init__.py"] == 'from .sub import new\n\n__all__ = ["new", "older"]\n'
    assert out["pkg/user.py"] == "from .sub.new import f\nfrom . import older\n\n" \
        "print(f(), older.X)\n"
    assert out["app.py"] == (
        "import pkg.sub.new\nimport pkg.sub.new as o\nfrom pkg import older\n"
        "from pkg.sub import new\n\nprint(pkg.sub.new.f(), o.f(), new.f(), older.X)\n")
    assert out["clash.py"] == "from pkg.sub import new as old\n\nnew = 2\nprint(old.f() + new)\n"
    assert "@mock.patch('pkg.sub.new.f')" in out["tests/test_old.py"]


def test_a_package_folder_renamed(tmp_path):
    project(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/util.py": "U = 1\n",
        "pkg/a/__init__.py": "from .x import f\n",
        "pkg/a/x.py": "from ..util import U\n\n\ndef f():\n    return U\n",
        "main.py": "import pkg.a.x\nfrom pkg.a import f\nfrom pkg import a\n\n"
                   "print(pkg.a.x.f(), f(), a.f())\n",
    })
    out = move(tmp_path, "pkg/a", "pkg/b")
    assert out == {"main.py": "import pkg.b.x\nfrom pkg.b import f\nfrom pkg import b\n\n"
                              "print(pkg.b.x.f(), f(), b.f())\n"}  # inside: relative, intact


def test_a_top_level_module_renamed_before_the_rename(tmp_path):
    """A language server is asked first: the files are still where they were."""
    project(tmp_path, {
        "old.py": "def f():\n    return 1\n",
        "main.py": "import old\nimport os\n\nprint(old.f(), os.sep)\n\n\n"
                   "def g(old):\n    return old\n",
        "pkg/__init__.py": "",
        "pkg/deep.py": "from . import sibling\n",
        "pkg/sibling.py": "",
    })
    assert move(tmp_path, "old.py", "new.py", done=False) == {
        "main.py": "import new\nimport os\n\nprint(new.f(), os.sep)\n\n\n"
                   "def g(old):\n    return old\n"}  # a parameter of that name is another
    assert move(tmp_path, "pkg/deep.py", "pkg/sub/deep.py", done=False) == {
        "pkg/deep.py": "from .. import sibling\n"}  # pkg/sub need not exist yet


def test_names_no_import_can_spell_move_nothing(tmp_path):
    project(tmp_path, {"scripts/run-me.py": "x = 1\n"})
    assert moves_for(tmp_path / "scripts/run-me.py", tmp_path / "scripts/go.py",
                     tmp_path) == []
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/__init__.py").write_text("")
    assert moves_for(tmp_path / "pkg", tmp_path / "my-pkg", tmp_path) == []
    assert Move("pkg.old", "pkg.new")("pkg.older") is None
    assert Move("pkg.old", "pkg.new")("pkg.old.f") == "pkg.new.f"


def test_a_top_level_module_moved_into_a_folder_and_a_top_package_renamed(tmp_path):
    project(tmp_path, {
        "example.py": "def f():\n    return 1\n",
        "main.py": "import example\nimport oldpkg.x\n\n"
                   "print(example.f(), example, oldpkg.x.f())\n",
        "oldpkg/__init__.py": "",
        "oldpkg/x.py": "def f():\n    return 2\n",
    })
    assert move(tmp_path, "example.py", "lib/sample.py") == {
        "main.py": "import lib.sample\nimport oldpkg.x\n\n"
                   "print(lib.sample.f(), lib.sample, oldpkg.x.f())\n"}
    (tmp_path / "main.py").write_text("import oldpkg.x\n\nprint(oldpkg.x.f())\n")
    assert move(tmp_path, "oldpkg", "newpkg") == {
        "main.py": "import newpkg.x\n\nprint(newpkg.x.f())\n"}


def test_names_a_package_binds_itself_and_names_imported_onward(tmp_path):
    """Three findings of a fuzz over 38 real projects (markdown_it, lib2to3 and typer)."""
    project(tmp_path, {
        "pkg/__init__.py": "",
        # the package binds ``inline`` to its submodule's function: imports of it get that
        "pkg/rules/__init__.py": "from .inline import inline\n",
        "pkg/rules/inline.py": "def inline():\n    return 1\n",
        "pkg/core.py": "from .rules import inline\n\nRULES = [inline]\n",
        # util's ``token`` is imported from util by name: util keeps that name
        "pkg/token.py": "NAME = 1\n",
        "pkg/util.py": "from . import token\n\n\ndef leaf():\n    return token.NAME\n",
        "pkg/user.py": "from .util import leaf, token\n\nprint(leaf(), token.NAME)\n",
        # a chain through a package the module leaves: an import of it is added beside
        "pkg/sub/__init__.py": "",
        "pkg/sub/mod.py": "class E(Exception):\n    pass\n",
        "pkg/catch.py": "from . import sub\n\n\ndef f():\n    return sub.mod.E\n",
    })
    assert move(tmp_path, "pkg/rules/inline.py", "pkg/inline.py") == {
        "pkg/rules/__init__.py": "from ..inline import inline\n"}
    assert move(tmp_path, "pkg/token.py", "pkg/token_mv.py") == {
        "pkg/util.py": "from . import token_mv as token\n\n\ndef leaf():\n    return token.NAME\n"}
    assert move(tmp_path, "pkg/sub/mod.py", "pkg/mod.py") == {
        "pkg/catch.py": "from . import sub\nfrom . import mod\n\n\ndef f():\n    return mod.E\n"}


def test_a_fallback_and_a_stub_take_no_submodule_name_over(tmp_path):
    project(tmp_path, {
        "pkg/__init__.py": "try:\n    from pkg import fast\nexcept ImportError:\n"
                           "    fast = None\n",
        "pkg/__init__.pyi": "from . import other as fast\n",
        "pkg/fast.py": "X = 1\n",
        "pkg/other.py": "",
    })
    assert move(tmp_path, "pkg/fast.py", "pkg/quick.py") == {
        "pkg/__init__.py": "try:\n    from pkg import quick\nexcept ImportError:\n"
                           "    quick = None\n"}


def test_an_all_entry_of_a_submodule_gone_to_another_package_goes(tmp_path):
    for name, text in {
        "pkg/__init__.py": '__all__ = ["a", "old", "b"]\n',
        "pkg/sub/__init__.py": '__all__ = ("x",\n           "old")\n',
        "pkg/kept/__init__.py": 'from . import old\n\n__all__ = ["old"]\n',
        "pkg/bare/__init__.py": '__all__ = "old",  # the API\n',
        "pkg/old.py": "", "pkg/sub/old.py": "", "pkg/kept/old.py": "", "pkg/bare/old.py": "",
        "other/__init__.py": "",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)

    def after(old: str, new: str, init: str) -> str:
        moves = moves_for(tmp_path / old, tmp_path / new, tmp_path)
        path = str(tmp_path / init)
        text = (tmp_path / init).read_text()
        spans = project_moves(moves, {path: text}, tmp_path).get(path, [])
        return moved_proposal(text, spans, path).text if spans else text

    assert after("pkg/old.py", "other/old.py", "pkg/__init__.py") == '__all__ = ["a", "b"]\n'
    assert after("pkg/sub/old.py", "other/old.py", "pkg/sub/__init__.py") == \
        '__all__ = ("x",)\n'
    # a tuple without brackets left empty is still one, not ``__all__ = `` (no parse)
    assert after("pkg/bare/old.py", "other/old.py", "pkg/bare/__init__.py") == \
        "__all__ = ()  # the API\n"
    # a package that imports it binds the name still (as the new module, under the old name)
    assert '__all__ = ["old"]' in after("pkg/kept/old.py", "other/old.py", "pkg/kept/__init__.py")
