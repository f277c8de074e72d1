/**
 * The remask extension: starts `remask lsp` and shows its live denoising in the status bar.
 *
 * Inline completions (LSP 3.18 `textDocument/inlineCompletion`), the quick fixes ("Repair
 * statement", "Fill hole", "Update N uses of the signature", "Rename N references") and the hint
 * diagnostics come through vscode-languageclient's standard features; `$/progress` reports
 * become VS Code progress indicators. What is remask's own: the server command and settings,
 * and the `remask/denoiseStep` notifications, shown step by step in the status bar.
 *
 * The server runs as `remask.server.command` where the user set it; else as the module of the
 * interpreter selected in the Python extension when that one has remask; else as `remask lsp`
 * (the setting's default) from PATH.
 */
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  DocumentSelector,
  LanguageClient,
  State,
  TransportKind,
} from "vscode-languageclient/node";

import { hasRemask, interpreter, PYTHON_EXTENSION, PythonApi, SERVER_MODULE } from "./python";
import {
  ConfigReader,
  isSet,
  serverCommand,
  ServerCommand,
  serverSettings,
  startFailure,
} from "./settings";
import { IDLE, idleAfter, isDenoiseStep, StatusView, stepView } from "./status";

const SECTION = "remask";
/** The config files a module move edits, as `remask.diffing.config_files` names them. */
export const CONFIG_NAMES = [
  "pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", "mypy.ini", ".coveragerc", ".flake8",
];
const DENOISE_STEP = "remask/denoiseStep";
/** How long to wait for the Python extension before starting without it. */
const PYTHON_WAIT_MS = 15_000;

/**
 * Python files on disk and unsaved ones. Not every `python` document: a diff's `git:` side, a
 * chat's code block or a virtual file system's copy would each get hints and denoising of
 * their own, on text nobody edits. Then the config files and API docs a module move edits
 * (`remask.diffing.config_files`): the server serves nothing in them, but synced, it computes
 * a move's edit on the buffer and versions it, so an unsaved one is never edited at offsets
 * read from disk.
 */
export const DOCUMENT_SELECTOR: DocumentSelector = [
  { scheme: "file", language: "python" },
  { scheme: "untitled", language: "python" },
  { scheme: "file", pattern: `**/{${CONFIG_NAMES.join(",")}}` },
  { scheme: "file", pattern: "**/*.{rst,md}" },
];

let client: LanguageClient | undefined;
let launched: ServerCommand | undefined; // what the current client runs
let python: PythonApi | undefined; // the Python extension's API, when it is there and works
let status: vscode.StatusBarItem;
let idleTimer: NodeJS.Timeout | undefined;
// start, stop and restart run one after another: two quick restarts (a double click, a
// settings change beside one) would otherwise both start a server and leave one running unseen
let lifecycle: Promise<void> = Promise.resolve();

function serially(work: () => Promise<void>): Promise<void> {
  lifecycle = lifecycle.then(work, work);
  return lifecycle;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = "remask.restart";
  status.show();
  context.subscriptions.push(
    status,
    vscode.commands.registerCommand("remask.restart", restart),
    vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
  );
  python = await pythonApi();
  const changed = python?.environments?.onDidChangeActiveEnvironmentPath?.(onInterpreterChanged);
  if (changed !== undefined) {
    context.subscriptions.push(changed);
  }
  await serially(start);
}

export async function deactivate(): Promise<void> {
  clearTimeout(idleTimer);
  await serially(stop);
}

