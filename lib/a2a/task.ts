/**
 * The A2A v1.0 task model as zod schemas: every delegation is one of these Tasks, stored
 * and returned in the v1.0 JSON form (`TASK_STATE_*`, `ROLE_*`, parts keyed by kind).
 * observal's own bookkeeping lives under `metadata.observal`.
 * @module
 */
import { z } from "zod";

export const TASK_STATES = [
  "TASK_STATE_SUBMITTED",
  "TASK_STATE_WORKING",
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
] as const;
export const TaskStateSchema = z.enum(TASK_STATES);
export type TaskState = z.infer<typeof TaskStateSchema>;

const TERMINAL: ReadonlySet<TaskState> = new Set([
  "TASK_STATE_COMPLETED",
  "TASK_STATE_FAILED",
  "TASK_STATE_CANCELED",
  "TASK_STATE_REJECTED",
]);
const INTERRUPTED: ReadonlySet<TaskState> = new Set([
  "TASK_STATE_INPUT_REQUIRED",
  "TASK_STATE_AUTH_REQUIRED",
]);

/** Settled for good: completed, failed, canceled or rejected. */
export function isTerminal(state: TaskState): boolean {
  return TERMINAL.has(state);
}

/** Waiting on the caller (input or auth required); a reply can resume it. */
export function isInterrupted(state: TaskState): boolean {
  return INTERRUPTED.has(state);
}

/** The worker has nothing left to do: terminal or interrupted. */
export function isFinal(state: TaskState): boolean {
  return TERMINAL.has(state) || INTERRUPTED.has(state);
}

