"""A renamed parameter's mentions: code-like ones follow it, English words and data stay."""

from remask.diffing.spans import affected_spans

DOC = '''def padded(n, multiple=False, fill_value=None):
    """Pad to *n* items, or to a multiple of n if *multiple* is set.

    If ``multiple`` is true, so is `multiple`. A multiple here is English.

    :param multiple: whether to pad to a multiple
    :type multiple: bool

    Args:
        multiple (bool): the same, Google style
        fill_value: what pads; a bare fill_value is still the parameter

    >>> padded(3, multiple=True)
    """
    query = "SELECT multiple FROM t"  # multiple: a comment that names it
    # a multiple of n, in a comment: English
    return multiple, fill_value, query
'''


def _renamed(old: str, new: str) -> list[str]:
    after = DOC.replace(f"def padded(n, {old}=", f"def padded(n, {new}=", 1) \
        if old == "multiple" else DOC.replace(f"{old}=None)", f"{new}=None)", 1)
    lines = after.splitlines()
    out = []
    for s in affected_spans(DOC, after):
        if "mentioned" in s.reason:
            row = after.count("\n", 0, s.start)
            out.append(lines[row].strip())
    return out


def test_only_code_like_mentions_of_an_english_word_follow_the_rename():
    assert _renamed("multiple", "next_multiple") == [
        '"""Pad to *n* items, or to a multiple of n if *multiple* is set.',
        "If ``multiple`` is true, so is `multiple`. A multiple here is English.",
        "If ``multiple`` is true, so is `multiple`. A multiple here is English.",
        ":param multiple: whether to pad to a multiple",
        ":type multiple: bool",
        "multiple (bool): the same, Google style",
        ">>> padded(3, multiple=True)",
        'query = "SELECT multiple FROM t"  # multiple: a comment that names it',
    ]


def test_a_name_that_is_no_english_word_follows_everywhere_but_in_data():
    got = _renamed("fill_value", "fillvalue")
    assert got == ["fill_value: what pads; a bare fill_value is still the parameter"] * 2


def test_a_one_letter_name_is_a_word_too():
    before = 'def f(a):\n    """Return a copy of *a*, a list."""\n    return list(a)\n'
    after = before.replace("def f(a)", "def f(items)")
    got = [after[s.start:s.end] for s in affected_spans(before, after)]
    assert got == ["a", "a"]  # *a* in the docstring and the read in the body, nothing else
    spans = affected_spans(before, after)
    assert [after.count("\n", 0, s.start) for s in spans] == [1, 2]


STRINGS = '''from typing import Annotated, Literal

__all__ = ["Node", "other"]
__all__ += ["Node"]
__all__.append("Node")


class Node:
    def link(self, o: "Node", mode: Literal["Node"],
             k: Annotated["Node", "Node"]) -> "list[Node] | None":
        x: "Node" = o
        return "Node"


def g(v: 'Node\\n') -> None:
    pass
'''


def _follow(before: str, old: str, new: str) -> str:
    after = before.replace(old, new, 1)
    out, pos = [], 0
    for s in affected_spans(before, after):
        out += [after[pos:s.start], s.mechanical[0]]
        pos = s.end
    return "".join(out) + after[pos:]


def test_a_module_level_rename_follows_into_all_and_string_annotations():
    got = _follow(STRINGS, "class Node", "class Vertex")
    assert got == STRINGS.replace("class Node", "class Vertex").replace(
        '["Node", "other"]', '["Vertex", "other"]').replace(
        '+= ["Node"]', '+= ["Vertex"]').replace('append("Node")', 'append("Vertex")').replace(
        'o: "Node"', 'o: "Vertex"').replace('Annotated["Node"', 'Annotated["Vertex"').replace(
        '"list[Node] | None"', '"list[Vertex] | None"').replace('x: "Node"', 'x: "Vertex"')
    # data stays: Literal's values, Annotated's metadata, a returned string, an escaped one
    assert 'Literal["Node"]' in got and '"Vertex", "Node"]' in got
    assert 'return "Node"' in got and "'Node\\n'" in got


SCOPED = '''class Node:
    pass


def h(n: "Node", Node: int = 0) -> "Node":
    x: "Node" = n

    def inner(m: "Node") -> None:
        pass
    return x


class Box:
    Node = int

    def put(self, v: "Node") -> None:
        def check(w: "Node") -> None:
            pass
'''


def test_a_string_annotation_means_the_binding_seen_where_it_is_evaluated():
    got = _follow(SCOPED, "class Node", "class Vertex")
    # h's own annotations are evaluated beside h: the module's class
    assert 'def h(n: "Vertex", Node: int = 0) -> "Vertex":' in got
    # in h's body, its parameter Node hides the class
    assert 'x: "Node" = n' in got and 'def inner(m: "Node")' in got
    # a class attribute hides it in the class body only, not inside the methods
    assert 'def put(self, v: "Node")' in got and 'def check(w: "Vertex")' in got


def test_all_is_followed_in_every_module_level_form():
    text = ('import sys\n\n__all__ = ["run"]\n__all__.extend(["run", "stop"])\n'
            'if sys.platform == "win32":\n    __all__ += ["run"]\n\n\ndef run():\n'
            '    return ["run"]\n')
    got = _follow(text, "def run", "def start")
    assert got.count('"start"') == 3 and 'return ["run"]' in got and '"stop"' in got
