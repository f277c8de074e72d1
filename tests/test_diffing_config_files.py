"""Config files and API docs that name a moved module, spelled again (real TOML/INI reads)."""

from __future__ import annotations

import configparser
import tomllib
from pathlib import Path

import pytest

from remask.diffing.config_files import config_spans, is_config, well_formed
from remask.diffing.moves import moved_proposal, moves_for, project_moves
from remask.diffing.respell import Move

PYPROJECT = '''[project]
name = "pkg"

[project.scripts]
tool = "pkg.old:main"
other = "pkg.older:main"

[tool.setuptools]
packages = ["pkg", "pkg.old"]

[[tool.mypy.overrides]]
module = ["pkg.old.*", "pkg.oldish", "mypkg.old"]

[tool.ruff.lint.per-file-ignores]
"src/pkg/old.py" = ["E501"]
"./src/pkg/old.py" = ["E501"]
"src/pkg/old.pyi" = ["E501"]
"tests/src/pkg/old.py" = ["E501"]
'''


def follow(root: Path, old: str, new: str, name: str, text: str) -> str | None:
    """``text`` as the file ``name`` under ``root`` reads after ``old`` moved to ``new``."""
    moves = moves_for(root / old, root / new, root)
    path = str(root / name)
    found = project_moves(moves, {path: text}, root)
    if path not in found:
        return None
    proposal = moved_proposal(text, found[path], path)
    return None if proposal is None else proposal.text


@pytest.fixture
def src(tmp_path):
    """A src layout whose ``pkg/old.py`` has moved to ``pkg/new.py``."""
    (tmp_path / "src/pkg").mkdir(parents=True)
    (tmp_path / "src/pkg/__init__.py").write_text("")
    (tmp_path / "src/pkg/new.py").write_text("def main():\n    pass\n")
    return tmp_path


def test_pyproject_names_and_paths_follow_and_nothing_else(src):
    after = follow(src, "src/pkg/old.py", "src/pkg/new.py", "pyproject.toml", PYPROJECT)
    assert after == PYPROJECT.replace('"pkg.old:main"', '"pkg.new:main"').replace(
        '"pkg.old"]', '"pkg.new"]').replace('"pkg.old.*"', '"pkg.new.*"').replace(
        '"src/pkg/old.py"', '"src/pkg/new.py"').replace('"./src/pkg/old.py"',
                                                        '"./src/pkg/new.py"')
    read = tomllib.loads(after)
    assert read["project"]["scripts"] == {"tool": "pkg.new:main", "other": "pkg.older:main"}
    # a stub, a file of the same name elsewhere, another package's module: all left
    assert set(read["tool"]["ruff"]["lint"]["per-file-ignores"]) == {
        "src/pkg/new.py", "./src/pkg/new.py", "src/pkg/old.pyi", "tests/src/pkg/old.py"}


def test_setup_cfg_entry_points_lists_and_paths(src):
    cfg = ("[metadata]\nname = old\n\n[options]\npy_modules =\n    old\n    other\n\n"
           "[options.entry_points]\nconsole_scripts =\n    tool = pkg.old:main\n\n"
           "[coverage:run]\nomit = src/pkg/old.py\n")
    after = follow(src, "src/pkg/old.py", "src/pkg/new.py", "setup.cfg", cfg)
    parser = configparser.ConfigParser(interpolation=None)
    parser.read_string(after)
    assert parser["options.entry_points"]["console_scripts"].split() == \
        ["tool", "=", "pkg.new:main"]
    assert parser["coverage:run"]["omit"] == "src/pkg/new.py"
    assert parser["options"]["py_modules"].split() == ["old", "other"]  # another module


