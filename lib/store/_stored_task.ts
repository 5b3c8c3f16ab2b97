/**
 * The stored form of a task: the A2A task shape with the store's keys checked, so the
 * columns derived from it are always safe to index and to use as folder names.
 * @module
 */
import { z } from "zod";
import { ObservalTaskMetaSchema, type Task, TaskSchema } from "../a2a/tasks/mod.ts";
import { ObservalError } from "../core/mod.ts";
import { TaskIdSchema } from "./task_id.ts";

/** A session id or workspace path used as a lookup key: checked loosely, but bounded. */
export const IndexKeySchema = z.string().min(1).max(4096);

const StoredTaskSchema = TaskSchema.extend({
  id: TaskIdSchema,
  metadata: z.looseObject({
    observal: ObservalTaskMetaSchema.extend({
      parentTaskId: TaskIdSchema.optional(),
      childSessionId: IndexKeySchema.optional(),
      workspaceRoot: IndexKeySchema.optional(),
    }),
  }),
});

/** The values of the indexed columns, taken from a valid task. */
export interface IndexColumns {
  state: string;
  parentTaskId: string | null;
  childSessionId: string | null;
  workspaceRoot: string | null;
}

function describe(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return "it does not match the task shape";
  const path = issue.path.map((p) => typeof p === "number" ? `[${p}]` : `.${String(p)}`)
    .join("").replace(/^\./, "");
  return path ? `field "${path}": ${issue.message}` : issue.message;
}

/** Validates a task about to be written; throws INVALID_ARGUMENT and names the field. */
export function parseTaskToWrite(value: unknown): Task {
  const parsed = StoredTaskSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const id = (value as { id?: unknown } | null)?.id;
  throw new ObservalError("INVALID_ARGUMENT", `Cannot store the task: ${describe(parsed.error)}`, {
    resource: typeof id === "string" ? id : undefined,
    remediation:
      "Give the task the A2A v1.0 shape: a lower-case UUID id, a TASK_STATE_* status and metadata.observal",
  });
}

/** Parses a task read back from the database; a row that no longer parses is refused. */
export function parseStoredTask(id: string, doc: string): Task {
  let raw: unknown;
  try {
    raw = JSON.parse(doc);
  } catch (cause) {
    raw = cause;
  }
  const parsed = StoredTaskSchema.safeParse(raw);
  if (parsed.success && parsed.data.id === id) return parsed.data;
  throw new ObservalError("INTERNAL", `Stored task "${id}" cannot be read`, {
    resource: id,
    remediation: "Upgrade observal: a newer version may have written this task",
  });
}

/** The indexed columns for `task`. */
export function indexColumns(task: Task): IndexColumns {
  const meta = task.metadata.observal;
  return {
    state: task.status.state,
    parentTaskId: meta.parentTaskId ?? null,
    childSessionId: meta.childSessionId ?? null,
    workspaceRoot: meta.workspaceRoot ?? null,
  };
}
