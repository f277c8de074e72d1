"""The syntax layer: tree-sitter parses, their error nodes, and which errors are new.

The grammar is chosen by file type so other languages can be added by registering a loader.
"New errors" are those a proposal adds compared with the text before it: remask never offers a
proposal that has one, and re-masks the positions inside them before giving up.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import PurePath

import tree_sitter as ts

_GRAMMARS: dict[str, Callable[[], object]] = {}


def _python() -> object:
    import tree_sitter_python

    return tree_sitter_python.language()


def register_grammar(suffixes: tuple[str, ...], loader: Callable[[], object]) -> None:
    """Make a tree-sitter grammar available for files with these suffixes."""
    for s in suffixes:
        _GRAMMARS[s] = loader


register_grammar((".py", ".pyi", ""), _python)


def placeholders(text: str, marker: str) -> str:
    """``text`` with each hole marker read as a name of the same length.

    A marker is no Python (``???``), so a parser's error recovery around one hole changes
    how it reads what follows: with two holes in ``??? + ???``, filling the first moved the
    errors the second caused, and every candidate seemed to add one. Offsets are unchanged.
    """
    return text.replace(marker, "_" * len(marker)) if marker else text


@cache
def _language(suffix: str) -> ts.Language:
    loader = _GRAMMARS.get(suffix)
    if loader is None:
        raise ValueError(f"no grammar for '{suffix}' files")
    return ts.Language(loader())


def language_for(path: str | PurePath | None) -> str:
    """Return the grammar key for ``path`` (Python when unknown or absent)."""
    suffix = PurePath(path).suffix if path else ".py"
    return suffix if suffix in _GRAMMARS else ".py"


# Where text is the user's words, not code: a comment, a string's text.
STRING_TEXT = frozenset({"string_content"})
PROSE = STRING_TEXT | {"comment"}


@dataclass(frozen=True)
class ErrorNode:
    """An ERROR or MISSING node, by character offsets into the parsed text."""

    start: int
    end: int
    missing: bool
    context: str  # the nearest named ancestor's type, to tell errors apart across texts


class Document:
    """A text with its tree, re-parsed incrementally as edits arrive."""

    def __init__(self, text: str, lang: str = ".py") -> None:
        self.parser = ts.Parser(_language(lang))
        self.text = text
        self._bytes = _parsed(text)
        self.tree = self.parser.parse(self._bytes)

    def edit(self, start: int, end: int, new_text: str) -> None:
        r"""Replace characters [start, end) and re-parse reusing the old tree (tree.edit).

        A text with carriage returns is parsed anew: an edit next to one can turn a lone
        ``\r`` into half of a ``\r\n``, which changes the bytes the parser reads.
        """
        if "\r" in self.text or "\r" in new_text:
            self.text = self.text[:start] + new_text + self.text[end:]
            self._bytes = _parsed(self.text)
            self.tree = self.parser.parse(self._bytes)
            return
        b_start = len(self.text[:start].encode("utf-8"))
        b_old_end = b_start + len(self.text[start:end].encode("utf-8"))
        new_bytes = new_text.encode("utf-8")
        self.tree.edit(start_byte=b_start, old_end_byte=b_old_end,
                       new_end_byte=b_start + len(new_bytes),
                       start_point=_point(self._bytes, b_start),
                       old_end_point=_point(self._bytes, b_old_end),
                       new_end_point=_point(self._bytes[:b_start] + new_bytes,
                                            b_start + len(new_bytes)))
        self.text = self.text[:start] + new_text + self.text[end:]
        self._bytes = self.text.encode("utf-8")
        self.tree = self.parser.parse(self._bytes, self.tree)

    def char_offset(self, byte_offset: int) -> int:
        return len(self._bytes[:byte_offset].decode("utf-8", errors="ignore"))

    def errors(self) -> list[ErrorNode]:
        """Every ERROR and MISSING node, outermost first, by character offsets."""
        out: list[ErrorNode] = []
        stack = [self.tree.root_node]
        while stack:
            node = stack.pop()
            if not node.has_error and not node.is_missing:
                continue
            if node.is_error or node.is_missing:
                parent = node.parent
                while parent is not None and not parent.is_named:
                    parent = parent.parent
                out.append(ErrorNode(self.char_offset(node.start_byte),
                                     self.char_offset(node.end_byte), node.is_missing,
                                     parent.type if parent is not None else ""))
                if node.is_missing:
                    continue
            stack.extend(reversed(node.children))
        return sorted(out, key=lambda e: (e.start, -e.end))

    def has_errors(self) -> bool:
        return self.tree.root_node.has_error

    def inside(self, start: int, end: int, kinds: frozenset[str]) -> bool:
        """Whether text[start:end] lies within a node of one of ``kinds`` (by character offsets).

        With :data:`PROSE`: whether it is a comment or a string's text. An f-string's ``{}``
        is code: the grammar puts its interpolation beside the string's text, not in it.
        """
        node = self.tree.root_node.descendant_for_byte_range(*self._byte_range(start, end))
        while node is not None and node.type not in kinds:
            node = node.parent
        return node is not None

    def straddles(self, start: int, end: int, kinds: frozenset[str]) -> bool:
        """Whether a node of one of ``kinds`` holds some of text[start:end] and text outside it.

        With :data:`PROSE`: whether a fill there runs into a string's text or a comment beside
        it.
        """
        a, b = self._byte_range(start, end)
        stack = [self.tree.root_node]
        while stack:
            node = stack.pop()
            if node.type in kinds and (node.start_byte < a or node.end_byte > b):
                return True
            stack.extend(c for c in node.children if c.start_byte < b and c.end_byte > a)
        return False

    def _byte_range(self, start: int, end: int) -> tuple[int, int]:
        """Character offsets [start, end) as the tree's byte offsets."""
        a = len(self.text[:start].encode("utf-8"))
        return a, a + len(self.text[start:end].encode("utf-8"))