def test_a_top_level_package_renamed_is_followed_only_where_its_word_is_the_module(tmp_path):
    (tmp_path / "newpkg").mkdir()
    (tmp_path / "newpkg/__init__.py").write_text("")
    toml = ('[project]\nname = "pkg"\ndescription = "pkg tools"\n\n[project.scripts]\n'
            'pkg = "pkg.cli:main"\n\n[tool.setuptools]\npackages = [\n    "pkg",\n'
            '    "pkg.sub",\n]\n\n[tool.coverage.run]\nsource = ["pkg"]\n'
            'omit = ["pkg/_version.py", "other/pkg/x.py"]\n')
    after = follow(tmp_path, "pkg", "newpkg", "pyproject.toml", toml)
    read = tomllib.loads(after)
    assert read["project"] == {"name": "pkg", "description": "pkg tools",
                               "scripts": {"pkg": "newpkg.cli:main"}}
    assert read["tool"]["setuptools"]["packages"] == ["newpkg", "newpkg.sub"]
    assert read["tool"]["coverage"]["run"] == {"source": ["newpkg"],
                                               "omit": ["newpkg/_version.py", "other/pkg/x.py"]}
    deps = ('[project]\ndependencies = [\n    "pkg",\n]\n\n[project.optional-dependencies]\n'
            'x = ["pkg"]\n\n[build-system]\nrequires = ["pkg"]\n')
    assert follow(tmp_path, "pkg", "newpkg", "pyproject.toml", deps) is None  # distributions
    cfg = "[options]\ninstall_requires =\n    pkg\npackages =\n    pkg\n"
    assert follow(tmp_path, "pkg", "newpkg", "setup.cfg", cfg) == \
        cfg.replace("packages =\n    pkg", "packages =\n    newpkg")
    ini = "[flake8]\napplication-import-names = pkg\nname = pkg\nselect = E,pkg\n"
    assert follow(tmp_path, "pkg", "newpkg", "tox.ini", ini) == \
        ini.replace("names = pkg", "names = newpkg")


def test_docs_change_only_the_lines_the_build_reads(src):
    rst = (".. automodule:: pkg.old\n   :members:\n\n.. autofunction:: pkg.old.main\n\n"
           "``pkg.old`` was renamed in 2.0; see :mod:`pkg.old`.\n")
    assert follow(src, "src/pkg/old.py", "src/pkg/new.py", "docs/api.rst", rst) == \
        rst.replace(":: pkg.old", ":: pkg.new")
    md = "# API\n\n::: pkg.old\n\nFormerly `src/pkg/old.py`.\n"
    assert follow(src, "src/pkg/old.py", "src/pkg/new.py", "docs/api.md", md) == \
        md.replace("::: pkg.old", "::: pkg.new")
    assert follow(src, "src/pkg/old.py", "src/pkg/new.py", "CHANGES.md", "pkg.old went\n") \
        is None


def test_paths_are_read_from_the_config_files_folder(src):
    (src / "src/pkg/sub").mkdir()
    moves = moves_for(src / "src/pkg/old.py", src / "src/pkg/sub/old.py", src)
    spans = config_spans("[tool.x]\nfiles = ['pkg/old.py', 'src/pkg/old.py']\n",
                         src / "src/pyproject.toml", moves)
    # from src/: pkg/old.py is the module; src/pkg/old.py would be src/src/pkg/old.py
    assert [(s.start, s.mechanical) for s in spans] == [(19, ("pkg/sub/old.py",))]
    # a config file above neither path cannot name them by path
    assert config_spans("files = ['old.py']\n", src / "src/pkg/sub/tox.ini", moves) == []


def test_a_move_known_by_its_names_alone_follows_the_dotted_names():
    spans = config_spans('x = "a.b:c"\ny = "a/b.py"\n', "pyproject.toml", [Move("a.b", "a.d")])
    assert [(s.start, s.end, s.mechanical) for s in spans] == [(5, 8, ("a.d",))]


def test_what_is_a_config_and_what_still_reads():
    assert all(map(is_config, ["pyproject.toml", "a/setup.cfg", "tox.ini", ".coveragerc",
                               "docs/index.rst", "README.md"]))
    assert not any(map(is_config, ["setup.py", "config.toml", "notes.txt", "pyproject.toml.bak"]))
    assert well_formed("[a]\nb = 1\n", "pyproject.toml")
    assert not well_formed("[a]\nb = \n", "pyproject.toml")
    assert not well_formed("no section\n", "setup.cfg")
    assert well_formed("anything [\n", "docs/api.md")


def test_a_proposal_that_would_leave_toml_unreadable_is_not_made(src):
    # a key both spellings give: the new one is declared twice
    toml = '[tool.importlinter]\n"pkg.old" = 1\n"pkg.new" = 2\n'
    assert follow(src, "src/pkg/old.py", "src/pkg/new.py", "pyproject.toml", toml) is None
