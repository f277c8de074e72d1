/**
 * extension.ts itself, on a stand-in for VS Code and for vscode-languageclient's client.
 *
 * The fake client does what the real one (11.x, lib/common/client.js) does where it matters
 * here: `start()` rejects with a bare string when the command can't be spawned and leaves the
 * client "start failed"; `stop()` throws unless the client is running; the state goes
 * Starting → Running, and back to Stopped when the server exits; `initializationOptions` may be
 * a function, called at each (re)start. The fake Python extension has the shape of
 * ms-python.python's exports; the fake `execFile` answers the probe for remask.
 */
import assert from "node:assert/strict";
import Module from "node:module";
import { afterEach, beforeEach, mock, test } from "node:test";

import { IDLE, STALE_MS } from "../status";

const State = { Stopped: 1, Running: 2, Starting: 3, StartFailed: 4 } as const;

type Listener<T> = (e: T) => void;

/** How the next fake client's start() ends: up, a spawn that failed, or held until resolved. */
let nextStart: "ok" | "enoent" | "hold" = "ok";
let clients: FakeClient[] = [];

class FakeClient {
  state: number = State.Stopped;
  notifications: { method: string; params: unknown }[] = [];
  handlers = new Map<string, (p: unknown) => void>();
  stateListeners: Listener<{ oldState: number; newState: number }>[] = [];
  release: () => void = () => undefined;
  private started: Promise<void> | undefined;

  constructor(
    readonly id: string,
    readonly name: string,
    readonly serverOptions: { command: string; args: string[] },
    readonly clientOptions: { documentSelector: unknown; initializationOptions: unknown },
  ) {
    clients.push(this);
  }

  /** What the server got in `initialize`. */
  initOptions: unknown;

  onNotification(method: string, handler: (p: unknown) => void): void {
    this.handlers.set(method, handler);
  }

  onDidChangeState(listener: Listener<{ oldState: number; newState: number }>): void {
    this.stateListeners.push(listener);
  }

  setState(newState: number): void {
    const oldState = this.state;
    this.state = newState;
    this.stateListeners.forEach((l) => l({ oldState, newState }));
  }

  start(): Promise<void> {
    if (this.started !== undefined) {
      return this.started;
    }
    const how = nextStart;
    this.setState(State.Starting);
    this.started = (async () => {
      if (how === "hold") {
        await new Promise<void>((resolve) => (this.release = resolve));
      }
      if (how === "enoent") {
        this.setState(State.StartFailed);
        throw `Launching server using command ${this.serverOptions.command} failed. Error: spawn ${this.serverOptions.command} ENOENT`;
      }
      const init = this.clientOptions.initializationOptions;
      this.initOptions = typeof init === "function" ? init() : init;
      this.setState(State.Running);
    })();
    return this.started;
  }

  /** The server process exited and the client restarts it, as after a crash. */
  async crashAndRestart(): Promise<void> {
    this.setState(State.Stopped);
    this.started = undefined;
    await this.start();
  }

  async stop(): Promise<void> {
    if (this.state !== State.Running) {
      throw new Error(`Client is not running and can't be stopped. It's current state is: ${this.state}`);
    }
    this.setState(State.Stopped);
  }

  isRunning(): boolean {
    return this.state === State.Running;
  }

  async sendNotification(type: { method: string }, params: unknown): Promise<void> {
    assert.equal(this.state, State.Running, "a notification to a server that is not running");
    this.notifications.push({ method: type.method, params });
  }
}

const languageclient = {
  LanguageClient: FakeClient,
  State,
  TransportKind: { stdio: 0 },
  DidChangeConfigurationNotification: { type: { method: "workspace/didChangeConfiguration" } },
};

/** The contributed defaults (package.json) that the tests rely on; `settings` is the user's. */
const defaults: Record<string, unknown> = { "server.command": ["remask", "lsp"] };
let settings: Record<string, unknown> = {};
let errors: string[] = [];
let commands = new Map<string, () => Promise<void>>();
let configListeners: Listener<{ affectsConfiguration(s: string): boolean }>[] = [];
const item = { text: "", tooltip: "", command: "", show() {}, dispose() {} };

let pythonExtension: { activate(): Promise<unknown> } | undefined;
let envListeners: Listener<unknown>[] = [];
/** Interpreters (their words, space-joined) that have remask installed. */
let withRemask = new Set<string>();
let probes: string[] = [];

/** ms-python.python with `path` selected (its 2023+ `environments` API); select() changes it. */
function pythonSelecting(path: string): (next: string) => Promise<void> {
  let active = path;
  const api = {
    environments: {
      getActiveEnvironmentPath: () => ({ id: active, path: active }),
      resolveEnvironment: async (env: { path: string }) => ({
        executable: { uri: { fsPath: env.path } },
      }),
      onDidChangeActiveEnvironmentPath: (l: Listener<unknown>) => {
        envListeners.push(l);
        return { dispose() {} };
      },
    },
  };
  pythonExtension = { activate: async () => api };
  return async (next) => {
    active = next;
    await Promise.all(envListeners.map((l) => l({ id: next, path: next })));
  };
}

