"""Build the training corpus from code already on this machine, by an explicit allow-list.

The corpus is the interpreter's standard library (PSF) plus the site-packages listed in
``allowlist.toml`` whose installed metadata confirms the listed licence. Files are
deduplicated by content and by function (a file made mostly of functions already seen,
up to renaming, is left out: transformers copies a model's code into the next one under a new
name), must parse as Python 3, and a fixed 1% (by path hash) is held out for evaluation so
held-out numbers are comparable across sessions and machines.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import importlib.util
import io
import json
import re
import sysconfig
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ALLOWLIST = Path(__file__).with_name("allowlist.toml")
MAX_FILE_BYTES = 400_000
MAX_MEAN_LINE = 120  # generated or minified code has long lines; it teaches little
HELDOUT_PERCENT = 1
MAX_SEEN_SHARE = 0.5  # a file whose function bytes are mostly copies teaches little new
MIN_FUNCTION_BYTES = 300  # shorter functions look alike once renamed without being copies
_COMMENT = re.compile(r"#[^\n]*")
_NAME = re.compile(r"[A-Za-z_]\w*")
_LICENCE_FAMILIES = ("MIT", "BSD", "Apache", "PSF")


@dataclass
class Source:
    """One allow-listed origin of code: the stdlib or an installed distribution."""

    name: str
    root: Path
    licence: str
    version: str
    metadata_licence: str = ""
    files: int = 0
    bytes: int = 0
    tokens: int = 0
    skipped: dict[str, int] = field(default_factory=dict)


def _licence_family(text: str) -> set[str]:
    text = text.lower().replace("python software foundation", "psf")
    return {fam for fam in _LICENCE_FAMILIES if fam.lower() in text}


def load_allowlist(path: Path = ALLOWLIST) -> dict:
    with path.open("rb") as f:
        return tomllib.load(f)


def find_sources(allow: dict) -> tuple[list[Source], list[str]]:
    """Resolve the allow-list to installed folders; return sources and one line per skip."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    sources = [Source("stdlib", stdlib, allow["stdlib"]["licence"], sysconfig.get_python_version(),
                      "PSF-2.0 (Python standard library)")]
    notes = []
    deny = set(allow.get("deny", []))
    for entry in allow.get("package", []):
        dist, module, licence = entry["dist"], entry["module"], entry["licence"]
        if module in deny:
            notes.append(f"{dist}: denied (a benchmark project)")
            continue
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            notes.append(f"{dist}: not installed")
            continue
        try:
            meta = importlib.metadata.metadata(dist)
        except importlib.metadata.PackageNotFoundError:
            notes.append(f"{dist}: no distribution metadata")
            continue
        declared = " ".join(
            [meta.get("License-Expression") or "", (meta.get("License") or "")[:200]]
            + [c for c in meta.get_all("Classifier") or [] if c.startswith("License")]
        )
        if not _licence_family(licence) & _licence_family(declared):
            notes.append(f"{dist}: metadata licence {declared[:60]!r} does not match {licence}")
            continue
        root = Path(next(iter(spec.submodule_search_locations)))
        sources.append(Source(dist, root, licence, meta["Version"], " ".join(declared.split())))
    return sources, notes


def _skip_reason(path: Path, data: bytes) -> str | None:
    if len(data) > MAX_FILE_BYTES:
        return "too large"
    if not data.strip():
        return "empty"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return "not utf-8"
    lines = text.count("\n") + 1
    if len(text) / lines > MAX_MEAN_LINE:
        return "long lines"
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return "does not parse"
    return None


def _functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Module-level functions and methods (not the functions nested inside them)."""
    stack: list[ast.AST] = [tree]
    while stack:
        for node in getattr(stack.pop(), "body", []):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                yield node
            elif isinstance(node, ast.ClassDef):
                stack.append(node)


def function_key(source: str) -> bytes:
    """A digest equal for two functions that differ only in comments, layout and names.

    Names are numbered by first appearance, so a copy renamed consistently (``BertLayer`` →
    ``RobertaLayer`` everywhere) hashes like its original.
    """
    numbers: dict[str, str] = {}
    body = _NAME.sub(lambda m: numbers.setdefault(m.group(), f"n{len(numbers)}"),
                     _COMMENT.sub("", source))
    return hashlib.sha1(" ".join(body.split()).encode()).digest()


def function_keys(text: str) -> dict[bytes, int]:
    """The `function_key` of each function of at least MIN_FUNCTION_BYTES, with its size."""
    lines = io.StringIO(text, newline="").readlines()  # the line breaks ast counts
    keys: dict[bytes, int] = {}
    for node in _functions(ast.parse(text)):
        source = "".join(lines[node.lineno - 1:node.end_lineno])
        if len(source) < MIN_FUNCTION_BYTES:
            continue
        key = function_key(source)
        keys[key] = keys.get(key, 0) + len(source)
    return keys


def seen_share(keys: dict[bytes, int], seen: set[bytes]) -> float:
    """The share of a file's function bytes that are copies of functions in ``seen``."""
    total = sum(keys.values())
    return sum(n for k, n in keys.items() if k in seen) / total if total else 0.0


