"""The remask language server: one module-level pygls server, handlers as short adapters.

Each handler gets the document, calls the Rewriter (on the model thread, through
``Documents``), converts the result with ``convert`` and answers ``None`` when there is nothing
to say. After a change settles, ``analyze`` maps the edit to spans (hint diagnostics at once)
and denoises them into proposals that code actions then serve for exactly that version.

Only Python documents are served: a languageId naming Python (``python``, Eglot's
``python-ts``), or any other languageId (a bare client's ``""`` or ``plaintext``) on a path
ending in ``.py`` or ``.pyi`` (``documents.is_python``). Any other document is never tracked:
no hints, and its requests answer ``None`` at once, without waiting for the model.
"""

from __future__ import annotations

import asyncio
import resource
from importlib.metadata import PackageNotFoundError, version

from lsprotocol import types
from pygls.uris import to_fs_path

from remask.diffing.files import SourceError, check_text
from remask.diffing.proposal import Proposal, Span

from . import convert, elsewhere, moves
from .documents import Analysis, DocState, is_python
from .live import Live
from .protocol import RemaskServer
from .settings import Settings

try:
    __version__ = version("remask")
except PackageNotFoundError:  # running from a checkout that was never installed
    __version__ = "0+unknown"

STATS = "remask/stats"
server = RemaskServer("remask", __version__)


async def configure(ls: RemaskServer, raw: object, absent: Settings | None = None) -> None:
    """Apply a settings object; (re)load the model on the model thread; tell the user why not.

    Keys ``raw`` leaves out come from ``absent`` (``Settings.merge``). ``ready`` is set again
    whatever happens here: every fill and code action waits for it.
    """
    loop = asyncio.get_running_loop()
    ls.ready.clear()  # requests arriving meanwhile wait for the model these settings name
    try:
        ls.settings, problems = ls.settings.merge(raw, absent)
        error = await loop.run_in_executor(ls.docs.executor, ls.model.configure, ls.settings)
    finally:
        ls.ready.set()
    for line in problems:
        ls.window_show_message(types.ShowMessageParams(types.MessageType.Warning,
                                                       f"remask: {line}"))
    if error is not None:
        ls.window_show_message(types.ShowMessageParams(
            types.MessageType.Error, f"remask: {error}; only hole and span hints are on"))


def publish(ls: RemaskServer, state: DocState, version: int, text: str, spans: list[Span]) -> None:
    """Hint diagnostics for ``version``, unless the document has moved on."""
    if state.version == version:
        diags = convert.diagnostics(spans, convert.Locator(text, ls.encoding))
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=state.uri, version=version, diagnostics=diags))


def refuse(ls: RemaskServer, state: DocState, text: str) -> bool:
    """True when the buffer is no file to edit (binary, huge, undecodable): remask stays off.

    The user is told once, when a document turns unusable, not at every keystroke.
    """
    try:
        check_text(text, state.path or state.uri)
    except SourceError as e:
        if not state.refused:
            ls.window_show_message(types.ShowMessageParams(
                types.MessageType.Warning, f"remask: {e}; remask is off for it"))
        state.refused, state.settled = True, None  # and no 10 MB "before" is kept
        ls.docs.stats.add("refused")
        return True
    state.refused = False
    return False


async def analyze(state: DocState) -> None:
    """Map the latest edit to spans, publish hints, denoise proposals for that version.

    Spans are model-free and found off the model thread, so hints (and code actions when there
    is nothing to denoise) never queue behind a fill.
    """
    # A fill the user waits for goes first: mapping spans (~20 ms of Python on a 20 KB file)
    # on another thread beside it would slow it down.
    await state.quiet()
    ls, v, before, cursor = server, state.version, state.settled, state.cursor
    if ls.docs.get(state.uri) is not state:
        return  # closed (or reopened) while the debounce waited
    text = ls.workspace.get_text_document(state.uri).source
    if refuse(ls, state, text):
        publish(ls, state, v, "", [])  # clears hints an earlier version had
        return
    before = text if before is None else before  # the buffer was unusable: map no edit
    try:
        # No cursor: the hole at the cursor is inline completion's (asked per keystroke); as a
        # hint it would sit at every line end being typed, and denoising it here too would
        # double the model's work while the user types.
        spans = await asyncio.to_thread(ls.model.spans, before, text, state.path, None,
                                        ls.settings)
        publish(ls, state, v, text, spans)
        proposals = await propose(ls, state, v, before, text, spans)
        others = await elsewhere.follow_up(ls, state, v, before, text) \
            if proposals is not None else None
        moved = await moves.moved_defs(ls, state, v, before, text) \
            if others is not None else []
    except Exception as e:  # a bug below costs this analysis, never the server
        ls.window_log_message(types.LogMessageParams(types.MessageType.Error,
                                                     f"remask: analysis failed: {e!r}"))
        return
    if proposals is not None and (others is None or state.version != v):
        ls.docs.stats.add("stale_analyses")
    elif proposals is not None and others is not None:
        ls.docs.stats.add("analyses")
        state.analysis = Analysis(v, text, cursor, spans, proposals, others, moved)
        if all(s.kind == "hole" for s in spans) and not others and not moved:  # no "before"
            state.settle(text)


