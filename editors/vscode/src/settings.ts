/**
 * VS Code's `remask.*` settings → what the server reads.
 *
 * The server settings keep the server's own camelCase names (lsp/settings.py), so the mapping
 * is a selection, not a translation: the client-only keys (`server.*`) stay here, and the
 * server validates the values itself (a bad one is reported and the old value kept).
 */

/** The settings the server understands, in the server's spelling. */
export const SERVER_KEYS = [
  "model",
  "debounceMs",
  "commitThreshold",
  "lineCommitThreshold",
  "spanCap",
  "candidates",
  "holeSamples",
  "kinds",
  "progressDelayMs",
] as const;

export type ServerKey = (typeof SERVER_KEYS)[number];

/** The part of `vscode.WorkspaceConfiguration` used here, so this module needs no VS Code. */
export interface ConfigReader {
  get<T>(key: string): T | undefined;
  inspect?<T>(
    key: string,
  ): { globalValue?: T; workspaceValue?: T; workspaceFolderValue?: T } | undefined;
}

/** Whether the user set `key` (user, workspace or folder settings), not just left its default. */
export function isSet(cfg: ConfigReader, key: string): boolean {
  const where = cfg.inspect?.(key);
  return [where?.globalValue, where?.workspaceValue, where?.workspaceFolderValue].some(
    (v) => v !== undefined,
  );
}

/**
 * The whole section, sent as `{remask: …}` in initializationOptions and on each change: the
 * server takes a change as the new section, so every key goes each time.
 */
export function serverSettings(cfg: ConfigReader): Partial<Record<ServerKey, unknown>> {
  const out: Partial<Record<ServerKey, unknown>> = {};
  for (const key of SERVER_KEYS) {
    const value = cfg.get<unknown>(key);
    if (value !== undefined) {
      out[key] = key === "model" && value === "" ? null : value;
    }
  }
  return out;
}

export interface ServerCommand {
  command: string;
  args: string[];
}

/** `remask.server.command` as an executable and its arguments; throws with a message to show. */
export function serverCommand(cfg: ConfigReader): ServerCommand {
  const raw = cfg.get<unknown>("server.command");
  const words = Array.isArray(raw) ? raw : [];
  if (words.length === 0 || !words.every((w) => typeof w === "string" && w !== "")) {
    throw new Error(
      `remask.server.command must be a non-empty list of strings, got ${JSON.stringify(raw)}`,
    );
  }
  const [command, ...args] = words as string[];
  return { command, args };
}

/**
 * The line to show when the server did not start. vscode-languageclient rejects with a bare
 * string such as "Launching server using command remask failed. Error: spawn remask ENOENT",
 * which says nothing of what to do about it.
 */
export function startFailure(command: string, error: unknown): string {
  const detail = error instanceof Error ? error.message : String(error);
  if (/\bENOENT\b/.test(detail) || (error as { code?: unknown } | null)?.code === "ENOENT") {
    return (
      `cannot start the language server: \`${command}\` was not found. Install remask ` +
      `(\`pip install remask\`) where VS Code's PATH finds it or in the Python interpreter ` +
      `selected in VS Code, or set remask.server.command ` +
      `to its full path (e.g. ["/path/to/venv/bin/python", "-m", "remask.cli", "lsp"])`
    );
  }
  return `cannot start the language server (${detail}); its output is in Output › remask`;
}