def iter_files(source: Source, skip_dirs: list[str]) -> Iterator[Path]:
    for path in sorted(source.root.rglob("*.py")):
        rel = path.relative_to(source.root).as_posix()
        if any(f"/{d}/" in f"/{rel}" for d in skip_dirs):
            continue
        yield path


def is_heldout(rel_path: str) -> bool:
    digest = hashlib.sha1(rel_path.encode()).digest()
    return int.from_bytes(digest[:4], "big") % 100 < HELDOUT_PERCENT


def build_corpus(out: Path, allow: dict | None = None, log=print) -> dict:
    """Write ``train.txt``/``heldout.txt`` with offset indexes and a manifest; return it."""
    allow = allow or load_allowlist()
    sources, notes = find_sources(allow)
    for note in notes:
        log(f"skip {note}")
    out.mkdir(parents=True, exist_ok=True)
    seen: set[bytes] = set()
    seen_functions: set[bytes] = set()
    splits = {"train": [], "heldout": []}
    for src in sources:
        for path in iter_files(src, allow.get("skip_dirs", [])):
            data = path.read_bytes()
            reason = _skip_reason(path, data)
            digest = hashlib.sha256(data).digest()
            if reason is None and digest in seen:
                reason = "duplicate"
            keys = function_keys(data.decode()) if reason is None else {}
            if reason is None and seen_share(keys, seen_functions) > MAX_SEEN_SHARE:
                reason = "copied functions"
            if reason:
                src.skipped[reason] = src.skipped.get(reason, 0) + 1
                continue
            seen.add(digest)
            seen_functions.update(keys)
            rel = f"{src.name}/{path.relative_to(src.root).as_posix()}"
            splits["heldout" if is_heldout(rel) else "train"].append((rel, data, src))
            src.files += 1
            src.bytes += len(data)
    for split, docs in splits.items():
        write_split(out, split, [(rel, data) for rel, data, _ in docs])
    manifest = {
        "sources": [
            {k: (str(v) if isinstance(v, Path) else v) for k, v in vars(s).items()} for s in sources
        ],
        "skipped_sources": notes,
        "files": {k: len(v) for k, v in splits.items()},
        "bytes": {k: sum(len(d) for _, d, _ in v) for k, v in splits.items()},
        "heldout_rule": f"sha1(path)[:4] % 100 < {HELDOUT_PERCENT}",
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    return manifest


def write_split(out: Path, split: str, docs: list[tuple[str, bytes]]) -> None:
    """Store documents as one file plus (start, end) byte offsets and their paths."""
    offsets = np.zeros((len(docs), 2), dtype=np.int64)
    pos = 0
    with (out / f"{split}.txt").open("wb") as f:
        for i, (_, data) in enumerate(docs):
            f.write(data)
            offsets[i] = (pos, pos + len(data))
            pos += len(data)
    np.save(out / f"{split}.idx.npy", offsets)
    (out / f"{split}.files.txt").write_text("".join(f"{rel}\n" for rel, _ in docs))


class Corpus:
    """A split of the built corpus: documents as byte ranges of one file, read on demand."""

    def __init__(self, root: Path, split: str) -> None:
        self.data = (root / f"{split}.txt").read_bytes()
        self.offsets = np.load(root / f"{split}.idx.npy")
        sizes = (self.offsets[:, 1] - self.offsets[:, 0]).astype(np.float64)
        self.weights = sizes / sizes.sum()

    def __len__(self) -> int:
        return len(self.offsets)

    def doc(self, i: int) -> str:
        start, end = self.offsets[i]
        return self.data[start:end].decode("utf-8")

    def sample(self, rng: np.random.Generator) -> str:
        """A document drawn with probability proportional to its size."""
        return self.doc(int(rng.choice(len(self.offsets), p=self.weights)))

    def texts(self) -> Iterator[str]:
        for i in range(len(self)):
            yield self.doc(i)
