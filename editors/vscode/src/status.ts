/**
 * The status bar's text for the server's live `remask/denoiseStep` notifications.
 *
 * Each notification carries the provisional text of the span being denoised, how many
 * positions are still masked and how many candidates are denoised side by side (some drawn at
 * a temperature); the status bar shows the step, the tooltip the candidates and the text so far.
 */

export interface DenoiseStep {
  uri: string;
  version: number;
  kind: string;
  step: number;
  text: string;
  masked: number;
  rows?: number; // absent from servers before rows were reported
  drawn?: number;
}

export interface StatusView {
  text: string;
  tooltip: string;
}

export const IDLE: StatusView = { text: "$(sparkle) remask", tooltip: "remask: idle" };
export const SETTLE_MS = 1500; // how long "done" stays in the status bar before it turns idle
// No step for this long with positions still masked: the job was cancelled as stale (the user
// typed on), and a cancelled job sends no last step; steps come every 40 ms while it runs.
export const STALE_MS = 5000;
const PREVIEW = 60; // characters of provisional text in the tooltip's summary line

/** Whether a notification's params have the shape the server sends (ignore anything else). */
export function isDenoiseStep(p: unknown): p is DenoiseStep {
  if (typeof p !== "object" || p === null) {
    return false;
  }
  const r = p as Record<string, unknown>;
  return (
    typeof r.uri === "string" &&
    typeof r.kind === "string" &&
    typeof r.text === "string" &&
    [r.version, r.step, r.masked].every((n) => Number.isInteger(n))
  );
}

/** What the status bar shows for one step; done once nothing is masked. */
export function stepView(p: DenoiseStep): StatusView {
  const icon = p.masked > 0 ? "$(loading~spin)" : "$(check)";
  const state = p.masked > 0 ? `${p.masked} masked` : "done";
  const rows = (p.rows ?? 0) > 1 ? `, ${p.rows} candidates, ${p.drawn ?? 0} drawn` : "";
  return {
    text: `${icon} remask ${p.kind}: step ${p.step}, ${state}`,
    tooltip: `remask ${p.kind} (version ${p.version}${rows}): ${preview(p.text)}`,
  };
}

/** The provisional text on one line, shortened; masked positions stay visible as ░. */
export function preview(text: string, limit: number = PREVIEW): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= limit ? flat : `${flat.slice(0, limit - 1)}…`;
}

/** How long a step stays shown when no other follows: a little once done, longer otherwise. */
export function idleAfter(p: DenoiseStep): number {
  return p.masked === 0 ? SETTLE_MS : STALE_MS;
}
