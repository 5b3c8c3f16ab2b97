/**
 * The embedded registry's schema, one migration per entry. Never edit a shipped entry;
 * append a new one.
 */
export const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    handle TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL CHECK (role IN ('admin', 'reviewer', 'user')),
    created_at TEXT NOT NULL
  );
  CREATE TABLE teams (
    id TEXT PRIMARY KEY,
    handle TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE TABLE team_members (
    team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('owner', 'reviewer', 'member')),
    PRIMARY KEY (team_id, user_id)
  );
  CREATE INDEX team_members_user ON team_members(user_id);
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    key_hash TEXT NOT NULL UNIQUE,
    prefix TEXT NOT NULL,
    created_at TEXT NOT NULL,
    revoked_at TEXT
  );
  CREATE TABLE settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );

  -- One row per discoverable resource: registry agents and imported A2A cards.
  CREATE TABLE entries (
    rowid INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    identifier TEXT NOT NULL UNIQUE,
    kind TEXT NOT NULL CHECK (kind IN ('agent', 'external')),
    source_kind TEXT NOT NULL CHECK (source_kind IN ('native', 'imported')),
    type TEXT NOT NULL,
    display_name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    version TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    team_id TEXT,
    visibility TEXT NOT NULL CHECK (visibility IN ('owner', 'team', 'public')),
    lifecycle TEXT NOT NULL CHECK (lifecycle IN ('draft', 'pending', 'approved', 'rejected', 'archived')),
    tombstoned INTEGER NOT NULL DEFAULT 0,
    source_url TEXT,
    native_ref TEXT,
    digest TEXT NOT NULL,
    delegable INTEGER NOT NULL DEFAULT 0,
    recommended INTEGER NOT NULL DEFAULT 0,
    harnesses TEXT NOT NULL DEFAULT '[]',
    search_queries TEXT NOT NULL DEFAULT '',
    search_capabilities TEXT NOT NULL DEFAULT '',
    doc TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE UNIQUE INDEX entries_source_url ON entries(source_url) WHERE source_url IS NOT NULL;
  CREATE UNIQUE INDEX entries_native_ref ON entries(native_ref) WHERE source_kind = 'native';
  CREATE INDEX entries_lifecycle ON entries(lifecycle, visibility);
  CREATE INDEX entries_owner ON entries(owner_id);
  CREATE INDEX entries_team ON entries(team_id);

  -- (A full-text table and its triggers stood here; search_terms, in the next migration,
  -- replaced them. They are no longer created: some SQLite builds, such as Node 22.13's,
  -- have no FTS5, and the next migration drops them where an older database has them.)

  -- Every published version of a registry agent; entries holds the current one.
  CREATE TABLE agent_versions (
    agent_id TEXT NOT NULL,
    version TEXT NOT NULL,
    definition TEXT NOT NULL,
    digest TEXT NOT NULL,
    lifecycle TEXT NOT NULL DEFAULT 'pending',
    created_at TEXT NOT NULL,
    PRIMARY KEY (agent_id, version)
  );
  `,
  `
  -- Publish and install find an agent by namespace/name: an indexed equality instead of a
  -- LIKE over native_ref, which read every row.
  ALTER TABLE entries ADD COLUMN agent_ref TEXT GENERATED ALWAYS AS (
    CASE WHEN source_kind = 'native' THEN substr(native_ref, 1, instr(native_ref, '@') - 1) END
  ) VIRTUAL;
  CREATE INDEX entries_agent_ref ON entries(agent_ref) WHERE agent_ref IS NOT NULL;
  -- Who may see an entry, in a few bytes per row: search checks it for every index row it
  -- reads, without touching the (large) entry row itself.
  CREATE INDEX entries_visibility ON entries(rowid, tombstoned, lifecycle, visibility, owner_id,
    team_id);

  -- Search reads bounded runs of this index instead of ranking every full-text match: one
  -- row per distinct word of an entry's searchable fields, ordered within the word by rank
  -- (best field, then approval and recommendation; see search.ts), newest entry first.
  -- obs_search_terms() computes the rows; search.ts registers it on every connection and
  -- fills the table for entries written before it existed.
  CREATE TABLE search_terms (
    term TEXT NOT NULL,
    rank INTEGER NOT NULL,
    entry INTEGER NOT NULL,
    PRIMARY KEY (term, rank, entry)
  ) WITHOUT ROWID;
  -- An entry's words: which other query words a candidate holds, and removal.
  CREATE INDEX search_terms_entry ON search_terms(entry, term);
  -- How many entries hold each word: picks the rarest word and a prefix's commonest words.
  CREATE TABLE search_vocab (
    term TEXT PRIMARY KEY,
    entries INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE TABLE search_meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  CREATE TRIGGER entries_terms_ai AFTER INSERT ON entries BEGIN
    INSERT INTO search_terms(term, rank, entry)
    SELECT t.value ->> 0, t.value ->> 1, new.rowid
    FROM json_each(obs_search_terms(new.display_name, new.search_queries,
      new.search_capabilities, new.description, new.lifecycle, new.recommended)) t;
    INSERT INTO search_vocab(term, entries)
    SELECT term, 1 FROM search_terms WHERE entry = new.rowid
    ON CONFLICT(term) DO UPDATE SET entries = entries + 1;
  END;
  CREATE TRIGGER entries_terms_ad AFTER DELETE ON entries BEGIN
    UPDATE search_vocab SET entries = entries - 1
    WHERE term IN (SELECT term FROM search_terms WHERE entry = old.rowid);
    DELETE FROM search_terms WHERE entry = old.rowid;
  END;
  CREATE TRIGGER entries_terms_au AFTER UPDATE OF display_name, search_queries,
    search_capabilities, description, lifecycle, recommended ON entries
  WHEN old.display_name IS NOT new.display_name OR old.search_queries IS NOT new.search_queries
    OR old.search_capabilities IS NOT new.search_capabilities
    OR old.description IS NOT new.description OR old.lifecycle IS NOT new.lifecycle
    OR old.recommended IS NOT new.recommended
  BEGIN
    UPDATE search_vocab SET entries = entries - 1
    WHERE term IN (SELECT term FROM search_terms WHERE entry = old.rowid);
    DELETE FROM search_terms WHERE entry = old.rowid;
    INSERT INTO search_terms(term, rank, entry)
    SELECT t.value ->> 0, t.value ->> 1, new.rowid
    FROM json_each(obs_search_terms(new.display_name, new.search_queries,
      new.search_capabilities, new.description, new.lifecycle, new.recommended)) t;
    INSERT INTO search_vocab(term, entries)
    SELECT term, 1 FROM search_terms WHERE entry = new.rowid
    ON CONFLICT(term) DO UPDATE SET entries = entries + 1;
  END;

  -- The full-text index is replaced by search_terms (only databases created before this
  -- migration have it).
  DROP TRIGGER IF EXISTS entries_ai;
  DROP TRIGGER IF EXISTS entries_ad;
  DROP TRIGGER IF EXISTS entries_au;
  DROP TABLE IF EXISTS entries_fts;
  `,
  `
  -- Entries are named by unique prefixes of their identifier's last part (the UUID, or an
  -- imported card's slug) as people type them: a range on this index, never a scan.
  -- rtrim() with every character but ':' strips the last part, leaving its start.
  ALTER TABLE entries ADD COLUMN identifier_tail TEXT GENERATED ALWAYS AS (
    substr(identifier, length(rtrim(identifier, replace(identifier, ':', ''))) + 1)
  ) VIRTUAL;
  CREATE INDEX entries_identifier_tail ON entries(identifier_tail);
  -- Lists of one kind (registry agent list, registry a2a list) read in name order and stop.
  CREATE INDEX entries_listing ON entries(source_kind, display_name, identifier);
  `,
  `
  -- A word's rows by entry, for the combined walk's question: does this entry hold that
  -- other query word? One word's rows lie together here, so a walk's lookups read a few
  -- pages; by entry first (search_terms_entry) they land all over the index.
  CREATE INDEX search_terms_word_entry ON search_terms(term, entry);
  `,
  `
  -- Rate-limit windows, here rather than in memory so every \`registry serve\` process on
  -- one home spends the same budgets (shared_rate_limiter.ts). start is in ms since the
  -- epoch; expired rows are purged by (bucket, start).
  CREATE TABLE rate_windows (
    bucket TEXT NOT NULL,
    key TEXT NOT NULL,
    start INTEGER NOT NULL,
    used INTEGER NOT NULL,
    PRIMARY KEY (bucket, key)
  ) WITHOUT ROWID;
  CREATE INDEX rate_windows_start ON rate_windows(bucket, start);
  `,
  `
  -- The review page's sign-ins. The session id is stored hashed (a leaked database does not
  -- hand out sessions) beside the key it was opened with, so revoking that key ends it.
  -- csrf is the token every form of the session carries; expires_at is in ms since the epoch.
  CREATE TABLE review_sessions (
    id_hash TEXT PRIMARY KEY,
    key_hash TEXT NOT NULL,
    csrf TEXT NOT NULL,
    expires_at INTEGER NOT NULL
  ) WITHOUT ROWID;
  CREATE INDEX review_sessions_expiry ON review_sessions(expires_at);
  -- What a reviewer last approved, so the next review shows what changed since.
  ALTER TABLE entries ADD COLUMN approved_doc TEXT;
  `,
];