const childProcess = {
  execFile(file: string, args: string[], _opts: unknown, done: (e: Error | null) => void) {
    const words = [file, ...args.slice(0, -2)].join(" "); // less the probe's `-c CODE`
    probes.push(words);
    setImmediate(() => done(withRemask.has(words) ? null : new Error("No module named remask")));
  },
};

const vscode = {
  StatusBarAlignment: { Left: 1, Right: 2 },
  window: {
    createStatusBarItem: () => item,
    showErrorMessage: async (m: string) => void errors.push(m),
  },
  commands: {
    registerCommand: (id: string, fn: () => Promise<void>) => (commands.set(id, fn), { dispose() {} }),
  },
  extensions: {
    getExtension: (id: string) => (id === "ms-python.python" ? pythonExtension : undefined),
  },
  workspace: {
    workspaceFolders: [{ uri: { fsPath: "/project" } }],
    getConfiguration: () => ({
      get: (key: string) => (key in settings ? settings[key] : defaults[key]),
      inspect: (key: string) => ({ defaultValue: defaults[key], globalValue: settings[key] }),
    }),
    onDidChangeConfiguration: (l: Listener<{ affectsConfiguration(s: string): boolean }>) => {
      configListeners.push(l);
      return { dispose() {} };
    },
  },
};

const stubs: Record<string, unknown> = {
  vscode,
  "vscode-languageclient/node": languageclient,
  "node:child_process": childProcess,
};
const load = (Module as unknown as { _load: (r: string, ...rest: unknown[]) => unknown })._load;
(Module as unknown as { _load: unknown })._load = (request: string, ...rest: unknown[]) =>
  request in stubs ? stubs[request] : load(request, ...rest);

type Extension = typeof import("../extension");

/** A fresh copy of extension.ts (its module state included), activated. */
async function activate(): Promise<Extension> {
  delete require.cache[require.resolve("../extension")];
  const ext = require("../extension") as Extension;
  await ext.activate({ subscriptions: [] } as never);
  return ext;
}

/** The user changes settings under `remask.`; resolves when the extension has dealt with it. */
async function change(values: Record<string, unknown>): Promise<void> {
  Object.assign(settings, values);
  const keys = Object.keys(values).map((k) => `remask.${k}`);
  const e = { affectsConfiguration: (s: string) => keys.some((k) => k === s || k.startsWith(`${s}.`)) };
  await Promise.all(configListeners.map((l) => l(e)));
}

const running = () => clients.filter((c) => c.isRunning());

let ext: Extension | undefined;

beforeEach(() => {
  nextStart = "ok";
  clients = [];
  settings = { spanCap: 600 };
  errors = [];
  commands = new Map();
  configListeners = [];
  ext = undefined;
  pythonExtension = undefined;
  envListeners = [];
  withRemask = new Set();
  probes = [];
});

afterEach(async () => {
  mock.timers.reset();
  await ext?.deactivate();
});

test("remask not on PATH: one message that says what to do", async () => {
  nextStart = "enoent";
  ext = await activate();
  assert.equal(errors.length, 1);
  assert.match(errors[0], /`remask` was not found/);
  assert.match(errors[0], /pip install remask/);
  assert.match(errors[0], /remask\.server\.command/);
  assert.equal(item.text, "$(error) remask");
});

test("restart after a failed start starts the server (remask installed meanwhile)", async () => {
  nextStart = "enoent";
  ext = await activate();
  nextStart = "ok";
  await commands.get("remask.restart")!();
  assert.equal(clients.length, 2);
  assert.deepEqual(running(), [clients[1]]);
  assert.deepEqual(item, { ...item, ...IDLE });
});

test("fixing remask.server.command after a failed start starts the new command", async () => {
  nextStart = "enoent";
  ext = await activate();
  nextStart = "ok";
  await change({ "server.command": ["/venv/bin/python", "-m", "remask.cli", "lsp"] });
  assert.equal(running().length, 1);
  assert.equal(running()[0].serverOptions.command, "/venv/bin/python");
});

test("two restarts at once leave one server running", async () => {
  ext = await activate();
  const restart = commands.get("remask.restart")!;
  await Promise.all([restart(), restart(), change({ "server.command": ["remask", "lsp", "-v"] })]);
  assert.equal(running().length, 1);
  assert.equal(running()[0], clients[clients.length - 1]);
});

test("a server restarted after a crash starts with the settings as they are now", async () => {
  ext = await activate();
  const [c] = clients;
  assert.deepEqual((c.initOptions as { remask: unknown }).remask, { spanCap: 600 });
  await change({ spanCap: 80, kinds: ["repair"] });
  await c.crashAndRestart();
  assert.deepEqual((c.initOptions as { remask: unknown }).remask, { spanCap: 80, kinds: ["repair"] });
});

