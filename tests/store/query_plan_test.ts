/** Lookups are answered from indexes, never by reading every task. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import * as Q from "../../lib/store/_queries.ts";
import { makeTask, openFixture } from "./_helpers.ts";

function plan(db: DatabaseSync, sql: string, ...params: (string | number)[]): string {
  const rows = db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[];
  return rows.map((r) => r.detail).join("\n");
}

Deno.test("TaskStore queries use indexes rather than scanning the table", () => {
  using fx = openFixture();
  for (let i = 0; i < 50; i++) {
    fx.store.insert(makeTask({
      meta: { parentTaskId: crypto.randomUUID(), childSessionId: `s${i}`, workspaceRoot: `/w${i}` },
    }));
  }
  const db = new DatabaseSync(join(fx.store.root, "tasks.db"), { readOnly: true });
  try {
    const searches: [string, string, RegExp][] = [
      [Q.SELECT_DOC, crypto.randomUUID(), /SEARCH tasks USING INDEX sqlite_autoindex_tasks_1/],
      [Q.COUNT_CHILDREN, crypto.randomUUID(), /SEARCH tasks USING COVERING INDEX tasks_parent_/],
      [Q.SELECT_UNSETTLED_CHILDREN, crypto.randomUUID(), /SEARCH tasks USING INDEX tasks_parent_/],
      [Q.FIND_BY_CHILD_SESSION, "s1", /SEARCH tasks USING INDEX tasks_child_session_id/],
      [Q.FIND_BY_WORKSPACE, "/w1", /SEARCH tasks USING INDEX tasks_workspace_root/],
      [Q.PRUNE_SETTLED, "2026-01-01T00:00:00.000Z", /SEARCH tasks USING INDEX tasks_updated_at/],
      [Q.SELECT_RUNNING, "100", /SEARCH tasks USING INDEX tasks_state_created_at/],
      [Q.COUNT_STATE, "TASK_STATE_WORKING", /SEARCH task_counts USING PRIMARY KEY/],
      [Q.SELECT_DOC_BY_ROWID, "1", /SEARCH tasks USING INTEGER PRIMARY KEY/],
    ];
    for (const [sql, param, expected] of searches) {
      const detail = plan(db, sql, param);
      assert.match(detail, expected, sql);
      assert.doesNotMatch(detail, /SCAN tasks(?! USING)|TEMP B-TREE/, sql);
    }
    // A page walks the created_at index in order: no full sort of the table.
    const page = plan(db, Q.SELECT_PAGE, 20, 0);
    assert.match(page, /USING INDEX tasks_created_at/);
    assert.doesNotMatch(page, /TEMP B-TREE/);
    // So does a page of one state, along (state, created_at).
    const state = plan(db, Q.SELECT_STATE_PAGE_KEYS, "TASK_STATE_COMPLETED", 20);
    assert.match(state, /SEARCH tasks USING COVERING INDEX tasks_state_created_at \(state=\?\)/);
    assert.doesNotMatch(state, /TEMP B-TREE/);
    // A task id prefix is a range on the primary key.
    const prefix = plan(db, Q.SELECT_ID_PREFIX, "3f2a", "3f2a~", 6);
    assert.match(prefix, /SEARCH tasks USING INDEX sqlite_autoindex_tasks_1 \(id>\? AND id<\?\)/);
    assert.doesNotMatch(prefix, /TEMP B-TREE/);
    // Totals come from the per-state counts, not from counting rows.
    assert.doesNotMatch(plan(db, Q.COUNT_ALL), /tasks(?!_)/);
  } finally {
    db.close();
  }
});
