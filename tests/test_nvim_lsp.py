"""A real headless Neovim with the remask plugin as the LSP client of the real ``remask lsp``.

Each test opens a file, makes an edit the way a user would (Neovim sends it as an incremental
``didChange``), runs the plugin's command, and checks the buffer against the server's own answer
for that version: the edit Neovim applied is exactly the one the server sent, and the file
parses afterwards. What the model writes is not asserted, only that it lands as sent.
"""

from __future__ import annotations

import ast

import pytest
from lsp_support import apply
from lsprotocol import types
from nvim_support import DOC_VERSION, Nvim, requires_nvim
from pygls.protocol import default_converter

pytestmark = [requires_nvim, pytest.mark.slow]

CONVERTER = default_converter()
# Deleting the ")" breaks the call statement; the server's repair of it is a closer, which
# diffing offers mechanically (no model needed), so an action is always there to apply.
SOURCE = "def total(xs):\n    return sum(xs)\n\n\nx = total([1, 2])\nprint(x)\n"
BROKEN_LINE = 4
HOLE_SOURCE = "def area(w, h):\n    # TODO: \n    return w * h\n"


@pytest.fixture
def nvim(tmp_path, request):
    path = tmp_path / "example.py"
    path.write_text(request.param)
    editor = Nvim(tmp_path, path)
    yield editor
    editor.close()


def edits_of(action: dict) -> tuple[types.OptionalVersionedTextDocumentIdentifier,
                                    list[types.TextEdit]]:
    change = CONVERTER.structure(action["edit"], types.WorkspaceEdit).document_changes
    assert change is not None and len(change) == 1, action
    return change[0].text_document, change[0].edits


@pytest.mark.parametrize("nvim", [SOURCE], indirect=True)
def test_remask_repair_applies_the_servers_versioned_edit(nvim):
    nvim.attached()
    assert "remask" not in nvim.messages()  # the default setup draws no warning
    row = BROKEN_LINE
    col = SOURCE.splitlines()[row].index(")")
    nvim.lua("local row, col = ... vim.api.nvim_win_set_cursor(0, { row + 1, col }) "
             "vim.api.nvim_buf_set_text(0, row, col, row, col + 1, { '' })", row, col)
    broken, version = nvim.text(), nvim.version()
    assert broken == SOURCE.replace("2])", "2]")

    actions = nvim.request("textDocument/codeAction", {
        "textDocument": {"uri": nvim.uri()},
        "range": {"start": {"line": row, "character": 0}, "end": {"line": row + 1,
                                                                 "character": 0}},
        "context": {"diagnostics": []}})
    repairs = [a for a in actions or [] if (a.get("data") or {}).get("kind") == "repair"]
    assert len(repairs) == 1, actions
    doc, edits = edits_of(repairs[0])
    assert doc.version == version and doc.uri.endswith("/example.py")

    nvim.lua("vim.cmd('RemaskRepair')")
    after = nvim.wait_text_change(broken)
    assert after == apply(broken, edits)  # exactly the server's edit, nothing else moved
    ast.parse(after)
    assert after.splitlines()[:row] == broken.splitlines()[:row]
    assert after.splitlines()[row + 1:] == broken.splitlines()[row + 1:]
    assert nvim.version() > version


@pytest.mark.parametrize("nvim", [HOLE_SOURCE], indirect=True)
def test_remask_fill_replaces_the_typed_hole(nvim):
    nvim.attached()
    row, col = 1, len(HOLE_SOURCE.splitlines()[1])
    nvim.lua("local row, col = ... vim.api.nvim_buf_set_text(0, row, col, row, col, { '???' }) "
             "vim.api.nvim_win_set_cursor(0, { row + 1, col + 1 })", row, col)
    typed = nvim.text()
    assert typed.splitlines()[row] == "    # TODO: ???"

    result = nvim.request("textDocument/inlineCompletion", {
        "textDocument": {"uri": nvim.uri()},
        "position": {"line": row, "character": col + 3},  # ASCII: the same in every encoding
        "context": {"triggerKind": 1}})  # Invoked
    items = result["items"] if isinstance(result, dict) else result
    # the server's counters say why if not: a stale version, a cancelled or an empty fill
    assert items, ("a hole in a comment always has a fill",
                   nvim.request("remask/stats", {}))
    first = CONVERTER.structure(items[0], types.InlineCompletionItem)
    assert isinstance(first.insert_text, str) and first.range is not None

    nvim.lua("vim.cmd('RemaskFill')")
    after = nvim.wait_text_change(typed)
    assert after == apply(typed, [types.TextEdit(first.range, first.insert_text)])
    assert "???" not in after.splitlines()[row]
    assert after.splitlines()[:row] == typed.splitlines()[:row]
    ast.parse(after)


