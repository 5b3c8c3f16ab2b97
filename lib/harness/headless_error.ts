/**
 * The one line that says why a headless run failed, in the harness's own words: its
 * error report (a JSON result, an error event, an assistant turn that ended in an API
 * error) or, when it printed none, its last telling line on stderr. A failed delegation
 * shows this line, so the caller learns "the model does not exist" rather than only that
 * the child gave no answer.
 * @module
 */
import type { HeadlessOutput, HeadlessResult } from "./headless.ts";
import { stripAnsi } from "./headless.ts";
import type { HarnessKey } from "./registry.ts";
import { isObject, jsonLines } from "./_headless_json.ts";

/** The longest line returned; a harness may put a whole response body in its message. */
export const MAX_ERROR_LINE = 400;

function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

/** Error reports some harnesses print as events without the adapter turning them into an error. */
function reportedInEvents(harness: HarnessKey, stdout: string): string | undefined {
  const events = jsonLines(stdout);
  switch (harness) {
    case "copilot-cli": {
      const failed = events.findLast((e) => e.type === "session.error");
      return isObject(failed?.data) ? str(failed.data.message) : undefined;
    }
    case "codex": {
      const failed = events.findLast((e) => e.type === "turn.failed" || e.type === "error");
      return str(isObject(failed?.error) ? failed.error.message : undefined) ??
        str(failed?.message);
    }
    default:
      return undefined;
  }
}

/** Lines every run of some harness prints, which say nothing about a failure. */
const NOISE = [
  /^at\s/, // stack frames
  /^[{}[\]()]+[,;]?$/,
  /256-color support not detected/i,
  /^Ripgrep is not available/i,
  /^Reading additional input from stdin/i,
  /^Loaded cached credentials/i,
];
const TELLING =
  /error|fail|denied|refus|not found|no such|invalid|cannot|can't|unable|unknown|missing|not allowed|exceeded|timed? ?out/i;

/** The last line of `text` that tells what went wrong, or else its last meaningful line. */
function lastTellingLine(text: string): string | undefined {
  const lines = stripAnsi(text).split("\n").map((l) => l.trim())
    .filter((l) => l !== "" && !NOISE.some((n) => n.test(l)));
  return lines.findLast((l) => TELLING.test(l)) ?? lines.at(-1);
}

/** What a JSON error body says: its message, with its code, status or type when they add. */
function unwrapJson(text: string): string {
  const at = text.indexOf("{");
  if (at < 0) return text;
  let body: unknown;
  try {
    body = JSON.parse(text.slice(at));
  } catch {
    return text;
  }
  if (!isObject(body)) return text;
  const err = isObject(body.error) ? body.error : body;
  const inner = str(err.message) ?? str(body.error);
  if (!inner) return text;
  const message = unwrapJson(inner.trim());
  const tags = [err.code, err.status, err.type]
    .filter((t) => typeof t === "number" || str(t))
    .map(String)
    .filter((t) => !message.includes(t));
  return tags.length ? `${message} (${tags.join(" ")})` : message;
}

function oneLine(text: string): string {
  const line = stripAnsi(text).replace(/\s+/g, " ").trim();
  return line.length > MAX_ERROR_LINE ? `${line.slice(0, MAX_ERROR_LINE - 1)}…` : line;
}

/**
 * The most useful one-line account of a failed or empty headless run: the harness's own
 * error report first, then its last telling line on stderr. JSON error bodies inside a
 * message are opened up to their message.
 *
 * @param harness the harness that ran
 * @param output what it printed, and its exit code
 * @param result what its adapter read from that output
 * @returns one line without a final period added, or undefined when it said nothing useful
 *
 * @example
 * ```ts
 * headlessErrorLine("codex", {
 *   stdout: '{"type":"turn.failed","error":{"message":"{\\"error\\":{\\"message\\":\\"Quota exceeded\\"}}"}}\n',
 *   stderr: "",
 *   exitCode: 1,
 * }, { text: "" }); // "Quota exceeded"
 * ```
 */
export function headlessErrorLine(
  harness: HarnessKey,
  output: Pick<HeadlessOutput, "stdout" | "stderr" | "exitCode">,
  result: HeadlessResult,
): string | undefined {
  const said = str(result.error) ?? reportedInEvents(harness, output.stdout) ??
    lastTellingLine(output.stderr);
  if (!said) return undefined;
  const line = oneLine(unwrapJson(said.trim()));
  return line === "" ? undefined : line;
}
