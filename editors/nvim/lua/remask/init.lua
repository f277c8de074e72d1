--- remask for Neovim (>= 0.11): the `remask lsp` server on Neovim's own LSP client.
---
--- `setup()` registers the server with `vim.lsp.config` / `vim.lsp.enable`; hints, quick fixes
--- (`gra`) and `$/progress` then work as for any server. What remask adds on top:
---   :RemaskFill    ask for the fill of the hole at the cursor (`???`, an empty body, the rest
---                  of the line) and apply it; works without Neovim 0.12's inline completion
---   :RemaskRepair  apply the "Repair statement" quick fix for the current line (or a range)
---   :RemaskMove {path}  move or rename the buffer's module, first updating every import of
---                  it the server finds (Neovim 0.11's own rename asks no server), and the
---                  config files naming it, open ones in their buffers at their versions
--- and, with `live = true`, the provisional text of each denoising step (`remask/denoiseStep`)
--- as virtual text at the end of the cursor's line.
local M = {}

local NAME = "remask"
local INVOKED = 1 -- InlineCompletionTriggerKind.Invoked (LSP 3.18; not in Neovim 0.11's tables)
local live_ns = vim.api.nvim_create_namespace("remask.live")
local group = vim.api.nvim_create_augroup("remask", { clear = true })
-- A job cancelled as stale (the user typed on) sends no last step: the text it showed goes
-- when the buffer changes, or when no step has come for this long (they come every 40 ms).
M.live_stale_ms = 5000
local live_gen = {} --- @type table<integer, integer> bufnr -> the latest step shown
local current = {} --- @type table the server settings: setup()'s, then configure()'s on top

--- @class remask.Opts
--- @field cmd? string[] the server command (default: { "remask", "lsp" })
--- @field filetypes? string[] (default: { "python" })
--- @field root_markers? string[] (default: pyproject.toml, setup.py, .git)
--- @field settings? table server settings in the server's spelling: model, debounceMs,
---   commitThreshold, lineCommitThreshold, spanCap, candidates, holeSamples, kinds,
---   progressDelayMs (sent as
---   initializationOptions)
--- @field live? boolean show denoising steps as virtual text (default: true)
--- @field inline_completion? boolean turn on vim.lsp.inline_completion where it exists
---   (Neovim >= 0.12; default: true)
local defaults = {
  cmd = { "remask", "lsp" },
  filetypes = { "python" },
  root_markers = { "pyproject.toml", "setup.py", ".git" },
  settings = {},
  live = true,
  inline_completion = true,
}

local function notify(msg, level)
  vim.notify("remask: " .. msg, level or vim.log.levels.INFO)
end

--- The version Neovim's client gives the buffer's document: 0.11 keeps it in
--- `vim.lsp.util.buf_versions` (deprecated in 0.12, where it is `b:changedtick`).
local function doc_version(bufnr)
  return vim.fn.has("nvim-0.12") == 1 and vim.b[bufnr].changedtick
    or vim.lsp.util.buf_versions[bufnr]
end

--- @return vim.lsp.Client?
local function client_for(bufnr)
  return vim.lsp.get_clients({ bufnr = bufnr, name = NAME })[1]
end

-- The config files and API docs a module move edits (remask.diffing.config_files), and the
-- filetypes Neovim gives them (.flake8 has none: attached by hand, no FileType detaches it).
-- They are synced to a running server, which serves nothing in them, so that it computes a
-- move's edit on the buffer and versions it: an unsaved buffer is never edited at offsets
-- read from disk.
local CONFIG_NAMES = {
  "pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", "mypy.ini", ".coveragerc", ".flake8",
}
local CONFIG_FILETYPES = { "toml", "dosini", "cfg", "rst", "markdown" }

local function is_config(name)
  local tail = vim.fs.basename(name)
  return vim.tbl_contains(CONFIG_NAMES, tail) or tail:match("%.rst$") ~= nil
    or tail:match("%.md$") ~= nil
end

--- The running server whose folder holds the file `name`, if any: a config file alone
--- starts no server.
local function serving(name)
  for _, client in ipairs(vim.lsp.get_clients({ name = NAME })) do
    if client.root_dir and vim.startswith(name, client.root_dir .. "/") then
      return client
    end
  end
end

--- Attach `client` to the loaded config buffers in its folder opened before it started.
local function sync_configs(client)
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    local name = vim.api.nvim_buf_get_name(b)
    if vim.api.nvim_buf_is_loaded(b) and is_config(name) and serving(name) == client
      and not vim.lsp.buf_is_attached(b, client.id) then
      vim.lsp.buf_attach_client(b, client.id)
    end
  end
end

--- `remask/denoiseStep`: show the span's provisional text while it is denoised, then clear it.
local function on_denoise_step(_, params)
  local bufnr = vim.uri_to_bufnr(params.uri)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  vim.api.nvim_buf_clear_namespace(bufnr, live_ns, 0, -1)
  local win = vim.fn.bufwinid(bufnr)
  if params.masked == 0 or win == -1 or params.version ~= doc_version(bufnr) then
    return
  end
  local row = vim.api.nvim_win_get_cursor(win)[1] - 1
  local text = params.text:gsub("%s+", " ")
  -- how many candidates the model denoises side by side (absent from older servers)
  local rows = (params.rows or 0) > 1 and (" · %d candidates"):format(params.rows) or ""
  vim.api.nvim_buf_set_extmark(bufnr, live_ns, row, 0, {
    virt_text = { { ("remask %s · %d masked%s: %s"):format(params.kind, params.masked, rows,
      text), "Comment" } },
    virt_text_pos = "eol",
  })
  local gen = (live_gen[bufnr] or 0) + 1
  live_gen[bufnr] = gen
  vim.defer_fn(function()
    if live_gen[bufnr] == gen and vim.api.nvim_buf_is_valid(bufnr) then
      vim.api.nvim_buf_clear_namespace(bufnr, live_ns, 0, -1)
    end
  end, M.live_stale_ms)
end

--- Fill the hole at the cursor: request `textDocument/inlineCompletion` and apply the first
--- item, unless the buffer changed while the model worked.
function M.fill()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return notify("not attached to this buffer", vim.log.levels.WARN)
  end
  local params = vim.lsp.util.make_position_params(0, client.offset_encoding)
  params.context = { triggerKind = INVOKED }
  client:request("textDocument/inlineCompletion", params, function(err, result, ctx)
    if err then
      return notify(err.message, vim.log.levels.ERROR)
    end
    local items = vim.tbl_filter(function(item)
      return type(item.insertText) == "string"
    end, result and (result.items or result) or {})
    if #items == 0 then
      return notify("no fill here")
    end
    if ctx.version ~= doc_version(bufnr) then
      return notify("the buffer changed while filling; try again")
    end
    local item = items[1]
    local range = item.range or { start = params.position, ["end"] = params.position }
    vim.lsp.util.apply_text_edits({ { range = range, newText = item.insertText } }, bufnr,
      client.offset_encoding)
  end, bufnr)
end

--- Apply remask's "Repair statement" quick fix for lines line1..line2 (1-based).
--- Neovim applies the action's versioned edit only to the version it was computed for.
function M.repair(line1, line2)
  local last = vim.api.nvim_buf_get_lines(0, line2 - 1, line2, true)[1]
  vim.lsp.buf.code_action({
    context = { only = { "quickfix" } },
    filter = function(action)
      return type(action.data) == "table" and action.data.kind == "repair"
    end,
    apply = true,
    range = { start = { line1, 0 }, ["end"] = { line2, math.max(#last - 1, 0) } },
  })
end

--- Move or rename the current buffer's file to `new`: ask remask which edits the move needs
--- (`workspace/willRenameFiles`: the imports in other files, the module's own relative ones),
--- apply them (files not open are loaded and left modified for `:wall`), then rename the file
--- and its buffer.
function M.move(new)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return notify("not attached to this buffer", vim.log.levels.WARN)
  end
  local old = vim.api.nvim_buf_get_name(bufnr)
  new = vim.fn.fnamemodify(new, ":p")
  if vim.uv.fs_stat(new) then
    return notify(new .. " already exists", vim.log.levels.ERROR)
  end
  local params = {
    files = { { oldUri = vim.uri_from_fname(old), newUri = vim.uri_from_fname(new) } },
  }
  client:request("workspace/willRenameFiles", params, function(err, edit)
    if err then
      return notify(err.message, vim.log.levels.ERROR)
    end
    if edit then
      vim.lsp.util.apply_workspace_edit(edit, client.offset_encoding)
    end
    vim.lsp.util.rename(old, new)
  end, bufnr)
end

--- The settings a server started from now on gets as initializationOptions. `vim.lsp.config`
--- merges into what an earlier call set, so the old value is dropped first: a key left out
--- (setup() called again, without it) must not live on.
local function set_init_options()
  vim.lsp.config(NAME, { init_options = vim.NIL })
  -- an empty Lua table would go out as a JSON array, which the server rejects as settings
  vim.lsp.config(NAME, {
    init_options = next(current) and vim.deepcopy(current) or vim.empty_dict(),
  })
end

--- Merge new server settings (the server's spelling) into the plugin's and send the whole set
--- to every running remask server: a didChangeConfiguration replaces the server's section (a
--- key left out goes back to its initial value), so sending only `settings` would undo earlier
--- configure() calls. The server reports any value it refuses. A server started later
--- (`:lsp restart`, a file in another project) starts with them too.
function M.configure(settings)
  current = vim.tbl_extend("force", current, settings)
  set_init_options()
  for _, client in ipairs(vim.lsp.get_clients({ name = NAME })) do
    client:notify("workspace/didChangeConfiguration", {
      settings = { remask = next(current) and vim.deepcopy(current) or vim.empty_dict() },
    })
  end
end

--- Turn on `vim.lsp.inline_completion` (Neovim >= 0.12) for remask in this buffer. Some 0.12
--- builds refuse a filter naming both the buffer and the client (the two were mutually
--- exclusive until neovim#37690); there the buffer alone is named, which turns it on for every
--- server in the buffer that offers inline completion, rather than raising in on_attach.
local function enable_inline_completion(client, bufnr)
  local ic = vim.lsp.inline_completion
  if not pcall(ic.enable, true, { bufnr = bufnr, client_id = client.id }) then
    ic.enable(true, { bufnr = bufnr })
  end
end

--- @param opts? remask.Opts
function M.setup(opts)
  opts = vim.tbl_deep_extend("force", defaults, opts or {})
  current = vim.deepcopy(opts.settings)
  set_init_options()
  vim.lsp.config(NAME, {
    cmd = opts.cmd,
    filetypes = vim.list_extend(vim.deepcopy(opts.filetypes), CONFIG_FILETYPES),
    -- a buffer with no name has no file: Neovim would send every one as file://, where two
    -- scratch buffers would be one document to the server
    root_dir = function(bufnr, on_dir)
      local name = vim.api.nvim_buf_get_name(bufnr)
      if name ~= "" and vim.tbl_contains(opts.filetypes, vim.bo[bufnr].filetype) then
        on_dir(vim.fs.root(bufnr, opts.root_markers) or vim.fs.dirname(name))
      elseif is_config(name) and serving(name) then
        on_dir(serving(name).root_dir)
      end
    end,
    -- always set: a second setup() with live = false must replace the first one's handler
    handlers = { ["remask/denoiseStep"] = opts.live and on_denoise_step or function() end },
    -- :RemaskMove asks before renaming; the server offers it to clients that say they ask
    capabilities = { workspace = { fileOperations = { willRename = true } } },
    on_attach = function(client, bufnr)
      if is_config(vim.api.nvim_buf_get_name(bufnr)) then
        return -- synced for a move's versioned edits only
      end
      -- Neovim 0.12's ghost-text inline completion; on 0.11 :RemaskFill does the same on demand
      if opts.inline_completion and vim.lsp.inline_completion then
        enable_inline_completion(client, bufnr)
      end
      sync_configs(client) -- those opened before the server started
    end,
  })
  vim.lsp.enable(NAME)
  vim.api.nvim_clear_autocmds({ group = group }) -- setup() again adds no second one
  vim.api.nvim_create_autocmd({ "TextChanged", "TextChangedI" }, {
    group = group,
    desc = "remask: drop denoising text shown for an older version",
    callback = function(ev)
      vim.api.nvim_buf_clear_namespace(ev.buf, live_ns, 0, -1)
    end,
  })
  vim.api.nvim_create_user_command("RemaskFill", M.fill,
    { desc = "remask: fill the hole at the cursor" })
  vim.api.nvim_create_user_command("RemaskRepair", function(cmd)
    M.repair(cmd.line1, cmd.line2)
  end, { range = true, desc = "remask: repair the statement on these lines" })
  vim.api.nvim_create_user_command("RemaskMove", function(cmd)
    M.move(cmd.args)
  end, { nargs = 1, complete = "file", desc = "remask: move this module, updating its imports" })
end

return M
