import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

import { ConfigReader, SERVER_KEYS, serverCommand, serverSettings } from "../settings";

/** A configuration like VS Code's: a flat map of keys below `remask.`. */
function config(values: Record<string, unknown>): ConfigReader {
  return { get: <T>(key: string) => values[key] as T | undefined };
}

const manifest = JSON.parse(readFileSync(join(__dirname, "..", "..", "package.json"), "utf8"));
const properties: Record<string, { default: unknown }> = manifest.contributes.configuration.properties;

test("every server setting is contributed, and only server.* stays on the client", () => {
  const contributed = Object.keys(properties).map((k) => k.replace(/^remask\./, ""));
  const clientOnly = contributed.filter((k) => !(SERVER_KEYS as readonly string[]).includes(k));
  assert.deepEqual(clientOnly, ["server.command"]);
  assert.deepEqual(contributed.filter((k) => k !== "server.command").sort(), [...SERVER_KEYS].sort());
});

test("the contributed defaults reach the server unchanged and nothing client-side leaks", () => {
  const defaults = Object.fromEntries(
    Object.entries(properties).map(([k, v]) => [k.replace(/^remask\./, ""), v.default]),
  );
  const sent = serverSettings(config(defaults));
  assert.deepEqual(sent, {
    model: null,
    debounceMs: 50,
    commitThreshold: 0.9,
    lineCommitThreshold: 0.5,
    spanCap: 600,
    candidates: 1,
    holeSamples: 12,
    kinds: ["repair", "rename", "signature", "hole", "dangling"],
    progressDelayMs: 200,
  });
});

test("an empty model path means the bundled model; unset keys are left to the server", () => {
  assert.deepEqual(serverSettings(config({ model: "", spanCap: 80 })), { model: null, spanCap: 80 });
  assert.deepEqual(serverSettings(config({ model: "/m" })), { model: "/m" });
});

test("values pass through as given: the server validates them and reports problems", () => {
  assert.deepEqual(serverSettings(config({ candidates: 99 })), { candidates: 99 });
});

test("the server command splits into the program and its arguments", () => {
  assert.deepEqual(serverCommand(config({ "server.command": ["remask", "lsp", "--model", "/m"] })), {
    command: "remask",
    args: ["lsp", "--model", "/m"],
  });
});

test("a bad server command is one clear error, not a crash later", () => {
  for (const bad of [undefined, [], "remask lsp", ["remask", 3], [""]]) {
    assert.throws(() => serverCommand(config({ "server.command": bad })), /non-empty list of strings/);
  }
});