/** One part of a message or artifact: exactly one of text, data, url or raw. */
export const PartSchema = z.looseObject({
  text: z.string().optional(),
  data: z.unknown().optional(),
  url: z.string().optional(),
  raw: z.string().optional(),
  filename: z.string().optional(),
  mediaType: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type Part = z.infer<typeof PartSchema>;

export const RoleSchema = z.enum(["ROLE_USER", "ROLE_AGENT"]);

export const MessageSchema = z.looseObject({
  messageId: z.string(),
  role: RoleSchema,
  parts: z.array(PartSchema),
  taskId: z.string().optional(),
  contextId: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type Message = z.infer<typeof MessageSchema>;

export const ArtifactSchema = z.looseObject({
  artifactId: z.string(),
  name: z.string().optional(),
  description: z.string().optional(),
  parts: z.array(PartSchema),
  metadata: z.record(z.string(), z.unknown()).optional(),
});
export type Artifact = z.infer<typeof ArtifactSchema>;

export const TaskStatusSchema = z.looseObject({
  state: TaskStateSchema,
  timestamp: z.string().optional(),
  message: MessageSchema.optional(),
});
export type TaskStatus = z.infer<typeof TaskStatusSchema>;

/** observal's bookkeeping for a delegated task (`metadata.observal`). */
export const ObservalTaskMetaSchema = z.looseObject({
  target: z.string(),
  targetName: z.string().optional(),
  kind: z.enum(["agent", "a2a"]),
  version: z.string().optional(),
  nativeRef: z.string().optional(),
  digest: z.string().optional(),
  parentHarness: z.string().optional(),
  parentAgentId: z.string().optional(),
  parentTaskId: z.string().optional(),
  depth: z.number().int().min(0),
  /** The depth limit in force when the task started; delegations from inside it cannot raise it. */
  maxDepth: z.number().int().min(0).optional(),
  chain: z.array(z.string()),
  cwd: z.string(),
  createdAt: z.string(),
  agentId: z.string().optional(),
  harness: z.string().optional(),
  remoteUrl: z.string().optional(),
  remoteTaskId: z.string().optional(),
  remoteContextId: z.string().optional(),
  /**
   * The status timestamp the agent gave last, as it wrote it: a reply's worker tells the
   * question it answers from a new one by it when the question carries no message.
   */
  remoteStatusTimestamp: z.string().optional(),
  workspaceRoot: z.string().optional(),
  workspace: z.string().optional(),
  agentName: z.string().optional(),
  childSessionId: z.string().optional(),
  /**
   * The harness session this run resumes (an earlier run's, in the same harness), instead
   * of starting a new one.
   */
  resumeSessionId: z.string().optional(),
  /** Why the run starts a new harness session where one was asked to be resumed. */
  newSessionReason: z.string().optional(),
  childPid: z.number().int().optional(),
  /** The child's start-time token, so a reused pid is never mistaken for it. */
  childStartTime: z.string().optional(),
  /**
   * The start-time token of the process that made the copy, recorded with the copy's
   * folder: a child started in the copy after it is ours, even before its pid is recorded.
   */
  runnerStartTime: z.string().optional(),
  /** How the harness child is sandboxed (bwrap, seatbelt, inherited from its parent, none). */
  sandbox: z.enum(["bwrap", "seatbelt", "inherited", "none"]).optional(),
  /** What the sandbox leaves writable of the harness's state, and masks of the home. */
  sandboxMounts: z.object({
    observalHome: z.string(),
    state: z.array(z.string()),
    hidden: z.array(z.object({ path: z.string(), kind: z.enum(["dir", "file"]) })),
  }).optional(),
  /** How long the run may take. */
  timeoutSeconds: z.number().int().positive().optional(),
  patchPath: z.string().optional(),
  /** The top of the caller's repository: where the patch applies. */
  repository: z.string().optional(),
  /**
   * When the patch was applied to the repository (`observal delegate apply`), onto which
   * HEAD (absent before the first commit), how, and which files a three-way merge left
   * with conflicts. A task's patch is applied once.
   */
  applied: z.object({
    at: z.string(),
    head: z.string().optional(),
    threeWay: z.boolean(),
    index: z.boolean(),
    conflicts: z.array(z.string()).optional(),
  }).optional(),
  /**
   * The task runs the version pinned when its served Agent's server started (a newer one
   * waits for review).
   */
  pinnedVersion: z.boolean().optional(),
  /** When the last reply was taken. */
  repliedAt: z.string().optional(),
  /** The agent stopped answering and is being retried: why, and until when (ISO time). */
  retrying: z.object({ reason: z.string(), until: z.string() }).optional(),
  notes: z.array(z.string()).optional(),
});
export type ObservalTaskMeta = z.infer<typeof ObservalTaskMetaSchema>;

export const TaskSchema = z.looseObject({
  id: z.string(),
  contextId: z.string(),
  status: TaskStatusSchema,
  history: z.array(MessageSchema).optional(),
  artifacts: z.array(ArtifactSchema).optional(),
  metadata: z.looseObject({ observal: ObservalTaskMetaSchema }),
});
export type Task = z.infer<typeof TaskSchema>;

/** Longest artifact text kept; longer text is cut and marked truncated. */
export const MAX_ARTIFACT_TEXT = 200_000;

/** The readable text of a message or artifact: text parts, data as JSON, files as links. */
export function partsText(parts: readonly Part[]): string {
  return parts.map((p) => {
    if (typeof p.text === "string") return p.text;
    if (p.data !== undefined) return JSON.stringify(p.data, null, 2);
    if (typeof p.url === "string") return `[file] ${p.url}`;
    if (typeof p.raw === "string") return `[file] ${p.filename ?? "(inline bytes)"}`;
    return "";
  }).filter((t) => t !== "").join("\n");
}

/** A text artifact, cut at {@linkcode MAX_ARTIFACT_TEXT} with the cut recorded. */
export function textArtifact(name: string, text: string, mediaType?: string): Artifact {
  const cut = text.length > MAX_ARTIFACT_TEXT;
  const part: Part = { text: cut ? text.slice(0, MAX_ARTIFACT_TEXT) : text };
  if (mediaType) part.mediaType = mediaType;
  const artifact: Artifact = { artifactId: name, name, parts: [part] };
  if (cut) artifact.metadata = { truncated: true, length: text.length };
  return artifact;
}

/** Short state name for people: `TASK_STATE_INPUT_REQUIRED` → `input-required`. */
export function stateLabel(state: TaskState): string {
  return state.slice("TASK_STATE_".length).toLowerCase().replace(/_/g, "-");
}
