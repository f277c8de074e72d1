"""Files beside the code that name its modules: packaging and tool configs, API docs.

A moved module breaks more than imports. ``[project.scripts] tool = "pkg.old:main"`` installs
a script that fails on its first run, ``[[tool.mypy.overrides]] module = "pkg.old"`` and
``per-file-ignores`` stop applying without a word, and Sphinx's ``.. automodule:: pkg.old``
fails the docs build. These files name a module by its dotted name or by its path, so both
are spelled again, as the move maps them (:class:`~.respell.Move`):

- a dotted name of two parts or more anywhere (``pkg.old``, ``pkg.old.sub``,
  ``pkg.old:main``, ``pkg.old.*``);
- a top-level module's one-word name only where nothing else could be meant: an entry point
  (``old:main``), a dotted name under it (``old.sub``), an item of a TOML list
  (``packages = ["old"]``) or a line of an INI value list, but not in a list of what the
  project needs installed (``dependencies``, ``install_requires``, tox's ``deps``: a
  distribution that may share the name);
- a path relative to the file's folder (``src/pkg/old.py``, ``src/pkg/old/``).

In docs (``.rst``, ``.md``) only the lines that make the build read a module are touched
(Sphinx's ``.. automodule::``/``.. autofunction::``…, mkdocstrings' ``::: pkg.old``): prose
and changelogs name modules that were, and stay as written. A proposal that would leave a
TOML or INI file unreadable is never made.
"""

from __future__ import annotations

import configparser
import os
import re
import tomllib
from pathlib import Path

from .proposal import Span
from .respell import Move

__all__ = ["CONFIG_NAMES", "DOC_SUFFIXES", "config_spans", "is_config", "well_formed"]

# files that name modules and are read when the project is built, installed, tested or linted
CONFIG_NAMES = frozenset({"pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", "mypy.ini",
                          ".coveragerc", ".flake8"})
DOC_SUFFIXES = (".rst", ".md")  # API docs: only their directive lines are read
# the lines of docs that make the build import a module
_DIRECTIVE = re.compile(r"^\s*(?:\.\.\s+(?:auto\w+|currentmodule|module)::|:::)[^\n]*$",
                        re.MULTILINE)


def is_config(path: str | Path) -> bool:
    """Whether ``path`` is a file whose module names :func:`config_spans` reads."""
    name = Path(path).name
    return name in CONFIG_NAMES or name.endswith(DOC_SUFFIXES)


def config_spans(text: str, path: str | Path, moves: list[Move]) -> list[Span]:
    """The spans of the config or docs file at ``path`` that name a module of ``moves``."""
    folder = Path(path).absolute().parent
    docs = Path(path).name.endswith(DOC_SUFFIXES)
    regions = [m.span() for m in _DIRECTIVE.finditer(text)] if docs else [(0, len(text))]
    why = ", ".join(f"{m.old} moved to {m.new}" for m in moves)
    found: dict[int, Span] = {}
    for start, end in regions:
        for m in moves:
            for a, b in _dotted(text, start, end, m, toml=str(path).endswith(".toml")):
                found.setdefault(a, Span(a, b, "rename", f"a module's name: {why}", (m.new,),
                                         model=False))
            if docs:
                continue
            for a, b, new in _entry_points(text, start, end, m):
                found.setdefault(a, Span(a, b, "rename", f"an entry point: {why}", (new,),
                                         model=False))
            for a, b, new in _paths(text, start, end, m, folder):
                found.setdefault(a, Span(a, b, "rename", f"a path: {why}", (new,), model=False))
    return [found[a] for a in sorted(found)]


def _dotted(text: str, start: int, end: int, move: Move, toml: bool) -> list[tuple[int, int]]:
    """``(start, end)`` of each dotted name of ``move.old`` or under it (its old part)."""
    word = re.escape(move.old)
    if "." in move.old:
        pattern = rf"(?<![\w./-]){word}(?![\w-])"
    elif toml:  # a bare word says too little: only where it must be the module
        pattern = (rf"(?<![\w./-]){word}(?=[.:][^\W\d])"  # old.sub, old:main
                   rf"|(?<=[\[,])(?P<lead>\s*[\"']){word}(?=[\"']\s*[,\]])")  # ["old", …]
    else:  # an INI value (a key's whole value but a name's, or a line of a list)
        pattern = (rf"(?<![\w./-]){word}(?=[.:][^\W\d])"
                   rf"|(?P<lead>^(?!name\b)[\w.-]+[ \t]*[=:][ \t]*|^[ \t]+){word}[ \t]*$")
    out = []
    for hit in re.finditer(pattern, text[start:end], re.MULTILINE):
        lead = hit.groupdict().get("lead")
        a = start + hit.start() + len(lead or "")
        if lead is not None and _requirements(text, a):
            continue  # ``dependencies = ["old"]`` names a distribution, not the module
        out.append((a, a + len(move.old)))
    return out


def _entry_points(text: str, start: int, end: int, move: Move) -> list[tuple[int, int, str]]:
    """``pkg.a:f`` where ``f`` itself moved (:mod:`.symbol_moves`): ``pkg.b:f``."""
    if not move.symbol:
        return []
    old_module, _, name = move.old.rpartition(".")
    new_module = move.new.rpartition(".")[0]
    pattern = rf"(?<![\w./-]){re.escape(old_module)}:{re.escape(name)}(?![\w-])"
    return [(start + hit.start(), start + hit.end(), f"{new_module}:{name}")
            for hit in re.finditer(pattern, text[start:end])]


def _requirements(text: str, at: int) -> bool:
    """Whether the value at ``at`` lists what a project needs installed, not its modules.

    Read off the key the value belongs to and its table or section (``dependencies``,
    ``[project.optional-dependencies]``, ``install_requires``, tox's ``deps``).
    """
    before = text[:at]
    keys = re.findall(r"^([\w.\-\"']+)[ \t]*[=:]", before, re.MULTILINE)
    tables = re.findall(r"^\[+([^\]\n]+)\]", before, re.MULTILINE)
    where = " ".join([keys[-1] if keys else "", tables[-1] if tables else ""]).lower()
    return any(w in where for w in ("depend", "require", "deps", "extras"))


def _paths(text: str, start: int, end: int, move: Move, folder: Path
           ) -> list[tuple[int, int, str]]:
    """``(start, end, new text)`` of each path of the moved file or folder, from ``folder``."""
    if not (move.old_path and move.new_path):
        return []
    old, new = Path(move.old_path), Path(move.new_path)
    if not (old.is_relative_to(folder) and new.is_relative_to(folder)):
        return []
    rel_old = old.relative_to(folder).as_posix()
    rel_new = os.path.relpath(new, folder).replace(os.sep, "/")
    end_of = r"(?=/)" if "/" not in rel_old and not rel_old.endswith((".py", ".pyi")) \
        else r"(?![\w.-])"  # a top-level folder's name alone is a word, not a path
    pattern = rf"(?<![\w./-])(?:\./)?{re.escape(rel_old)}{end_of}"
    out = []
    for hit in re.finditer(pattern, text[start:end]):
        lead = 2 if hit.group().startswith("./") else 0
        out.append((start + hit.start() + lead, start + hit.end(), rel_new))
    return out


def well_formed(text: str, path: str | Path) -> bool:
    """Whether a TOML or INI file still reads (docs always do)."""
    name = Path(path).name
    try:
        if name.endswith(".toml"):
            tomllib.loads(text)
        elif name in CONFIG_NAMES:
            configparser.ConfigParser(interpolation=None, strict=False).read_string(text)
    except (tomllib.TOMLDecodeError, configparser.Error):
        return False
    return True