async function start(): Promise<void> {
  let command: string;
  let args: string[];
  try {
    ({ command, args } = await serverFor(vscode.workspace.getConfiguration(SECTION)));
  } catch (e) {
    return failed(e instanceof Error ? e.message : String(e));
  }
  launched = { command, args };
  const ours = new LanguageClient(
    "remask",
    "remask",
    { command, args, transport: TransportKind.stdio },
    {
      documentSelector: DOCUMENT_SELECTOR,
      // read when the server is (re)started, so one restarted after a crash gets the settings
      // as they are now, not as they were when the extension started
      initializationOptions: () => ({
        [SECTION]: serverSettings(vscode.workspace.getConfiguration(SECTION)),
      }),
    },
  );
  client = ours;
  ours.onNotification(DENOISE_STEP, onDenoiseStep);
  ours.onDidChangeState(({ newState }) => {
    // The server exited (a crash: vscode-languageclient restarts it a few times, then gives
    // up); stop() below detaches first. Without this the status bar says idle, or shows a
    // step forever, over a dead server.
    if (client !== ours) {
      return;
    }
    clearTimeout(idleTimer);
    if (newState === State.Running) {
      show(IDLE);
    } else if (newState === State.Stopped || newState === State.StartFailed) {
      show({ text: "$(error) remask", tooltip: "remask: the server stopped (click to restart)" });
    }
  });
  show(IDLE);
  try {
    await ours.start();
  } catch (e) {
    if (client === ours) {
      failed(startFailure(command, e));
    }
  }
}

function failed(message: string): void {
  show({ text: "$(error) remask", tooltip: `remask: ${message} (click to restart)` });
  void vscode.window.showErrorMessage(`remask: ${message}`);
}

async function stop(): Promise<void> {
  const old = client;
  client = undefined;
  if (old === undefined) {
    return;
  }
  if (old.state === State.Starting) {
    // restarting itself after a crash: it can only be stopped once it is up (or failed)
    await old.start().catch(() => undefined);
  }
  // a client that failed to start (or stopped) has no server, and its stop() would throw
  if (old.isRunning()) {
    await old.stop().catch(() => undefined); // it still ends the server process
  }
}

function restart(): Promise<void> {
  return serially(async () => {
    await stop();
    await start();
  });
}

/** The Python extension's API; undefined when it is not installed or fails to activate. */
async function pythonApi(): Promise<PythonApi | undefined> {
  const ext = vscode.extensions.getExtension<PythonApi>(PYTHON_EXTENSION);
  return ext === undefined ? undefined : within(Promise.resolve(ext.activate()));
}

/** See the module's docstring; throws (with a message to show) on a bad setting. */
async function serverFor(cfg: ConfigReader): Promise<ServerCommand> {
  if (!isSet(cfg, "server.command")) {
    const words = await within(selectedPython());
    if (words !== undefined) {
      const [command, ...args] = words;
      return { command, args: [...args, ...SERVER_MODULE] };
    }
  }
  return serverCommand(cfg);
}

/** The interpreter selected in the Python extension when it can run the server. */
async function selectedPython(): Promise<string[] | undefined> {
  const words = await interpreter(python, vscode.workspace.workspaceFolders?.[0]?.uri);
  return words !== undefined && (await hasRemask(words)) ? words : undefined;
}

/** `work`'s result; undefined when it fails or takes longer than the Python extension may. */
async function within<T>(work: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), PYTHON_WAIT_MS);
  });
  try {
    return await Promise.race([work, late]);
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

/** Another interpreter selected: restart the server on it, if that changes what runs. */
async function onInterpreterChanged(): Promise<void> {
  await serially(async () => {
    const next = await serverFor(vscode.workspace.getConfiguration(SECTION)).catch(() => undefined);
    if (JSON.stringify(next) !== JSON.stringify(launched)) {
      await stop();
      await start();
    }
  });
}

/** A new server command needs a new server; everything else the running server takes live. */
async function onConfigurationChanged(e: vscode.ConfigurationChangeEvent): Promise<void> {
  if (e.affectsConfiguration(`${SECTION}.server`)) {
    await restart();
  } else if (e.affectsConfiguration(SECTION)) {
    // after a start under way, so a change made while the server starts is not lost
    await serially(async () => {
      if (client?.isRunning()) {
        const settings = serverSettings(vscode.workspace.getConfiguration(SECTION));
        await client.sendNotification(DidChangeConfigurationNotification.type, {
          settings: { [SECTION]: settings },
        });
      }
    });
  }
}

function onDenoiseStep(params: unknown): void {
  if (!isDenoiseStep(params)) {
    return;
  }
  clearTimeout(idleTimer);
  show(stepView(params));
  // a job cancelled as stale (the user typed on) sends no last step: idle once steps stop
  idleTimer = setTimeout(() => show(IDLE), idleAfter(params));
}

function show(view: StatusView): void {
  status.text = view.text;
  status.tooltip = view.tooltip;
}
