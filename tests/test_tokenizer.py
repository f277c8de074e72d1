import sysconfig
from pathlib import Path

import pytest

from remask.infill.engine import BUNDLED
from remask.infill.tokenizer import SPECIAL_TOKENS, Tokenizer


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.load(BUNDLED)


def _stdlib_sources() -> list[str]:
    root = Path(sysconfig.get_paths()["stdlib"])
    out = []
    for path in sorted(root.glob("*.py")) + sorted((root / "json").glob("*.py")):
        try:
            out.append(path.read_bytes().decode("utf-8"))
        except UnicodeDecodeError:
            continue
    return out


def test_round_trip_every_stdlib_top_level_file(tok):
    texts = _stdlib_sources()
    assert len(texts) > 150
    for text, ids in zip(texts, tok.encode_batch(texts), strict=True):
        assert tok.decode(ids) == text


@pytest.mark.parametrize("text", ["", "\r\n\t x\u00e9\U0001f600\n", "a\x00b", "   \n\n\t\t"])
def test_round_trip_odd_text(tok, text):
    assert tok.decode(tok.encode(text)) == text


def test_special_token_text_is_not_a_special_token(tok):
    text = "".join(SPECIAL_TOKENS)
    ids = tok.encode(text)
    assert not any(tok.is_special(i) for i in ids)
    assert tok.decode(ids) == text


def test_special_ids_come_from_the_file(tok):
    for name in tok.special.__dataclass_fields__:
        assert tok.hf.id_to_token(getattr(tok.special, name)) == f"<|{name}|>"


def test_span_starts_and_ends_on_the_callers_offsets(tok):
    text = "def area(r):\n    return 3.14159 * r ** 2\n"
    a, b = text.index("3.14"), text.index(" ** 2")
    p, m, s = tok.encode_span(text[:a], text[a:b], text[b:])
    assert tok.decode(p) == text[:a]
    assert tok.decode(m) == text[a:b]
    assert tok.decode(s) == text[b:]
