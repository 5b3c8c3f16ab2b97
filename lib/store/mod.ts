/**
 * The delegated-task store: every delegation is an A2A Task row in
 * `<OBSERVAL_HOME>/delegations/tasks.db`, indexed by parent task, child session, workspace
 * and state (with counts kept per state), and found by the start of its id; with a folder
 * per task (`<root>/<uuid>/`) for logs ({@linkcode TASK_LOGS}) and patches. Several
 * processes may use one store at once; a settled task never changes again. A damaged store
 * is reported with the way out, {@linkcode recoverTaskStore} (`observal delegate recover`).
 *
 * @example
 * ```ts
 * import { mkdtempSync, rmSync } from "node:fs";
 * import { tmpdir } from "node:os";
 * import { join } from "node:path";
 * import { systemClock } from "../core/mod.ts";
 * import { openTaskStore } from "./mod.ts";
 *
 * const home = mkdtempSync(join(tmpdir(), "observal-"));
 * const store = openTaskStore({ home, clock: systemClock });
 * const id = crypto.randomUUID();
 * store.insert({
 *   id,
 *   contextId: crypto.randomUUID(),
 *   status: { state: "TASK_STATE_SUBMITTED" },
 *   metadata: {
 *     observal: { target: "urn:example", kind: "agent", depth: 0, chain: [], cwd: home, createdAt: "2026-09-27T10:00:00Z" },
 *   },
 * });
 * store.update(id, (task) => ({ ...task, status: { state: "TASK_STATE_COMPLETED" } }));
 * store.update(id, () => undefined); // { task, changed: false }: settled for good
 * store.close();
 * rmSync(home, { recursive: true });
 * ```
 * @module
 */
export * from "./task_id.ts";
export * from "./state_words.ts";
export * from "./task_logs.ts";
export * from "./task_store.ts";
export * from "./recover_task_store.ts";
export { RECOVER_COMMAND } from "./_store_faults.ts";
