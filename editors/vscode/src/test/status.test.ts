import assert from "node:assert/strict";
import { test } from "node:test";

import { DenoiseStep, isDenoiseStep, preview, stepView } from "../status";

const STEP: DenoiseStep = {
  uri: "file:///a.py",
  version: 7,
  kind: "fill",
  step: 3,
  text: "return w ░░░",
  masked: 3,
};

test("a step in progress shows the kind, step and masked count with a spinner", () => {
  const view = stepView(STEP);
  assert.equal(view.text, "$(loading~spin) remask fill: step 3, 3 masked");
  assert.equal(view.tooltip, "remask fill (version 7): return w ░░░");
});

test("the tooltip says how many candidates are denoised and how many were drawn", () => {
  const view = stepView({ ...STEP, rows: 18, drawn: 12 });
  assert.equal(view.tooltip, "remask fill (version 7, 18 candidates, 12 drawn): return w ░░░");
  assert.equal(stepView({ ...STEP, rows: 1, drawn: 0 }).tooltip, stepView(STEP).tooltip);
});

test("the last step (nothing masked) shows done", () => {
  assert.equal(stepView({ ...STEP, step: 5, masked: 0 }).text, "$(check) remask fill: step 5, done");
});

test("the provisional text is flattened to one line and shortened", () => {
  assert.equal(preview("if x:\n    y()\n"), "if x: y()");
  const long = preview("a".repeat(100), 10);
  assert.equal(long, "aaaaaaaaa…");
  assert.equal([...long].length, 10);
});

test("only well-formed notifications are shown", () => {
  assert.ok(isDenoiseStep(STEP));
  for (const bad of [null, 3, "x", {}, { ...STEP, step: "3" }, { ...STEP, masked: 1.5 }, { ...STEP, uri: undefined }]) {
    assert.equal(isDenoiseStep(bad), false, JSON.stringify(bad));
  }
});
