"""Minimal edits: property tests over arbitrary texts (hypothesis)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from remask.diffing.checks import faults, python_ok, unbound_names
from remask.diffing.edits import ast_offset, line_starts, minimal_edits, parse_python, python_source
from remask.diffing.proposal import TextEdit, apply_edits

# code-like text: identifiers, punctuation, tabs, CRLF / LF / CR breaks, accents and emoji
ALPHABET = st.sampled_from(list("ab_x1 ():=,.\t") + ["\n", "\r\n", "\r", "é", "ß", "😀", "中"])
TEXT = st.lists(ALPHABET, max_size=60).map("".join)


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_applying_minimal_edits_reproduces_the_new_text(old, new):
    edits = minimal_edits(old, new)
    assert apply_edits(old, edits) == new
    assert (edits == []) == (old == new)
    starts = [e.start for e in edits]
    assert starts == sorted(starts)


@settings(max_examples=300, deadline=None)
@given(TEXT, TEXT)
def test_edits_replace_only_what_differs(old, new):
    edits = minimal_edits(old, new)
    for e in edits:
        assert old[e.start:e.end] != e.new_text
    for a, b in zip(edits, edits[1:], strict=False):
        assert a.end < b.start  # edits never touch: no order-sensitive pairs


def test_an_insertion_slid_against_a_replacement_is_one_edit():
    # What the bundled model once proposed for `return ???`: the fill inserts before the
    # hole and replaces it. Slid into the hole, the insertion lands where the replacement
    # starts; as two edits at one offset, a client applying them back to front by start
    # alone put the insertion after the replacement.
    old = "        total += v\n    return ???\n"
    new = old.replace("???", "    return  # len(s,  if len(valuess, ss")
    hole = (old.index("???"), old.index("???") + 3)
    edits = minimal_edits(old, new, inside=[hole])
    assert len(edits) == 1
    text = old
    for e in sorted(edits, key=lambda e: e.start, reverse=True):
        text = text[:e.start] + e.new_text + text[e.end:]
    assert text == new


def test_renaming_two_names_on_a_line_gives_two_small_edits():
    old = "def f(items, x):\n    return items + x\n"
    new = "def f(values, x):\n    return values + x\n"
    edits = minimal_edits(old, new)
    assert len(edits) == 2
    assert all(e.end - e.start <= len("items") for e in edits)


@settings(max_examples=200, deadline=None)
@given(TEXT, TEXT, st.data())
def test_map_back_lands_on_an_unchanged_position(old, new, data):
    from remask.diffing.edits import map_back

    edits = minimal_edits(old, new)
    pos = data.draw(st.integers(0, len(new)))
    back = map_back(edits, pos)
    assert 0 <= back <= len(old)
    if not any(e.start <= back <= e.end for e in edits):  # outside every edit: same text
        assert old[back:].startswith(new[pos:pos + 1]) or pos == len(new)


def test_an_insertion_slides_into_the_span_it_was_made_in():
    """A line break added at the end of span "ab" diffs as an insertion after the blank line;
    given the span, the same insertion is placed inside it and still yields the new text."""
    old, new = "ab\n\ncd\n", "ab\n\n\ncd\n"
    assert minimal_edits(old, new) == [TextEdit(4, 4, "\n")]
    slid = minimal_edits(old, new, inside=[(0, 2)])
    assert slid == [TextEdit(2, 2, "\n")] and apply_edits(old, slid) == new
    assert minimal_edits(old, new, inside=[(6, 8)]) == [TextEdit(4, 4, "\n")]  # can't reach


def test_a_file_with_a_byte_order_mark_is_python_at_the_same_offsets():
    # Python refuses U+FEFF in a str; every Python-aware check then saw no Python at all
    text = "\ufeffimport os\ndef f(x):\n    return os.sep + x\n"
    tree = parse_python(text)
    starts = line_starts(text)
    imp, fn = tree.body
    assert text[ast_offset(text, starts, imp.lineno, imp.col_offset):].startswith("import os")
    ret = fn.body[0]
    assert text[ast_offset(text, starts, ret.lineno, ret.col_offset):].startswith("return")
    assert python_source("x = 1\n") == "x = 1\n"  # no mark: the text as it is
    assert python_ok(text, "t.py", None) and faults(text, "t.py", text.index("def")) == 0
    assert faults(text.replace("os.sep", "ys"), "t.py", text.index("def")) == 1
    assert unbound_names(text, "t.py") == 0


def test_a_fill_in_a_long_repetitive_line_is_one_small_edit():
    # difflib alone matched the ``1 + 1 + …`` tokens in quadratic time: 14 s for this fill
    old = "x = " + "1 + " * 6000 + "???\n"
    new = old.replace("???", "2")
    [edit] = minimal_edits(old, new)
    assert (edit.start, edit.end, edit.new_text) == (old.index("???"), old.index("???") + 3, "2")
