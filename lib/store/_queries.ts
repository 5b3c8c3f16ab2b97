/**
 * The store's lookups, kept in one place so tests can check with EXPLAIN QUERY PLAN that
 * each one is answered from an index.
 * @module
 */
import { isTerminal, TASK_STATES } from "../a2a/mod.ts";

const SETTLED = TASK_STATES.filter(isTerminal).map((s) => `'${s}'`).join(", ");

export const SELECT_DOC = "SELECT id, doc FROM tasks WHERE id = ?";
export const SELECT_PAGE =
  "SELECT id, doc FROM tasks ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?";
export const COUNT_ALL = "SELECT count(*) AS n FROM tasks";
export const COUNT_CHILDREN = "SELECT count(*) AS n FROM tasks WHERE parent_task_id = ?";
// rowid breaks ties in favour of the task inserted last, and is part of every index.
export const FIND_BY_CHILD_SESSION =
  "SELECT id, doc FROM tasks WHERE child_session_id = ? ORDER BY rowid DESC LIMIT 1";
export const FIND_BY_WORKSPACE =
  "SELECT id, doc FROM tasks WHERE workspace_root = ? ORDER BY rowid DESC LIMIT 1";
/** Tasks a worker owns: submitted or working (the states a dead worker leaves behind). */
export const SELECT_RUNNING =
  "SELECT id, doc FROM tasks WHERE state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING') LIMIT ?";
// Most tasks are settled: the age range is the selective part ("+state" keeps the planner
// on the updated_at index rather than the state index).
export const PRUNE_SETTLED =
  `DELETE FROM tasks WHERE updated_at < ? AND +state IN (${SETTLED}) RETURNING id`;
