"""The hook's settings: ``[tool.remask]`` in the repository's ``pyproject.toml``.

A project commits its settings next to its code so every clone's hook behaves the same::

    [tool.remask]
    kinds = ["rename", "signature", "hole"]   # default: every kind the Rewriter offers
    marker = "???"                            # the hole marker
    model = "models/remask"                   # default: the bundled model

Keys the hook does not read are ignored: the table is shared with remask's other front ends.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from remask.diffing.spans import KINDS as _KINDS

KINDS: frozenset[str] = frozenset(_KINDS)


class ConfigError(ValueError):
    """``[tool.remask]`` is unusable; the message is one line naming the file and the key."""


@dataclass(frozen=True)
class HookConfig:
    kinds: frozenset[str] = KINDS
    marker: str = "???"
    model: Path | None = None  # None: the bundled model


def load_config(root: Path) -> HookConfig:
    """Read ``root/pyproject.toml``; defaults when the file or the table is absent."""
    path = root / "pyproject.toml"
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8")).get("tool", {}).get("remask", {})
    except FileNotFoundError:
        return HookConfig()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ConfigError(f"{path}: cannot read ({e})") from None
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.remask] must be a table")
    return HookConfig(_kinds(table, path), _marker(table, path), _model(table, path, root))


def _kinds(table: dict, path: Path) -> frozenset[str]:
    kinds = table.get("kinds", sorted(KINDS))
    if not isinstance(kinds, list) or not all(isinstance(k, str) for k in kinds):
        raise ConfigError(f"{path}: tool.remask.kinds must be a list of strings")
    unknown = sorted(set(kinds) - KINDS)
    if unknown:
        raise ConfigError(f"{path}: tool.remask.kinds: unknown kind {unknown[0]!r} "
                          f"(known: {', '.join(sorted(KINDS))})")
    return frozenset(kinds)


def _marker(table: dict, path: Path) -> str:
    marker = table.get("marker", HookConfig.marker)
    if not isinstance(marker, str) or not marker.strip() or "\n" in marker:
        raise ConfigError(f"{path}: tool.remask.marker must be a non-empty one-line string")
    return marker


def _model(table: dict, path: Path, root: Path) -> Path | None:
    model = table.get("model")
    if model is None:
        return None
    if not isinstance(model, str) or not model:
        raise ConfigError(f"{path}: tool.remask.model must be a directory path")
    return (root / Path(model).expanduser()).resolve()
