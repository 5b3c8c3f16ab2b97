/**
 * A delegated task as text a model can act on: who ran it, where it stands, what came back,
 * and the one next step.
 * @module
 */
import {
  type Artifact,
  isInterrupted,
  isTerminal,
  type Part,
  partsText,
  type Task,
} from "../a2a/mod.ts";

/** The artifact that carries a registry agent's file edits as a unified diff. */
const PATCH_ARTIFACT = "changes.patch";
/** Most characters of one data part in a summary; longer data is cut with a note. */
export const MAX_SUMMARY_DATA_CHARS = 20_000;

/**
 * Renders a task for the model that delegated it.
 *
 * The text opens with `task_id`, `agent` and `state` lines (and `status` when the agent said
 * something; data parts of its message follow as JSON blocks), then each artifact under a
 * `## name` heading (proposed changes as a diff block), then `note:` lines, and ends with
 * what to do next: follow a running task with `get_task`, answer an interrupted one with
 * `delegate`, or review a patch that was not applied (`observal delegate diff`, `delegate apply`).
 *
 * @param task the task as the delegation service returns it
 * @returns the summary, without a trailing newline
 *
 * @example
 * ```ts
 * import { summarize } from "./summarize.ts";
 *
 * summarize({
 *   id: "t1",
 *   contextId: "c1",
 *   status: { state: "TASK_STATE_WORKING" },
 *   metadata: {
 *     observal: { target: "urn:air:x:a2a:y", kind: "a2a", depth: 0, chain: [], cwd: "/", createdAt: "" },
 *   },
 * });
 * // "task_id: t1\nagent: urn:air:x:a2a:y (a2a)\nstate: TASK_STATE_WORKING\n\nStill running. ..."
 * ```
 */
export function summarize(task: Task): string {
  const meta = task.metadata.observal;
  const via = meta.harness ? ` via ${meta.harness}` : "";
  const lines = [
    `task_id: ${task.id}`,
    `agent: ${meta.targetName ?? meta.target} (${meta.kind}${via})`,
    `state: ${task.status.state}`,
  ];
  lines.push(...statusLines(task.status.message?.parts ?? []));
  for (const artifact of task.artifacts ?? []) lines.push("", ...artifactLines(artifact, task));
  const notes = meta.notes ?? [];
  if (notes.length > 0) lines.push("", ...notes.map((n) => `note: ${n}`));
  const next = nextStep(task);
  if (next) lines.push("", next);
  return lines.join("\n");
}

function artifactLines(artifact: Artifact, task: Task): string[] {
  const text = partsText(artifact.parts);
  const truncated = artifact.metadata?.truncated === true;
  if (artifact.name === PATCH_ARTIFACT) {
    const path = task.metadata.observal.patchPath;
    const fence = fenceFor(text);
    return [
      path ? `## Proposed changes (${path})` : "## Proposed changes",
      `${fence}diff`,
      text,
      fence,
      // A cut patch cannot be applied from this text; the file on disk is whole.
      ...(truncated ? [`(shortened here${path ? `; the full patch is in ${path}` : ""})`] : []),
    ];
  }
  return [
    `## ${artifact.name ?? artifact.artifactId}`,
    text,
    ...(truncated ? ["(shortened: the agent returned more than this)"] : []),
  ];
}

/** The agent's status message: its text on a `status:` line, each data part as JSON. */
function statusLines(parts: readonly Part[]): string[] {
  const text = partsText(parts.filter((p) => p.data === undefined)).trim();
  const lines = text ? [`status: ${text}`] : [];
  for (const part of parts) {
    if (part.data === undefined) continue;
    const json = JSON.stringify(part.data, null, 2) ?? String(part.data);
    const cut = json.length > MAX_SUMMARY_DATA_CHARS;
    const body = cut ? json.slice(0, MAX_SUMMARY_DATA_CHARS) : json;
    const fence = fenceFor(body);
    lines.push(
      "data:",
      `${fence}json`,
      body,
      fence,
      ...(cut ? [`(shortened: the data is ${json.length} characters)`] : []),
    );
  }
  return lines;
}

/** A backtick fence longer than any backtick run in the text, so the block cannot end early. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return "`".repeat(Math.max(3, longest + 1));
}

function nextStep(task: Task): string | undefined {
  const state = task.status.state;
  if (isInterrupted(state)) {
    const structured = task.status.message?.parts.some((p) => p.data !== undefined);
    return "The agent needs more input. Call delegate again with this task_id and your answer " +
      (structured
        ? "as the message, or as `data` (a JSON object) when it asks for structured input."
        : "as the message.");
  }
  if (!isTerminal(state)) {
    return "Still running. Call get_task with this task_id (optionally with wait_seconds) to " +
      "collect the result.";
  }
  const { patchPath, applied, repository } = task.metadata.observal;
  if (patchPath && applied) {
    const conflicts = applied.conflicts?.length
      ? `, with conflicts left marked in ${applied.conflicts.join(", ")}`
      : "";
    return `The changes were applied to ${repository} at ${applied.at}${conflicts}.`;
  }
  if (patchPath) {
    return "The changes were made in an isolated copy and have NOT been applied. Review them " +
      `with \`observal delegate diff ${task.id}\`; to apply them, run ` +
      `\`observal delegate apply ${task.id}\`.`;
  }
  return undefined;
}