@pytest.mark.parametrize("nvim", [SOURCE], indirect=True)
def test_configure_reaches_the_running_server(nvim):
    nvim.attached()
    nvim.lua("require('remask').configure({ candidates = 99 })")
    nvim.wait("return vim.api.nvim_exec2('messages', { output = true }).output"
              ":find(\"setting 'candidates': must be between 1 and 16\", 1, true) ~= nil")


@pytest.mark.parametrize("nvim", [SOURCE], indirect=True)
def test_configure_keeps_what_an_earlier_configure_set(nvim):
    """The server takes each didChangeConfiguration as the whole section: send all of it."""
    nvim.attached()
    nvim.lua("require('remask').configure({ kinds = { 'repair' } }) "
             "require('remask').configure({ spanCap = 600 })")
    nvim.lua("vim.api.nvim_buf_set_lines(0, -1, -1, true, { 'y = ???' })")
    nvim.wait("return vim.tbl_contains(_G.T.published, ...)", nvim.version())
    codes = nvim.lua("return vim.tbl_map(function(d) return d.code end, vim.diagnostic.get(0))")
    assert "hole" not in codes  # kinds = { 'repair' } still holds


# vim.lsp.inline_completion as Neovim 0.12 has it, standing in on 0.11: records each enable();
# ``strict``, it refuses a filter naming both buffer and client, as early 0.12 builds did.
INLINE_STUB = ("local strict = ... _G.T.enabled = {} "
               "vim.lsp.inline_completion = { enable = function(on, filter) "
               "  assert(not (strict and filter.bufnr and filter.client_id), 'exclusive') "
               "  table.insert(_G.T.enabled, { on = on, bufnr = filter.bufnr or vim.NIL, "
               "    client = filter.client_id ~= nil }) end }")


@pytest.mark.parametrize("strict", [False, True])
@pytest.mark.parametrize("nvim", [SOURCE], indirect=True)
def test_inline_completion_is_on_where_neovim_has_it(nvim, strict):
    """0.12's built-in ghost text for remask's buffers; 0.11 (no such module) attaches as ever."""
    nvim.attached()
    assert nvim.lua("return vim.lsp.inline_completion == nil") == (
        nvim.lua("return vim.fn.has('nvim-0.12') == 0"))
    nvim.lua(INLINE_STUB, strict)
    nvim.lua("vim.cmd('edit other.py')")  # attaches to a second buffer: on_attach runs again
    buf = nvim.lua("return vim.api.nvim_get_current_buf()")
    enabled = nvim.wait("return #_G.T.enabled > 0 and _G.T.enabled", timeout=30)
    assert enabled == [{"on": True, "bufnr": buf, "client": not strict}]


LIVE = ("local text, masked, stale, rows = ... "
        "local buf = vim.api.nvim_get_current_buf() "
        f"local version = {DOC_VERSION} "
        "local step = vim.lsp.config.remask.handlers['remask/denoiseStep'] "
        "step(nil, { uri = vim.uri_from_bufnr(buf), version = stale and -1 or version, "
        "  kind = 'fill', step = 3, text = text, "
        "  masked = masked, rows = rows, drawn = rows and 12 }, {}) "
        "local marks = vim.api.nvim_buf_get_extmarks(buf, vim.api.nvim_create_namespace("
        "  'remask.live'), 0, -1, { details = true }) "
        "return vim.tbl_map(function(m) return { m[2], m[4].virt_text[1][1] } end, marks)")


