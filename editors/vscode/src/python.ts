/**
 * The interpreter the Python extension (`ms-python.python`) has selected, to start the server
 * with: remask is usually installed in the project's environment, which need not be on the PATH
 * VS Code was started with. Only the parts of the extension's API used here are typed, so this
 * module needs neither VS Code nor the Python extension to be tested.
 */
import { execFile } from "node:child_process";

export const PYTHON_EXTENSION = "ms-python.python";

/** The server as a module of the interpreter (`remask lsp` is the same `remask.cli` main). */
export const SERVER_MODULE = ["-m", "remask.cli", "lsp"];

/** Cheap: `remask.cli` imports no model code. */
const PROBE = "import remask.cli";
const PROBE_MS = 20_000;

interface EnvironmentPath {
  id: string;
  path: string;
}

interface Disposable {
  dispose(): unknown;
}

/** The Python extension's exports: `environments` (2023 on), else the older `settings`. */
export interface PythonApi {
  environments?: {
    getActiveEnvironmentPath(resource?: unknown): EnvironmentPath;
    resolveEnvironment(
      env: EnvironmentPath | string,
    ): Promise<{ executable: { uri?: { fsPath: string } } } | undefined>;
    onDidChangeActiveEnvironmentPath?(listener: (e: unknown) => unknown): Disposable;
  };
  settings?: {
    getExecutionDetails?(resource?: unknown): { execCommand: string[] | undefined };
  };
}

/**
 * The words that run the selected interpreter (`["/venv/bin/python"]`, or with the older API
 * e.g. `["conda", "run", "-n", "env", "python"]`); undefined when none is selected.
 */
export async function interpreter(
  api: PythonApi | undefined,
  resource?: unknown,
): Promise<string[] | undefined> {
  const envs = api?.environments;
  if (envs !== undefined) {
    const env = await envs.resolveEnvironment(envs.getActiveEnvironmentPath(resource));
    const exe = env?.executable.uri?.fsPath;
    if (exe) {
      return [exe];
    }
  }
  const words = api?.settings?.getExecutionDetails?.(resource).execCommand;
  const usable = Array.isArray(words) && words.length > 0;
  return usable && words.every((w) => typeof w === "string" && w !== "") ? words : undefined;
}

/**
 * Whether the interpreter can run the server. A project's environment without remask (remask
 * installed apart, with pipx) would otherwise start a server that dies at once, where the
 * `remask` on PATH would have worked.
 */
export function hasRemask(words: string[]): Promise<boolean> {
  const [command, ...args] = words;
  return new Promise((resolve) => {
    execFile(command, [...args, "-c", PROBE], { timeout: PROBE_MS }, (error) => resolve(!error));
  });
}
