"""``remask bench lsp``: replay realistic typing against a real ``remask lsp`` process.

Statements of real files are blanked and typed back one character at a time (one
``didChange`` each, 20–50 characters a second), the way an editor drives a server: every
keystroke asks for an inline completion at the cursor and cancels the previous request
(``$/cancelRequest``), and at the end of the line, after a pause, the editor asks for code
actions. Reported: edit→proposal latency (p50/p95/max) for both, what was dropped as stale (by
the server, which must never answer for an older version, and on arrival at the client), edits
naming a wrong version (must be 0), and the server's resident memory.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import math
import os
import random
import statistics
import sys
import sysconfig
import time
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled
from pygls.lsp.client import LanguageClient

from remask.bench.report import report
from remask.diffing.files import SourceError, read_source
from remask.lsp.server import peak_rss

STDLIB_FILES = ("textwrap.py", "shlex.py", "fnmatch.py", "colorsys.py", "bisect.py")


@dataclass
class Tally:
    inline: list[float] = field(default_factory=list)  # ms, answered for the current version
    action: list[float] = field(default_factory=list)  # ms, code action request → answer
    inline_items: int = 0  # answers that carried at least one item
    cancelled: int = 0  # requests the client cancelled (a newer keystroke came)
    stale_on_arrival: int = 0  # answers with items that arrived after a newer keystroke
    wrong_version: int = 0  # edits naming a version other than the one asked about
    rss_kib: list[int] = field(default_factory=list)
    steps: int = 0  # remask/denoiseStep notifications received


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lsp", help="typing replayed against the language server: latency, "
                                   "stale answers, RSS")
    p.add_argument("files", nargs="*", type=Path,
                   help=f"Python files to type into (default: stdlib {', '.join(STDLIB_FILES)})")
    p.add_argument("--lines", type=int, default=3, help="statements typed per file")
    p.add_argument("--cps", type=float, nargs=2, default=(20.0, 50.0), metavar=("MIN", "MAX"),
                   help="typing speed range, characters per second")
    p.add_argument("--pause", type=float, default=0.6, help="seconds paused at a line's end")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--model", type=Path, default=None, help="model directory for the server")
    p.add_argument("--json", type=Path, default=None, help="write the results here")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    lo, hi = args.cps
    # nan slips past every bound, and inf cps or pause types nothing or waits forever
    if not (0 < lo <= hi and math.isfinite(hi) and args.lines >= 1
            and math.isfinite(args.pause) and args.pause >= 0):
        print("remask bench lsp: need finite 0 < MIN <= MAX cps, --lines >= 1, finite "
              "--pause >= 0",
              file=sys.stderr)
        return 2
    paths = args.files or [Path(sysconfig.get_paths()["stdlib"]) / f for f in STDLIB_FILES]
    try:
        texts = {p: read_source(p) for p in paths}
    except SourceError as e:
        print(f"remask bench lsp: {e}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    jobs = [(p, line) for p, t in texts.items() for line in pick_lines(t, args.lines, rng)]
    if not jobs:
        print("remask bench lsp: no statement lines to type in those files", file=sys.stderr)
        return 2
    command = [sys.executable, "-m", "remask.cli", "lsp"]
    if args.model is not None:
        command += ["--model", str(args.model)]
    load = os.getloadavg()[0]
    tally, server_stats = asyncio.run(replay(command, texts, jobs, args, rng))
    rows = [row("inline completion, per keystroke", tally.inline),
            row("code actions, asked after the line", tally.action),
            row("fill_at in-process, no server", in_process(texts, jobs, args.model))]
    rss_mb = max(tally.rss_kib, default=0) / 1024
    stale = {"dropped_by_server": server_stats.get("stale_analyses", 0)
             + server_stats.get("stale_fills", 0),
             "cancelled_mid_denoise": server_stats.get("cancelled", 0),
             "cancelled_by_client": tally.cancelled, "stale_on_arrival": tally.stale_on_arrival,
             "wrong_version_edits": tally.wrong_version}
    notes = [f"stale: {stale['dropped_by_server']} dropped by the server, "
             f"{stale['cancelled_mid_denoise']} stopped mid-denoise, "
             f"{tally.stale_on_arrival} reached the client after a newer keystroke; "
             f"edits naming a wrong version: {tally.wrong_version}",
             f"server peak RSS {rss_mb:.0f} MB; {tally.inline_items} of {len(tally.inline)} "
             "inline answers carried a proposal"]
    report(rows, ["measure", "n", "p50_ms", "p95_ms", "max_ms"],
           "remask bench lsp: edit → proposal latency", args.json,
           meta={"files": [str(p) for p in paths], "lines_typed": len(jobs),
                 "load_average_1min": [round(load, 2), round(os.getloadavg()[0], 2)],
                 "cps": [lo, hi], "stale": stale, "server_peak_rss_mb": round(rss_mb, 1),
                 "server_stats": server_stats}, notes=notes)
    return 0 if tally.wrong_version == 0 else 1


def in_process(texts: dict[Path, str], jobs: list[tuple[Path, int]], model: Path | None,
               ) -> list[float]:
    """Time the same last fills on the library directly, with one torch thread like the server.

    Set beside the server's latency, it shows what the server adds to the model's own time.
    """
    import torch

    from remask.diffing.rewriter import Rewriter
    from remask.infill.engine import load_engine
    from remask.lsp.settings import Settings

    engine = load_engine(model)
    rw = Rewriter(engine, Settings().rewriter_config(engine.sampler))
    ms, threads = [], torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for path, line in jobs:
            text = texts[path]
            cursor = sum(len(t) + 1 for t in text.split("\n")[:line + 1]) - 1
            t0 = time.perf_counter()
            rw.fill_at(text, cursor, str(path))
            ms.append((time.perf_counter() - t0) * 1000)
    finally:
        torch.set_num_threads(threads)  # a caller in the same process keeps its setting
    return ms


def pick_lines(text: str, n: int, rng: random.Random) -> list[int]:
    """Statement-sized lines worth typing: whole lines of code, 15–70 characters.

    Not comments, decorators, continuation lines, or lines inside a multi-line string.
    """
    in_strings: set[int] = set()
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.STRING and tok.end[0] > tok.start[0]:
                in_strings.update(range(tok.start[0] - 1, tok.end[0]))
    except (tokenize.TokenError, SyntaxError):
        return []  # not Python the tokenizer can read: nothing to pick
    lines = text.split("\n")
    ok = [i for i, line in enumerate(lines)
          if i not in in_strings and 15 <= len(line.strip()) <= 70
          and not line.lstrip().startswith(("#", "@")) and "\t" not in line
          and not line.rstrip().endswith(("\\", ",", "(", "[", "{"))]
    return sorted(rng.sample(ok, min(n, len(ok))))


def row(measure: str, ms: list[float]) -> dict:
    if not ms:
        return {"measure": measure, "n": 0, "p50_ms": None, "p95_ms": None, "max_ms": None}
    q = statistics.quantiles(ms, n=20, method="inclusive") if len(ms) > 1 else ms * 19
    return {"measure": measure, "n": len(ms), "p50_ms": round(statistics.median(ms), 1),
            "p95_ms": round(q[18], 1), "max_ms": round(max(ms), 1)}


async def replay(command: list[str], texts: dict[Path, str], jobs: list[tuple[Path, int]],
                 args: argparse.Namespace, rng: random.Random) -> tuple[Tally, dict]:
    client = LanguageClient("remask-bench", "0")
    tally = Tally()
    # What an editor would show; the bench only counts the live steps.
    client.feature("remask/denoiseStep")(lambda _c, _p: tally.__setattr__("steps", tally.steps + 1))
    client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(lambda _c, _p: None)
    client.feature(types.WINDOW_LOG_MESSAGE)(lambda _c, _p: None)
    client.feature(types.WINDOW_SHOW_MESSAGE)(lambda _c, p: print(p.message, file=sys.stderr))
    await client.start_io(*command)
    drain = asyncio.ensure_future(_drain(client._server.stderr))
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(
        window=types.WindowClientCapabilities(work_done_progress=False),
        workspace=types.WorkspaceClientCapabilities(
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)))))
    client.initialized(types.InitializedParams())
    try:
        for path, line in jobs:
            await type_line(client, path.resolve().as_uri(), texts[path], line, args,
                            rng, tally)
            tally.rss_kib.append(peak_rss_kib(client._server.pid))
        stats = (await client.protocol.send_request_async("remask/stats", None))._asdict()
    finally:
        await client.shutdown_async(None)
        client.exit(None)
        await client.stop()
        drain.cancel()
    return tally, stats


async def type_line(client: LanguageClient, uri: str, text: str, line: int,
                    args: argparse.Namespace, rng: random.Random, tally: Tally) -> None:
    """Open ``text`` with ``line`` blanked (indent kept) and type it back."""
    lines = text.split("\n")
    target = lines[line]
    indent = target[:len(target) - len(target.lstrip())]
    lines[line] = indent
    doc = types.VersionedTextDocumentIdentifier(uri=uri, version=1)
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text="\n".join(lines))))
    pending: list[tuple[str, asyncio.Task]] = []
    last_change = 0.0
    for k, ch in enumerate(target[len(indent):]):
        await asyncio.sleep(1.0 / rng.uniform(*args.cps))
        col = len(indent) + k  # ASCII-only lines are not guaranteed: count UTF-16 units
        col = len(target[:col].encode("utf-16-le")) // 2
        doc.version += 1
        for msg_id, task in pending:  # the editor drops the old request as the next key lands
            if not task.done():
                client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=msg_id))
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=doc.version),
            [types.TextDocumentContentChangePartial(
                range=types.Range(types.Position(line, col), types.Position(line, col)),
                text=ch)]))
        last_change = time.perf_counter()
        pos = types.Position(line, col + len(ch.encode("utf-16-le")) // 2)
        msg_id = f"inline-{uri}-{doc.version}"
        pending = [(msg_id, asyncio.ensure_future(
            _inline(client, msg_id, uri, doc, pos, last_change, tally)))]
    await asyncio.gather(*(t for _, t in pending))
    await asyncio.sleep(args.pause)
    await _actions(client, uri, doc.version, line, tally)
    client.text_document_did_close(types.DidCloseTextDocumentParams(
        types.TextDocumentIdentifier(uri)))


async def _inline(client: LanguageClient, msg_id: str, uri: str,
                  doc: types.VersionedTextDocumentIdentifier, pos: types.Position, sent: float,
                  tally: Tally) -> None:
    version = doc.version
    params = types.InlineCompletionParams(
        text_document=types.TextDocumentIdentifier(uri), position=pos,
        context=types.InlineCompletionContext(types.InlineCompletionTriggerKind.Automatic))
    try:
        result = await client.protocol.send_request_async(
            types.TEXT_DOCUMENT_INLINE_COMPLETION, params, msg_id=msg_id)
    except JsonRpcRequestCancelled:
        tally.cancelled += 1
        return
    if result is not None and result.items:
        tally.inline_items += 1
        if doc.version != version:
            tally.stale_on_arrival += 1
            return
    if doc.version == version:
        tally.inline.append((time.perf_counter() - sent) * 1000)


async def _actions(client: LanguageClient, uri: str, version: int, line: int,
                   tally: Tally) -> None:
    sent = time.perf_counter()
    try:
        result = await line_actions(client, uri, line)
    except JsonRpcException:
        return
    tally.action.append((time.perf_counter() - sent) * 1000)
    for a in result or []:
        for edit in (a.edit.document_changes or []) if a.edit else []:
            if edit.text_document.version != version:
                tally.wrong_version += 1


async def line_actions(client: LanguageClient, uri: str, line: int) -> list | None:
    """Ask for the code actions over one whole line, as an editor's lightbulb does."""
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri),
        range=types.Range(types.Position(line, 0), types.Position(line + 1, 0)),
        context=types.CodeActionContext(diagnostics=[])))


async def _drain(stream: asyncio.StreamReader | None) -> None:
    """Read the server's stderr so a chatty server never blocks on a full pipe."""
    while stream is not None and await stream.readline():
        pass


def peak_rss_kib(pid: int | str = "self") -> int:
    """Peak resident memory (VmHWM) of a process, in KiB, as the server reports its own."""
    return peak_rss(pid) // 1024