@pytest.mark.parametrize("nvim", [SOURCE], indirect=True)
def test_denoise_steps_show_live_at_the_cursor_line_until_done(nvim):
    nvim.lua("vim.api.nvim_win_set_cursor(0, { 5, 0 })")
    shown = nvim.lua(LIVE, "x = total(\n░░", 2, False)
    assert shown == [[4, "remask fill · 2 masked: x = total( ░░"]]  # one line, at the cursor
    shown = nvim.lua(LIVE, "x = ░", 1, False, 18)  # a fill with drawn rows says how many
    assert shown == [[4, "remask fill · 1 masked · 18 candidates: x = ░"]]
    assert nvim.lua(LIVE, "x = total([1])", 0, False) == []  # done: cleared
    assert nvim.lua(LIVE, "x = 1", 1, True) == []  # a step for an older version is not shown


@pytest.mark.parametrize("nvim", [SOURCE], indirect=True)
def test_live_text_goes_when_the_buffer_changes_or_steps_stop(nvim):
    # A job cancelled as stale sends no last step (masked 0): its text must not stay for good.
    nvim.lua("vim.api.nvim_win_set_cursor(0, { 5, 0 })")
    assert nvim.lua(LIVE, "x = ░", 1, False) == [[4, "remask fill · 1 masked: x = ░"]]
    nvim.lua("vim.api.nvim_buf_set_text(0, 4, 0, 4, 0, { 'y = 1; ' })")  # the user types on
    assert nvim.lua("return #vim.api.nvim_buf_get_extmarks(0, "
                    "vim.api.nvim_create_namespace('remask.live'), 0, -1, {})") == 0

    nvim.lua("require('remask').live_stale_ms = 300")
    assert nvim.lua(LIVE, "x = ░", 1, False) == [[4, "remask fill · 1 masked: x = ░"]]
    nvim.wait("return #vim.api.nvim_buf_get_extmarks(0, "
              "vim.api.nvim_create_namespace('remask.live'), 0, -1, {}) == 0", timeout=10)


@pytest.mark.parametrize("nvim", [SOURCE], indirect=True)
def test_setup_again_replaces_the_first_setups_options(nvim):
    autocmds = "return #vim.api.nvim_get_autocmds({ group = 'remask' })"
    once = nvim.lua(autocmds)
    nvim.lua("require('remask').setup({ settings = { spanCap = 80 }, live = true }) "
             "require('remask').setup({ live = false })")
    assert nvim.lua("return vim.lsp.config.remask.init_options") == {}
    nvim.lua("vim.api.nvim_win_set_cursor(0, { 5, 0 })")
    assert nvim.lua(LIVE, "x = ░", 1, False) == []  # live = false: nothing shown
    assert nvim.lua(autocmds) == once > 0  # setup() again adds no second set


@pytest.mark.parametrize("nvim", [SOURCE], indirect=True)
def test_configured_settings_reach_a_restarted_server(nvim):
    nvim.attached()
    warning = "setting 'candidates': must be between 1 and 16"
    nvim.lua("require('remask').configure({ candidates = 99 })")
    nvim.wait("return select(2, vim.api.nvim_exec2('messages', { output = true }).output"
              ":gsub(vim.pesc(...), '')) == 1", warning)
    old = nvim.lua("local c = vim.lsp.get_clients({ name = 'remask' })[1] "
                   "c:stop() return c.id")
    nvim.wait("return #vim.lsp.get_clients({ name = 'remask' }) == 0")
    nvim.lua("vim.cmd('edit')")  # reattach: a new server, as `:lsp restart` would start
    new = nvim.wait("local c = vim.lsp.get_clients({ bufnr = 0, name = 'remask' })[1] "
                    "return c ~= nil and c.initialized and c.id")
    assert new != old
    assert nvim.lua("return vim.lsp.get_client_by_id(...).config.init_options", new) == {
        "candidates": 99}
    nvim.wait("return select(2, vim.api.nvim_exec2('messages', { output = true }).output"
              ":gsub(vim.pesc(...), '')) == 2", warning)


@pytest.mark.parametrize("nvim", [SOURCE], indirect=True)
def test_an_unnamed_buffer_gets_no_server(nvim):
    """Neovim sends every unnamed buffer as ``file://``: two scratch buffers were one document."""
    nvim.attached()
    scratch = nvim.lua("vim.cmd('enew') vim.bo.filetype = 'python' "
                       "vim.api.nvim_buf_set_lines(0, 0, -1, true, { 'x = ???' }) "
                       "return vim.api.nvim_get_current_buf()")
    nvim.lua("vim.cmd('edit other.py')")  # a named one opened after it attaches: the control
    nvim.wait("return #vim.lsp.get_clients({ bufnr = 0, name = 'remask' }) == 1")
    assert nvim.lua("return #vim.lsp.get_clients({ bufnr = ..., name = 'remask' })",
                    scratch) == 0


