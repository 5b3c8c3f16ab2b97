/**
 * The store's lookups, kept in one place so tests can check with EXPLAIN QUERY PLAN that
 * each one is answered from an index.
 * @module
 */
import { isTerminal, TASK_STATES } from "../a2a/tasks/mod.ts";

const SETTLED = TASK_STATES.filter(isTerminal).map((s) => `'${s}'`).join(", ");

export const SELECT_DOC = "SELECT id, doc FROM tasks WHERE id = ?";
export const SELECT_PAGE =
  "SELECT id, doc FROM tasks ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?";
/** Totals come from the per-state counts that triggers keep (see the migrations). */
export const COUNT_ALL = "SELECT coalesce(sum(n), 0) AS n FROM task_counts";
/**
 * One state's newest tasks, as keys: read backwards along (state, created_at), so a page
 * costs its own length whatever the store holds. Several states are merged by the caller.
 */
export const SELECT_STATE_PAGE_KEYS =
  "SELECT rowid AS r, created_at AS c FROM tasks WHERE state = ? ORDER BY created_at DESC, rowid DESC LIMIT ?";
export const COUNT_STATE = "SELECT coalesce(sum(n), 0) AS n FROM task_counts WHERE state = ?";
export const SELECT_DOC_BY_ROWID = "SELECT id, doc FROM tasks WHERE rowid = ?";
/**
 * Tasks whose id starts with a prefix: a range on the primary key's index, bounded by the
 * prefix followed by "~", which sorts after every character a task id holds (0-9, a-f, -).
 */
export const SELECT_ID_PREFIX =
  "SELECT id, doc FROM tasks WHERE id >= ? AND id < ? ORDER BY id LIMIT ?";
export const COUNT_CHILDREN = "SELECT count(*) AS n FROM tasks WHERE parent_task_id = ?";
/** A parent's tasks that a worker still owns (along the parent's index). */
export const SELECT_UNSETTLED_CHILDREN =
  "SELECT id FROM tasks WHERE parent_task_id = ? AND +state IN ('TASK_STATE_SUBMITTED', 'TASK_STATE_WORKING', 'TASK_STATE_INPUT_REQUIRED', 'TASK_STATE_AUTH_REQUIRED')";
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
