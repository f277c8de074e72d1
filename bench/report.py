"""One way to report a benchmark: a rich table on screen and the same rows as JSON on disk.

Benchmarks share it so that every figure quoted from a table can be found, under the same key,
in the JSON written by that run, and so a crash mid-write never leaves a half JSON file behind.
"""

from __future__ import annotations

import json
import math
import os
import platform
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table


def format_cell(value: Any) -> str:
    """Short human text for one cell: floats to 3 significant digits, None as a dash."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            return str(value)
        return f"{value:.3g}" if abs(value) < 1000 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10000 else str(value)
    return str(value)


def environment() -> dict[str, Any]:
    """Describe what produced the numbers: a figure without its machine is not comparable."""
    return {"python": platform.python_version(), "platform": platform.platform(),
            "cpus": os.cpu_count(), "argv": sys.argv,
            "time": datetime.now(UTC).isoformat(timespec="seconds")}


class ReportWriteError(Exception):
    """The JSON could not be written; the message is one line naming the path and why."""


def write_json(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` to ``path`` atomically (temp file in the same folder, fsync, rename).

    NaN and infinities become ``null``: Python writes them as ``NaN`` / ``Infinity``, which
    no strict JSON reader (``jq``, JavaScript, Go) accepts, so one diverged figure would
    make the whole file unreadable. An ``OSError`` (a directory there, a full disk, no
    permission) becomes :class:`ReportWriteError`.
    """
    path = Path(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    except OSError as e:
        raise ReportWriteError(f"{path}: not written ({e.strerror or e})") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(_finite(data), f, indent=2, default=str, allow_nan=False)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as e:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(e, OSError):
            raise ReportWriteError(f"{path}: not written ({e.strerror or e})") from None
        raise


def _finite(value: Any, _path: tuple[int, ...] = ()) -> Any:
    """``value`` with every non-finite float replaced by None (containers copied).

    ValueError on a container that holds itself, as ``json.dump`` would raise.
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict | list | tuple):
        if id(value) in _path:
            raise ValueError("Circular reference detected")
        inner = (*_path, id(value))
        if isinstance(value, dict):
            return {k: _finite(v, inner) for k, v in value.items()}
        return [_finite(v, inner) for v in value]
    return value


def report(rows: list[dict[str, Any]], columns: list[str], title: str,
           json_path: Path | None = None, meta: dict[str, Any] | None = None,
           console: Console | None = None, notes: list[str] | None = None) -> dict[str, Any]:
    """Print ``rows`` as a table of ``columns`` and, if ``json_path``, write them as JSON.

    Rows may carry more keys than ``columns`` (all go to the JSON; only ``columns`` are shown).
    The JSON is ``{"title", "columns", "rows", "meta", "notes"}`` with ``meta`` extended by
    :func:`environment` under ``"env"``; it is also returned, so callers and tests can check it.
    """
    table = Table(title=title)
    for c in columns:
        table.add_column(c, overflow="fold", justify="left"
                         if rows and isinstance(rows[0].get(c), str) else "right")
    for r in rows:
        table.add_row(*(format_cell(r.get(c)) for c in columns))
    if console is None:
        console = Console()
        if not console.is_terminal:  # a log or a pipe: print whole, don't squeeze to 80
            wide = console.measure(table, options=console.options.update_width(1000))
            console = Console(width=max(console.width, wide.maximum))
    console.print(table)
    for n in notes or []:
        console.print(f"note: {n}")
    data = {"title": title, "columns": columns, "rows": rows,
            "meta": {**(meta or {}), "env": environment()}, "notes": notes or []}
    if json_path is not None:
        write_json(json_path, data)
        console.print(f"wrote {json_path}")
    return data