test("a setting changed while the server starts reaches it", async () => {
  nextStart = "hold";
  const activating = activate();
  while (clients.length === 0) {
    await new Promise((r) => setImmediate(r));
  }
  const changing = change({ spanCap: 80 });
  clients[0].release();
  ext = await activating;
  await changing;
  const sent = clients[0].notifications.map((n) => n.params);
  const init = clients[0].initOptions as { remask: { spanCap: number } };
  assert.ok(init.remask.spanCap === 80 || sent.length > 0, "the change was dropped");
  if (sent.length > 0) {
    assert.deepEqual(sent.at(-1), { settings: { remask: { spanCap: 80 } } });
  }
});

test("Python files, unsaved Python documents and the config files a move edits are synced", async () => {
  ext = await activate();
  assert.deepEqual(clients[0].clientOptions.documentSelector, [
    { scheme: "file", language: "python" },
    { scheme: "untitled", language: "python" },
    {
      scheme: "file",
      pattern: "**/{pyproject.toml,setup.cfg,tox.ini,pytest.ini,mypy.ini,.coveragerc,.flake8}",
    },
    { scheme: "file", pattern: "**/*.{rst,md}" },
  ]);
});

test("a step left masked (its job cancelled as stale) does not spin forever", async () => {
  mock.timers.enable({ apis: ["setTimeout"] });
  ext = await activate();
  const step = clients[0].handlers.get("remask/denoiseStep")!;
  step({ uri: "file:///a.py", version: 3, kind: "fill", step: 2, text: "x ░", masked: 1 });
  assert.match(item.text, /step 2, 1 masked/);
  mock.timers.tick(STALE_MS - 1);
  assert.match(item.text, /step 2, 1 masked/); // still working, as far as anyone can tell
  mock.timers.tick(1);
  assert.equal(item.text, IDLE.text);
});

test("a server that stops says so in the status bar, and is back to idle once restarted", async () => {
  ext = await activate();
  const [c] = clients;
  c.handlers.get("remask/denoiseStep")!({
    uri: "file:///a.py", version: 3, kind: "fill", step: 2, text: "x ░", masked: 1,
  });
  c.setState(State.Stopped); // crashed, and vscode-languageclient gave up restarting it
  assert.equal(item.text, "$(error) remask");
  assert.match(item.tooltip, /stopped \(click to restart\)/);
  await commands.get("remask.restart")!();
  assert.equal(item.text, IDLE.text);
});

const SERVER_MODULE = ["-m", "remask.cli", "lsp"];

test("the interpreter selected in the Python extension runs the server when it has remask", async () => {
  pythonSelecting("/project/.venv/bin/python");
  withRemask.add("/project/.venv/bin/python");
  ext = await activate();
  assert.deepEqual(probes, ["/project/.venv/bin/python"]);
  const { command, args } = running()[0].serverOptions;
  assert.deepEqual([command, ...args], ["/project/.venv/bin/python", ...SERVER_MODULE]);
});

test("an interpreter without remask, or a Python extension that fails, leaves `remask lsp`", async () => {
  pythonSelecting("/project/.venv/bin/python"); // remask installed apart (pipx), not in it
  ext = await activate();
  assert.equal(running()[0].serverOptions.command, "remask");
  await ext.deactivate();
  pythonExtension = { activate: async () => Promise.reject(new Error("activation failed")) };
  ext = await activate();
  assert.equal(running()[0].serverOptions.command, "remask");
  assert.deepEqual(errors, []);
});

test("remask.server.command, where the user set it, wins over the interpreter", async () => {
  pythonSelecting("/project/.venv/bin/python");
  withRemask.add("/project/.venv/bin/python");
  settings["server.command"] = ["remask", "lsp"]; // set, even if to the default
  ext = await activate();
  assert.deepEqual(probes, []);
  assert.equal(running()[0].serverOptions.command, "remask");
});

test("the Python extension's older API: its execution command runs the module", async () => {
  const conda = ["conda", "run", "-n", "work", "python"];
  pythonExtension = {
    activate: async () => ({ settings: { getExecutionDetails: () => ({ execCommand: conda }) } }),
  };
  withRemask.add(conda.join(" "));
  ext = await activate();
  const { command, args } = running()[0].serverOptions;
  assert.deepEqual([command, ...args], [...conda, ...SERVER_MODULE]);
});

test("selecting another interpreter restarts the server on it, and only then", async () => {
  const select = pythonSelecting("/a/bin/python");
  withRemask.add("/a/bin/python").add("/b/bin/python");
  ext = await activate();
  await select("/b/bin/python");
  assert.equal(running().length, 1);
  assert.equal(running()[0].serverOptions.command, "/b/bin/python");
  await select("/b/bin/python"); // the same one again (the extension reports it twice)
  assert.equal(clients.length, 2);
  await select("/c/bin/python"); // no remask there: back to the one on PATH
  assert.deepEqual(running().map((c) => c.serverOptions.command), ["remask"]);
});
