/**
 * A delegated task as text a model can act on: who ran it, where it stands, what came back,
 * and the one next step.
 * @module
 */
import { type Artifact, isInterrupted, isTerminal, partsText, type Task } from "../a2a/mod.ts";

/** The artifact that carries a registry agent's file edits as a unified diff. */
const PATCH_ARTIFACT = "changes.patch";

/**
 * Renders a task for the model that delegated it.
 *
 * The text opens with `task_id`, `agent` and `state` lines (and `status` when the agent said
 * something), then each artifact under a `## name` heading (proposed changes as a diff
 * block), then `note:` lines, and ends with what to do next: follow a running task with
 * `get_task`, answer an interrupted one with `delegate`, or review a patch that was not
 * applied.
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
  const status = task.status.message ? partsText(task.status.message.parts).trim() : "";
  if (status) lines.push(`status: ${status}`);
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

/** A backtick fence longer than any backtick run in the text, so the block cannot end early. */
function fenceFor(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  return "`".repeat(Math.max(3, longest + 1));
}

function nextStep(task: Task): string | undefined {
  const state = task.status.state;
  if (isInterrupted(state)) {
    return "The agent needs more input. Call delegate again with this task_id and your answer " +
      "as the message.";
  }
  if (!isTerminal(state)) {
    return "Still running. Call get_task with this task_id (optionally with wait_seconds) to " +
      "collect the result.";
  }
  const path = task.metadata.observal.patchPath;
  if (path) {
    return "The changes were made in an isolated copy and have NOT been applied. Review them; " +
      `to apply them, run \`git apply ${path}\` in the repository.`;
  }
  return undefined;
}