async def propose(ls: RemaskServer, state: DocState, v: int, before: str, text: str,
                  spans: list[Span]) -> list[Proposal] | None:
    """Denoise the spans into proposals on the model thread; None when cancelled as stale."""
    await ls.ready.wait()
    rw = ls.model.rewriter
    if rw is None or not spans:
        return []
    if state.asking:
        return None  # a fill the user waits on goes first; a code action request redoes this
    live = Live(ls, ls.model.engine, state.uri, v, "propose",
                after=ls.settings.progress_delay_ms / 1000)
    try:
        return await ls.docs.run(lambda cancel: rw.propose(
            before, text, state.path, None, cancel=cancel, on_step=live.on_step),
            state.background(v))
    finally:
        live.finish()


@server.feature(types.INITIALIZE)
def initialize(ls: RemaskServer, params: types.InitializeParams) -> None:
    ls.init_options = params.initialization_options


@server.feature(types.INITIALIZED)
async def initialized(ls: RemaskServer, params: types.InitializedParams) -> None:
    """Apply initializationOptions and load the model.

    Done here, not in ``initialize``, because messages may only be shown from now on.
    """
    await configure(ls, ls.init_options)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: RemaskServer,
                                   params: types.DidChangeConfigurationParams) -> None:
    """Settings sent replace the section: a key left out goes back to its initial value.

    VS Code sends the whole ``remask`` section each time, so a setting the user removed is
    simply missing; merged, it would keep its old value until a restart. Initial means
    initializationOptions over the defaults, so a client that sends some settings at start
    and others here keeps both. No settings (null) changes nothing (``lsp.settings``).
    """
    initial, _ = Settings().merge(ls.init_options)  # its problems were shown at initialized
    await configure(ls, params.settings, initial)


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: RemaskServer, params: types.DidOpenTextDocumentParams) -> None:
    doc, path = params.text_document, to_fs_path(params.text_document.uri)
    if not is_python(doc.language_id, path):
        ls.docs.close(doc.uri)  # reopened under another language: forget the Python one
        return
    state = ls.docs.open(doc.uri, path, doc.text, doc.version)
    ls.docs.debounce(state, 0.0, analyze)


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: RemaskServer, params: types.DidChangeTextDocumentParams) -> None:
    state = ls.docs.get(params.text_document.uri)
    if state is None:
        return
    text = ls.workspace.get_text_document(state.uri).source
    state.version = params.text_document.version
    changes = params.content_changes or []
    if changes and not state.refused:  # a refused buffer may be 10 MB: skip indexing it
        state.cursor = convert.change_cursor(convert.Locator(text, ls.encoding), changes[-1],
                                             state.text)
    state.text = text
    whole = any(isinstance(c, types.TextDocumentContentChangeWholeDocument) for c in changes)
    state.incremental = state.incremental or not whole
    a = state.analysis
    if whole and state.incremental or a is not None and any(p.text == text for p in a.proposals) \
            or text == state.incoming:
        # A proposal taken, or a client that sends edits as ranges replacing the buffer
        # wholesale (a reload, a revert): nothing the user typed to propagate, and the next
        # edit is diffed from here, not across both. From a client that sends nothing but
        # whole documents, that is an edit like any other, diffed against the settled text.
        state.settle(text)
        if text == state.incoming:
            ls.docs.stats.add("elsewhere_taken")
    ls.docs.debounce(state, ls.settings.debounce_ms / 1000, analyze)


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: RemaskServer, params: types.DidCloseTextDocumentParams) -> None:
    if ls.docs.get(params.text_document.uri) is None:
        return  # a config file synced for its version (:mod:`.moves`): nothing was served
    ls.docs.close(params.text_document.uri)
    ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
        uri=params.text_document.uri, diagnostics=[]))


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION,
                types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix]))
