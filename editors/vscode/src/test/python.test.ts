/** python.ts: reading ms-python.python's exports, and the probe run for real. */
import assert from "node:assert/strict";
import { test } from "node:test";

import { hasRemask, interpreter, PythonApi } from "../python";

const envPath = (path: string) => ({ id: path, path });

test("the environments API gives the resolved executable, for the resource asked", async () => {
  const asked: unknown[] = [];
  const api: PythonApi = {
    environments: {
      getActiveEnvironmentPath: (resource) => (asked.push(resource), envPath("/envs/work")),
      resolveEnvironment: async (env) => ({
        executable: { uri: { fsPath: `${(env as { path: string }).path}/bin/python` } },
      }),
    },
  };
  assert.deepEqual(await interpreter(api, "/project"), ["/envs/work/bin/python"]);
  assert.deepEqual(asked, ["/project"]);
});

test("an environment that does not resolve falls to the older execution details", async () => {
  const api: PythonApi = {
    environments: {
      getActiveEnvironmentPath: () => envPath("/gone"),
      resolveEnvironment: async () => undefined,
    },
    settings: { getExecutionDetails: () => ({ execCommand: ["/usr/bin/python3"] }) },
  };
  assert.deepEqual(await interpreter(api), ["/usr/bin/python3"]);
});

test("no interpreter selected, or an unusable command: none", async () => {
  assert.equal(await interpreter(undefined), undefined);
  const details = (execCommand: string[] | undefined): PythonApi => ({
    settings: { getExecutionDetails: () => ({ execCommand }) },
  });
  assert.equal(await interpreter(details(undefined)), undefined);
  assert.equal(await interpreter(details([])), undefined);
  assert.equal(await interpreter(details(["python", ""])), undefined);
});

test("the probe: an interpreter that is not there has no remask; one that exits 0 has", async () => {
  assert.equal(await hasRemask(["/nonexistent/bin/python"]), false);
  // sh -c 'exit 0' sh -c CODE: a stand-in that succeeds whatever the probe's code is
  assert.equal(await hasRemask(["sh", "-c", "exit 0", "sh"]), true);
  assert.equal(await hasRemask(["sh", "-c", "exit 1", "sh"]), false);
});