_LONE_CR = re.compile(r"\r(?!\n)")


def _parsed(text: str) -> bytes:
    r"""The bytes tree-sitter reads for ``text``: a lone ``\r`` (old Mac OS line ends) as ``\n``.

    tree-sitter-python takes a lone ``\r`` for whitespace, so a file with those line ends read
    as one long line with an error, and every fill there seemed to add one; Python's own
    parser ends lines there. One byte for one: offsets are the text's.
    """
    return (_LONE_CR.sub("\n", text) if "\r" in text else text).encode("utf-8")


def _point(data: bytes, byte_offset: int) -> tuple[int, int]:
    row = data.count(b"\n", 0, byte_offset)
    col = byte_offset - (data.rfind(b"\n", 0, byte_offset) + 1)
    return row, col


def parse(text: str, path: str | PurePath | None = None) -> Document:
    return Document(text, language_for(path))


def error_signature(doc: Document) -> list[tuple[str, bool, str]]:
    """Errors as offset-free keys, so the same error in two texts compares equal."""
    return [error_key(doc, e) for e in doc.errors()]


def error_key(doc: Document, e: ErrorNode) -> tuple[str, bool, str]:
    """One error's offset-free key (its text, whether a missing node, its context)."""
    return doc.text[e.start:e.end].strip(), e.missing, e.context


def new_errors(before: Document | None, after: Document) -> list[ErrorNode]:
    """Errors of ``after`` that ``before`` did not have (all of them when there is no before).

    Errors are matched by their text and context rather than offsets, because a proposal
    shifts everything after the span.
    """
    errs = after.errors()
    if before is None:
        return errs
    pool = error_signature(before)
    fresh = []
    for e in errs:
        key = error_key(after, e)
        if key in pool:
            pool.remove(key)
        else:
            fresh.append(e)
    return fresh
