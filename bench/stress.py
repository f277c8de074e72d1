"""``remask bench stress``: a flood of ``didChange`` against a real ``remask lsp`` process.

A real client process (this one, over the server's stdio) sends ``--changes`` one-character
edits spread over ``--seconds``, with inline completions and code actions sprinkled in, the way
an editor with a fast typist and a paste-happy user would. Random keystrokes rarely leave
anything the model can fix, so a settle phase follows: the file is put back and ``--renames``
methods are renamed one at a time, each "Rename N references" fix applied as a user accepting
it would — proof that the server still turns edits into correct proposals after the load, not
only that it stayed up. Reported: whether the server is still up and answering at the end, its
peak resident memory (``VmHWM``) sampled through the run, every request answered or not,
answers carrying an edit for a version other than the one asked about (must be 0), and the
settle phase's edits and how many applied cleanly and completed the rename. Exit 0 when the
server held; 1 when it did not; 2 on bad flags.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import re
import sys
import sysconfig
import time
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.client import LanguageClient

from remask.bench.lsp import _drain, line_actions, peak_rss_kib
from remask.bench.report import report
from remask.diffing.proposal import TextEdit, apply_edits
from remask.diffing.syntax import new_errors, parse
from remask.lsp.convert import Locator

SOURCE = "textwrap.py"  # a real stdlib module to edit
ANSWER_WAIT = 120.0  # seconds the client waits for the last answers before calling them lost


@dataclass
class Tally:
    changes: int = 0
    inline_sent: int = 0
    inline_answered: int = 0
    inline_items: int = 0
    actions_sent: int = 0
    actions_answered: int = 0
    action_edits: int = 0  # versioned document edits received in code actions
    errors: int = 0  # JSON-RPC error answers (cancelled, content modified): answered, no edit
    stale_answers: int = 0  # answers carrying an edit for a version other than the one asked
    inline_late: int = 0  # inline items that arrived after a newer change was sent (a race)
    current: int = 1  # the client's newest document version
    peak_rss_kib: int = 0
    rss_samples: int = 0
    renames: int = 0  # settle phase: methods renamed at their def
    rename_edits: int = 0  # versioned edits offered for them
    rename_clean: int = 0  # of those: applied, add no syntax error, leave no old call behind


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("stress", help="didChange flood against the language server: uptime, "
                                      "memory, stale answers")
    p.add_argument("--changes", type=int, default=1000, help="didChange notifications to send")
    p.add_argument("--seconds", type=float, default=10.0, help="spread over this many seconds")
    p.add_argument("--inline-every", type=int, default=20,
                   help="ask for an inline completion every N changes")
    p.add_argument("--action-every", type=int, default=100,
                   help="ask for code actions every N changes")
    p.add_argument("--renames", type=int, default=3,
                   help="methods renamed one by one after the flood (settle phase)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--model", type=Path, default=None, help="model directory for the server")
    p.add_argument("--json", type=Path, default=None, help="write the results here")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if (args.changes < 1 or not (math.isfinite(args.seconds) and args.seconds > 0)
            or args.inline_every < 1 or args.action_every < 1 or args.renames < 0):
        print("remask bench stress: need --changes >= 1, finite --seconds > 0, --*-every >= 1, "
              "--renames >= 0", file=sys.stderr)
        return 2
    text = (Path(sysconfig.get_paths()["stdlib"]) / SOURCE).read_text(encoding="utf-8")
    command = [sys.executable, "-m", "remask.cli", "lsp"]
    if args.model is not None:
        command += ["--model", str(args.model)]
    t0 = time.perf_counter()
    tally, alive, stats, flood_s = asyncio.run(flood(command, text, args))
    lost = (tally.inline_sent - tally.inline_answered) + (tally.actions_sent
                                                          - tally.actions_answered)
    rows = [{"measure": "didChange sent", "value": tally.changes},
            {"measure": "seconds to send them", "value": round(flood_s, 2)},
            {"measure": "inline completions answered / sent",
             "value": f"{tally.inline_answered} / {tally.inline_sent}"},
            {"measure": "code actions answered / sent",
             "value": f"{tally.actions_answered} / {tally.actions_sent}"},
            {"measure": "versioned edits in code actions", "value": tally.action_edits},
            {"measure": "error answers (cancelled, modified)", "value": tally.errors},
            {"measure": "answers for a stale version (must be 0)", "value": tally.stale_answers},
            {"measure": "requests never answered (must be 0)", "value": lost},
            {"measure": "settle: methods renamed", "value": tally.renames},
            {"measure": "settle: rename edits clean / offered",
             "value": f"{tally.rename_clean} / {tally.rename_edits}"},
            {"measure": "server up and answering at the end", "value": alive},
            {"measure": "server peak RSS MB (VmHWM)",
             "value": round(tally.peak_rss_kib / 1024, 1)}]
    settled = tally.rename_edits >= tally.renames and tally.rename_clean == tally.rename_edits
    held = alive and tally.stale_answers == 0 and lost == 0 and settled
    report(rows, ["measure", "value"], "remask bench stress: didChange flood", args.json,
           meta={"changes": args.changes, "seconds": args.seconds, "source": SOURCE,
                 "tally": tally.__dict__, "server_stats": stats, "held": held,
                 "wall_s": round(time.perf_counter() - t0, 1)},
           notes=[f"{tally.inline_items} inline answers carried a proposal, "
                  f"{tally.inline_late} of them reaching the client after a newer change "
                  f"(inline items carry no version: a race, not a stale edit); "
                  f"RSS sampled {tally.rss_samples} times"])
    return 0 if held else 1


async def flood(command: list[str], text: str, args: argparse.Namespace
                ) -> tuple[Tally, bool, dict, float]:
    client = LanguageClient("remask-stress", "0")
    for method in (types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, types.WINDOW_LOG_MESSAGE,
                   types.WINDOW_SHOW_MESSAGE, "remask/denoiseStep", "$/progress"):
        client.feature(method)(lambda _c, _p: None)
    await client.start_io(*command)
    pid = client._server.pid
    drain = asyncio.ensure_future(_drain(client._server.stderr))
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(
        workspace=types.WorkspaceClientCapabilities(
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)))))
    client.initialized(types.InitializedParams())
    tally, rng = Tally(), random.Random(args.seed)
    uri = "file:///stress/textwrap.py"
    lines = text.split("\n")
    client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=uri, language_id="python", version=1, text=text)))
    pending: list[asyncio.Task] = []
    sampler = asyncio.ensure_future(_sample_rss(pid, tally))
    start, version = time.perf_counter(), 1
    try:
        for k in range(args.changes):
            await _pace(start, k, args)
            version += 1
            tally.current = version
            line = rng.randrange(len(lines))
            _edit_line(client, uri, version, lines, line, rng)
            tally.changes += 1
            col = min(len(lines[line]), rng.randrange(len(lines[line]) + 1))
            if k % args.inline_every == args.inline_every - 1:
                pending.append(asyncio.ensure_future(
                    _inline(client, uri, version, line, col, tally)))
            if k % args.action_every == args.action_every - 1:
                pending.append(asyncio.ensure_future(
                    _actions(client, uri, version, line, tally)))
        flood_s = time.perf_counter() - start
        await asyncio.wait(pending, timeout=ANSWER_WAIT) if pending else None
        await _settle(client, uri, text, version, args.renames, tally)
        alive, stats = await _alive(client)
    finally:
        sampler.cancel()
        for task in pending:
            task.cancel()
        try:
            await asyncio.wait_for(client.shutdown_async(None), 30)
            client.exit(None)
        except (TimeoutError, JsonRpcException, ConnectionError):
            pass
        await client.stop()
        drain.cancel()
    return tally, alive, stats, flood_s


async def _pace(start: float, k: int, args: argparse.Namespace) -> None:
    due = start + args.seconds * k / args.changes
    delay = due - time.perf_counter()
    if delay > 0:
        await asyncio.sleep(delay)
    elif k % 50 == 0:
        await asyncio.sleep(0)  # let answers in even when behind schedule


def _edit_line(client: LanguageClient, uri: str, version: int, lines: list[str], line: int,
               rng: random.Random) -> None:
    """Type or delete one ASCII character on ``line``, locally and at the server."""
    body = lines[line]
    col = rng.randrange(len(body) + 1)
    if body and rng.random() < 0.4:
        col = min(col, len(body) - 1)
        rng_range = types.Range(types.Position(line, col), types.Position(line, col + 1))
        lines[line], new = body[:col] + body[col + 1:], ""
    else:
        new = rng.choice("abcxyz_ ()=:.,1")
        rng_range = types.Range(types.Position(line, col), types.Position(line, col))
        lines[line] = body[:col] + new + body[col:]
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangePartial(range=rng_range, text=new)]))


async def _inline(client: LanguageClient, uri: str, version: int, line: int, col: int,
                  tally: Tally) -> None:
    tally.inline_sent += 1
    try:
        result = await client.text_document_inline_completion_async(
            types.InlineCompletionParams(
                text_document=types.TextDocumentIdentifier(uri),
                position=types.Position(line, col),
                context=types.InlineCompletionContext(
                    types.InlineCompletionTriggerKind.Automatic)))
    except JsonRpcException:
        tally.errors += 1
        tally.inline_answered += 1
        return
    tally.inline_answered += 1
    items = result.items if isinstance(result, types.InlineCompletionList) else result or []
    tally.inline_items += bool(items)
    tally.inline_late += bool(items) and tally.current != version


async def _actions(client: LanguageClient, uri: str, version: int, line: int,
                   tally: Tally) -> None:
    tally.actions_sent += 1
    try:
        result = await line_actions(client, uri, line)
    except JsonRpcException:
        tally.errors += 1
        tally.actions_answered += 1
        return
    tally.actions_answered += 1
    for action in result or []:
        edit = getattr(action, "edit", None)
        for change in (edit.document_changes or []) if edit else []:
            if getattr(change, "text_document", None) is None:
                continue
            tally.action_edits += 1
            tally.stale_answers += change.text_document.version != version


async def _settle(client: LanguageClient, uri: str, text: str, version: int, renames: int,
                  tally: Tally) -> None:
    """Put the file back, then rename methods one by one and accept each offered fix."""
    version += 1
    _replace(client, uri, version, text)
    called = [m.group(1) for m in re.finditer(r"^    def (\w+)\(", text, re.M)
              if f"self.{m.group(1)}(" in text]
    for name in called[:renames]:
        at = text.index(f"def {name}(") + len("def ")
        loc = Locator(text)
        renamed = text[:at] + name + "_x" + text[at + len(name):]
        version += 1
        tally.current, tally.renames = version, tally.renames + 1
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangePartial(range=loc.range(at, at + len(name)),
                                                    text=name + "_x")]))
        line = loc.position(at).line
        result = await asyncio.wait_for(line_actions(client, uri, line), ANSWER_WAIT)
        text, accepted = renamed, None
        for action in result or []:
            if not getattr(action, "edit", None) or not action.title.startswith("Rename"):
                continue
            for change in action.edit.document_changes or []:
                tally.rename_edits += 1
                tally.stale_answers += change.text_document.version != version
                try:
                    new = _apply(renamed, change.edits)
                except ValueError:  # overlapping edits: no client could apply them
                    new = renamed
                clean = (new != renamed and not new_errors(parse(renamed), parse(new))
                         and f"self.{name}(" not in new)
                tally.rename_clean += clean
                accepted = new if clean and accepted is None else accepted
        if accepted is not None:  # the user takes the fix
            version += 1
            text = accepted
            _replace(client, uri, version, text)


def _replace(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangeWholeDocument(text=text)]))


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits as a client does, positions read in the text they name."""
    loc = Locator(text)
    return apply_edits(text, [TextEdit(*loc.span(e.range), e.new_text) for e in edits])


async def _sample_rss(pid: int, tally: Tally) -> None:
    while True:
        try:
            tally.peak_rss_kib = max(tally.peak_rss_kib, peak_rss_kib(pid))
            tally.rss_samples += 1
        except OSError:
            return  # the server is gone: the end-of-run check reports it
        await asyncio.sleep(0.25)


async def _alive(client: LanguageClient) -> tuple[bool, dict]:
    """Whether the server process runs and still answers a request; its own counters."""
    if client._server is None or client._server.returncode is not None:
        return False, {}
    try:
        stats = await asyncio.wait_for(
            client.protocol.send_request_async("remask/stats", None), 60)
    except (TimeoutError, JsonRpcException):
        return False, {}
    return True, stats._asdict() if hasattr(stats, "_asdict") else dict(stats or {})
