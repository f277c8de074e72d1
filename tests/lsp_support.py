"""What the LSP tests share: the real server command, a recording client, small helpers.

The client records every ``publishDiagnostics`` with its version and every
``remask/denoiseStep``, so a test can ask "what did the server say about version N" after the
fact instead of racing a single notification future.
"""

from __future__ import annotations

import asyncio
import json
import select
import subprocess
import sys
import time
from typing import IO, Any

from lsprotocol import types
from pygls.protocol import default_converter
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES, register_lsp_features

from remask.diffing.syntax import new_errors, parse

SERVER = [sys.executable, "-m", "remask.cli", "lsp"]
URI = "file:///tmp/remask-lsp-test/example.py"
TIMEOUT = 60.0  # seconds: the server imports torch and loads the model on a busy 2-core box


def make_client() -> LanguageClient:
    """pytest-lsp's client plus records of diagnostics (with versions) and denoising steps."""
    client = LanguageClient(converter_factory=default_converter)
    client.published = []  # type: ignore[attr-defined]
    client.steps = []  # type: ignore[attr-defined]

    def diagnostics(c: LanguageClient, params: types.PublishDiagnosticsParams) -> None:
        c.diagnostics[params.uri] = params.diagnostics
        c.published.append(params)  # type: ignore[attr-defined]

    def step(c: LanguageClient, params: Any) -> None:
        c.steps.append(params._asdict())  # type: ignore[attr-defined]  # pygls: a namedtuple

    register_lsp_features(client, {**DEFAULT_CLIENT_FEATURES,
                                   types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS: diagnostics,
                                   "remask/denoiseStep": step})
    return client


def config(*args: str) -> ClientServerConfig:
    return ClientServerConfig(server_command=[*SERVER, *args], client_factory=make_client)


def capabilities() -> types.ClientCapabilities:
    """A small modern client: work-done progress, versioned workspace edits, inline completion."""
    return types.ClientCapabilities(
        window=types.WindowClientCapabilities(work_done_progress=True),
        workspace=types.WorkspaceClientCapabilities(
            workspace_edit=types.WorkspaceEditClientCapabilities(document_changes=True)),
        text_document=types.TextDocumentClientCapabilities(
            inline_completion=types.InlineCompletionClientCapabilities()))


async def initialize(client: LanguageClient, options: Any = None,
                     caps: types.ClientCapabilities | None = None) -> types.InitializeResult:
    return await client.initialize_session(types.InitializeParams(
        capabilities=caps or capabilities(), initialization_options=options))


def open_doc(client: LanguageClient, text: str, uri: str = URI, version: int = 1) -> None:
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)))


def change(client: LanguageClient, version: int, start: types.Position, end: types.Position,
           new_text: str, uri: str = URI) -> None:
    """Send one incremental change (positions in the client's units)."""
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=version),
        [types.TextDocumentContentChangePartial(range=types.Range(start, end), text=new_text)]))


def pos(line: int, character: int) -> types.Position:
    return types.Position(line, character)


async def wait_for(predicate, timeout: float = TIMEOUT) -> None:
    """Poll until ``predicate()`` holds; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {predicate}")
        await asyncio.sleep(0.02)


async def diagnostics_for(client: LanguageClient, version: int, uri: str = URI,
                          ) -> list[types.Diagnostic]:
    """The diagnostics the server published for ``version`` (waits for them)."""
    def found() -> list[types.PublishDiagnosticsParams]:
        return [p for p in client.published if p.uri == uri and p.version == version]
    await wait_for(lambda: bool(found()))
    return list(found()[-1].diagnostics)


def utf16_offset(text: str, p: types.Position) -> int:
    """Independent of the server's converter: a (line, UTF-16 column) to a str offset."""
    lines = text.split("\n")
    start = sum(len(line) + 1 for line in lines[:p.line])
    units = 0
    for i, ch in enumerate(lines[p.line]):
        if units >= p.character:
            return start + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return start + len(lines[p.line])


def apply(text: str, edits: list[types.TextEdit]) -> str:
    """Apply LSP edits (UTF-16 positions, LF text) the way a client does: back to front."""
    spans = sorted(((utf16_offset(text, e.range.start), utf16_offset(text, e.range.end),
                     e.new_text) for e in edits), reverse=True)
    for a, b, new in spans:
        assert a <= b <= len(text), f"edit {a}:{b} outside a text of {len(text)} characters"
        text = text[:a] + new + text[b:]
    return text


async def server_stats(client: LanguageClient) -> dict[str, int]:
    """The server's counters (``remask/stats``) as a dict."""
    result = await client.protocol.send_request_async("remask/stats", None)
    return result._asdict()  # pygls hands untyped results over as namedtuples


def adds_no_syntax_error(before: str, after: str) -> bool:
    return not new_errors(parse(before), parse(after))


def frame(body: bytes) -> bytes:
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class RawClient:
    """Bytes in, parsed messages out: no LSP library between the test and the server."""

    def __init__(self, stderr: IO[bytes] | int = subprocess.DEVNULL) -> None:
        # Unbuffered stdout: select() sees only the pipe, so a Python-side buffer holding
        # messages already read ahead would look like silence (it did, once, under load).
        self.proc = subprocess.Popen(SERVER, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=stderr, bufsize=0)

    def send(self, raw: bytes) -> None:
        self.proc.stdin.write(raw)
        self.proc.stdin.flush()

    def request(self, msg_id: int, method: str, params: object) -> None:
        self.send(frame(json.dumps({"jsonrpc": "2.0", "id": msg_id, "method": method,
                                    "params": params}).encode()))

    def notify(self, method: str, params: object) -> None:
        self.send(frame(json.dumps({"jsonrpc": "2.0", "method": method,
                                    "params": params}).encode()))

    def read_until(self, done, timeout: float = TIMEOUT) -> list[dict]:
        """Messages read until ``done(message)`` holds for one (or the time runs out)."""
        seen, end, out = [], time.monotonic() + timeout, self.proc.stdout
        while time.monotonic() < end:
            if not select.select([out], [], [], 0.5)[0]:
                continue
            length = 0
            while (line := out.readline().strip()):
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = b""
            while len(body) < length:  # a raw pipe may return a message in pieces
                chunk = out.read(length - len(body))
                if not chunk:
                    raise AssertionError(f"the server closed its output; saw {seen}")
                body += chunk
            seen.append(json.loads(body))
            if done(seen[-1]):
                return seen
        raise AssertionError(f"no answer within {timeout} s; saw {seen}")

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