async def code_action(ls: RemaskServer, params: types.CodeActionParams,
                      ) -> list[types.CodeAction] | None:
    state = ls.docs.get(params.text_document.uri)
    a = await ls.docs.current(state, analyze) if state is not None else None
    if a is None:
        return None
    loc = convert.Locator(a.text, ls.encoding)
    lo, hi = loc.span(params.range)
    diags = dict(zip(a.spans, convert.diagnostics(a.spans, loc), strict=True))
    offered = a.proposals_for(lo, hi)
    actions = [convert.code_action(p, state.uri, a.version, loc,
                                   [diags[s] for s in p.spans if s in diags]) for p in offered]
    if a.at_cursor(lo, hi):  # other modules' follow-ups, where the user typed the edit
        actions += elsewhere.actions(ls, state.uri, a.version, a.text, offered,
                                     elsewhere.still_current(ls, a.elsewhere))
        actions += moves.moved_action(ls, a.version, elsewhere.still_current(ls, a.moved))
    ls.docs.stats.add("proposals_sent", len(actions))
    return actions or None


@server.feature(types.TEXT_DOCUMENT_INLINE_COMPLETION, types.InlineCompletionOptions())
async def inline_completion(ls: RemaskServer, params: types.InlineCompletionParams,
                            ) -> types.InlineCompletionList | None:
    if ls.docs.get(params.text_document.uri) is None:
        return None  # never opened, or not Python: no need to wait for the model
    await ls.ready.wait()
    state, rw = ls.docs.get(params.text_document.uri), ls.model.rewriter
    if state is None:
        return None
    # judged against the version the request was sent at, not one that arrived after it
    v = state.inline_arrivals.popitem(last=False)[1] if state.inline_arrivals \
        else state.version
    if rw is None:
        return None
    if v != state.version:
        ls.docs.stats.add("stale_fills")
        return None
    text = ls.workspace.get_text_document(state.uri).source
    if refuse(ls, state, text):
        return None
    loc = convert.Locator(text, ls.encoding)
    cursor = loc.offset(params.position)
    live = Live(ls, ls.model.engine, state.uri, v, "fill", params.work_done_token,
                after=ls.settings.progress_delay_ms / 1000)
    # Typed, not asked for: another key may follow, so the fill waits for a pause (its first
    # step comes after a prefill the cancel check can't stop; the model thread computes that
    # prefill meanwhile, which the fill then reuses), and it is a quick one.
    typed = params.context.trigger_kind == types.InlineCompletionTriggerKind.Automatic
    try:
        with state.ask():
            if typed:
                await asyncio.gather(asyncio.sleep(ls.settings.debounce_ms / 1000),
                                     ls.docs.prepare(lambda: rw.prepare_at(text, cursor,
                                                                           state.path),
                                                     state.stale(v)))
            p = await ls.docs.run(lambda cancel: rw.fill_at(
                text, cursor, state.path, cancel=cancel, on_step=live.on_step, quick=typed),
                state.stale(v))
    finally:
        live.finish()
    if p is None or state.version != v:
        ls.docs.stats.add("stale_fills" if p is not None else "empty")
        return None
    ls.docs.stats.add("proposals_sent")
    return types.InlineCompletionList(items=convert.inline_items(p, text, cursor, loc))


@server.feature(types.WORKSPACE_WILL_RENAME_FILES, moves.FILTERS)
async def will_rename_files(ls: RemaskServer, params: types.RenameFilesParams,
                            ) -> types.WorkspaceEdit | None:
    return await moves.rename_edit(ls, params.files)


@server.feature(STATS)
def stats(ls: RemaskServer, params: object) -> dict:
    """Counters for the bench and tests, with the server's peak RSS in bytes."""
    return {**ls.docs.stats.snapshot(), "max_rss": peak_rss()}


def peak_rss(pid: int | str = "self") -> int:
    """Return a process's peak resident memory in bytes (the server's own by default).

    ``VmHWM`` where Linux has it: ``ru_maxrss`` survives ``exec``, so a server forked from a
    big parent (a test runner holding models) would report the parent's size as its own.
    """
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    if pid != "self":
        return 0
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux, BSD: KiB
