"""Offsets ↔ LSP positions (`lsp.convert.Locator`): every encoding, CRLF and lone CR breaks."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol.types import Position, TextDocumentContentChangeWholeDocument

from remask.diffing.edits import line_starts
from remask.lsp.convert import Locator, change_cursor

# text with every line break LSP knows, and characters of 1–4 UTF-8 bytes and 1–2 UTF-16 units
ALPHABET = st.sampled_from(list("ab_x1 ():=,.\t") + ["\n", "\r\n", "\r", "é", "ß", "😀", "中"])
TEXT = st.lists(ALPHABET, max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXT, st.data())
def test_lsp_positions_round_trip_in_every_encoding(text, data):
    offset = data.draw(st.integers(0, len(text)))
    if offset and text[offset - 1] == "\r" and text[offset:offset + 1] == "\n":
        offset -= 1  # the middle of a CRLF is not a position an editor can express
    for encoding in ("utf-16", "utf-8", "utf-32"):
        loc = Locator(text, encoding)
        pos = loc.position(offset)
        assert loc.offset(pos) == offset
        assert 0 <= pos.line < len(line_starts(text))


def test_utf16_columns_count_surrogate_pairs():
    text = "s = '😀'\r\nt = 'é' + s\n"
    loc = Locator(text)
    assert loc.position(text.index("'", 5)) == Position(0, 7)  # 😀 is two UTF-16 units
    assert loc.position(text.index("t")) == Position(1, 0)  # CRLF is one line break
    assert loc.position(text.index("+")) == Position(1, 8)
    assert Locator(text, "utf-8").position(text.index("+")) == Position(1, 9)  # é: 2 bytes
    assert loc.offset(Position(0, 100)) == text.index("\r")  # past the end: end of line
    assert loc.offset(Position(9, 0)) == len(text)
    assert loc.offset(Position(0, 6)) == text.index("😀")  # inside a pair: its start


def test_a_whole_document_change_puts_the_cursor_after_what_it_changed():
    whole = TextDocumentContentChangeWholeDocument
    after = "def amount(xs):\n    return 1\n"
    cursor = change_cursor(Locator(after), whole(after), "def total(xs):\n    return 1\n")
    assert cursor == after.index("(")
    assert change_cursor(Locator("aab"), whole("aab"), "ab") == 2  # the repeated letter: once
    assert change_cursor(Locator(after), whole(after), None) is None
