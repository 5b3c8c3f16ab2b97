/**
 * The task store's schema, one migration per entry. Never edit a shipped entry; append one.
 *
 * Statements say IF NOT EXISTS because several processes may open a fresh store at the
 * same moment and each may run the first migration.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE IF NOT EXISTS tasks (
    id TEXT PRIMARY KEY NOT NULL,
    state TEXT NOT NULL,
    parent_task_id TEXT,
    child_session_id TEXT,
    workspace_root TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    cancel_requested INTEGER NOT NULL DEFAULT 0 CHECK (cancel_requested IN (0, 1)),
    pending_reply TEXT,
    doc TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS tasks_parent_task_id ON tasks(parent_task_id);
  CREATE INDEX IF NOT EXISTS tasks_child_session_id ON tasks(child_session_id);
  CREATE INDEX IF NOT EXISTS tasks_workspace_root ON tasks(workspace_root);
  CREATE INDEX IF NOT EXISTS tasks_created_at ON tasks(created_at);
  CREATE INDEX IF NOT EXISTS tasks_updated_at ON tasks(updated_at);
  `,
  // A pending reply becomes a JSON array of A2A parts (a text reply is [{"text": ...}]), and
  // the worker's pid moves into the row, so a reply can clear it in the same step that
  // resumes the task (NULL: not recorded, as before this migration; 0: a worker is being
  // started). migrate() runs this once, inside the write lock.
  `
  UPDATE tasks SET pending_reply = json_array(json_object('text', pending_reply))
    WHERE pending_reply IS NOT NULL;
  ALTER TABLE tasks ADD COLUMN worker_pid INTEGER;
  `,
  // Tasks a worker still owns are found by state (reconcile, sweeps).
  `
  CREATE INDEX IF NOT EXISTS tasks_state ON tasks(state);
  `,
  // `delegate list --state` pages through one state's tasks newest first, straight from the
  // index (the state index above is a prefix of this one, so it goes), and reads its total
  // from counts kept per state: counting rows costs as many steps as there are tasks.
  `
  CREATE INDEX IF NOT EXISTS tasks_state_created_at ON tasks(state, created_at);
  DROP INDEX IF EXISTS tasks_state;
  CREATE TABLE IF NOT EXISTS task_counts (
    state TEXT PRIMARY KEY NOT NULL,
    n INTEGER NOT NULL
  ) WITHOUT ROWID;
  INSERT OR REPLACE INTO task_counts (state, n) SELECT state, count(*) FROM tasks GROUP BY state;
  CREATE TRIGGER IF NOT EXISTS tasks_counted_insert AFTER INSERT ON tasks BEGIN
    INSERT INTO task_counts (state, n) VALUES (NEW.state, 1)
      ON CONFLICT (state) DO UPDATE SET n = n + 1;
  END;
  CREATE TRIGGER IF NOT EXISTS tasks_counted_delete AFTER DELETE ON tasks BEGIN
    UPDATE task_counts SET n = n - 1 WHERE state = OLD.state;
  END;
  CREATE TRIGGER IF NOT EXISTS tasks_counted_state AFTER UPDATE OF state ON tasks
    WHEN OLD.state IS NOT NEW.state BEGIN
    UPDATE task_counts SET n = n - 1 WHERE state = OLD.state;
    INSERT INTO task_counts (state, n) VALUES (NEW.state, 1)
      ON CONFLICT (state) DO UPDATE SET n = n + 1;
  END;
  `,
];
