/**
 * The remask extension: starts `remask lsp` and shows its live denoising in the status bar.
 *
 * Inline completions (LSP 3.18 `textDocument/inlineCompletion`), the quick fixes ("Repair
 * statement", "Fill hole", "Update N uses of the signature", "Rename N references") and the hint
 * diagnostics come through vscode-languageclient's standard features; `$/progress` reports
 * become VS Code progress indicators. What is remask's own: the server command and settings,
 * and the `remask/denoiseStep` notifications, shown step by step in the status bar.
 */
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  LanguageClient,
  TransportKind,
} from "vscode-languageclient/node";

import { serverCommand, serverSettings } from "./settings";
import { IDLE, isDenoiseStep, StatusView, stepView } from "./status";

const SECTION = "remask";
const DENOISE_STEP = "remask/denoiseStep";
const SETTLE_MS = 1500; // how long "done" stays in the status bar before it turns idle

let client: LanguageClient | undefined;
let status: vscode.StatusBarItem;
let idleTimer: NodeJS.Timeout | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 100);
  status.command = "remask.restart";
  status.show();
  context.subscriptions.push(
    status,
    vscode.commands.registerCommand("remask.restart", restart),
    vscode.workspace.onDidChangeConfiguration(onConfigurationChanged),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}

async function start(): Promise<void> {
  const cfg = vscode.workspace.getConfiguration(SECTION);
  try {
    const { command, args } = serverCommand(cfg);
    client = new LanguageClient(
      "remask",
      "remask",
      { command, args, transport: TransportKind.stdio },
      {
        documentSelector: [{ language: "python" }],
        initializationOptions: { [SECTION]: serverSettings(cfg) },
      },
    );
    client.onNotification(DENOISE_STEP, onDenoiseStep);
    show(IDLE);
    await client.start();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    show({ text: "$(error) remask", tooltip: `remask: ${message} (click to restart)` });
    void vscode.window.showErrorMessage(`remask: ${message}`);
  }
}

async function stop(): Promise<void> {
  const old = client;
  client = undefined;
  if (old !== undefined) {
    await old.stop();
  }
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

/** A new server command needs a new server; everything else the running server takes live. */
async function onConfigurationChanged(e: vscode.ConfigurationChangeEvent): Promise<void> {
  if (e.affectsConfiguration(`${SECTION}.server`)) {
    await restart();
  } else if (e.affectsConfiguration(SECTION) && client?.isRunning()) {
    const settings = serverSettings(vscode.workspace.getConfiguration(SECTION));
    await client.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { [SECTION]: settings },
    });
  }
}

function onDenoiseStep(params: unknown): void {
  if (!isDenoiseStep(params)) {
    return;
  }
  clearTimeout(idleTimer);
  show(stepView(params));
  if (params.masked === 0) {
    idleTimer = setTimeout(() => show(IDLE), SETTLE_MS);
  }
}

function show(view: StatusView): void {
  status.text = view.text;
  status.tooltip = view.tooltip;
}