@pytest.mark.parametrize("nvim", ["def f():\n    return 1\n"], indirect=True)
def test_remask_move_updates_the_imports_then_renames_the_file(nvim, tmp_path):
    (tmp_path / "main.py").write_text("import example\n\nprint(example.f())\n")
    nvim.attached()
    nvim.lua("vim.cmd('RemaskMove ' .. ...)", str(tmp_path / "lib" / "sample.py"))
    nvim.wait("return vim.api.nvim_buf_get_name(0):match('lib/sample.py$') ~= nil")
    assert (tmp_path / "lib/sample.py").read_text() == "def f():\n    return 1\n"
    assert not (tmp_path / "example.py").exists()
    main = nvim.lua("local b = vim.fn.bufnr(...) "
                    "return table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, true), '\\n')",
                    str(tmp_path / "main.py"))
    assert main == "import lib.sample\n\nprint(lib.sample.f())"  # loaded, edited, not saved
    assert (tmp_path / "main.py").read_text() == "import example\n\nprint(example.f())\n"


@pytest.mark.parametrize("nvim", ["def f():\n    return 1\n"], indirect=True)
def test_remask_move_edits_an_unsaved_config_buffer_where_its_text_is(nvim, tmp_path):
    toml = '[project.scripts]\ntool = "example:f"\n'
    (tmp_path / "pyproject.toml").write_text(toml)
    nvim.attached()
    # opened after the server started, then changed and not saved: the move's edit must be
    # computed on the buffer (two lines lower than on disk) and carry its version
    nvim.lua("vim.cmd('edit ' .. ...) vim.api.nvim_buf_set_lines(0, 0, 0, true, "
             "{ '[tool.unsaved]', 'x = 1' }) vim.cmd('buffer example.py')",
             str(tmp_path / "pyproject.toml"))
    bufnr = nvim.lua("return vim.fn.bufnr(...)", str(tmp_path / "pyproject.toml"))
    nvim.wait(f"return #vim.lsp.get_clients({{ bufnr = {bufnr}, name = 'remask' }}) == 1")
    nvim.lua("vim.cmd('RemaskMove ' .. ...)", str(tmp_path / "lib" / "sample.py"))
    nvim.wait("return vim.api.nvim_buf_get_name(0):match('lib/sample.py$') ~= nil")
    text = nvim.lua("return table.concat(vim.api.nvim_buf_get_lines(..., 0, -1, true), '\\n')",
                    bufnr)
    assert text == '[tool.unsaved]\nx = 1\n[project.scripts]\ntool = "lib.sample:f"'
    assert (tmp_path / "pyproject.toml").read_text() == toml  # the user's to save
    assert nvim.lua("return vim.b[...].remask_inline", bufnr) is None


def test_a_config_file_alone_starts_no_server_and_is_synced_once_one_runs(tmp_path):
    (tmp_path / "example.py").write_text("def f():\n    return 1\n")
    (tmp_path / "setup.cfg").write_text("[options]\npy_modules = example\n")
    editor = Nvim(tmp_path, tmp_path / "setup.cfg")
    try:
        editor.lua("vim.cmd('sleep 500m')")
        assert editor.lua("return #vim.lsp.get_clients({ name = 'remask' })") == 0
        editor.lua("vim.cmd('edit example.py')")
        editor.attached()
        cfg = editor.lua("return vim.fn.bufnr(...)", str(tmp_path / "setup.cfg"))
        editor.wait(f"return #vim.lsp.get_clients({{ bufnr = {cfg}, name = 'remask' }}) == 1")
        # a FileType event for it later (:edit reloads it) keeps it attached
        editor.lua("vim.cmd('buffer ' .. ...) vim.cmd('edit')", cfg)
        editor.wait(f"return #vim.lsp.get_clients({{ bufnr = {cfg}, name = 'remask' }}) == 1")
        assert editor.lua("return #vim.lsp.get_clients({ name = 'remask' })") == 1
    finally:
        editor.close()
