/**
 * Users, teams and API keys. Keys are random 32-byte tokens shown once; only their
 * SHA-256 is stored, so a leaked database does not leak credentials.
 * @module
 */
import { z } from "zod";
import { nodeCrypto, ObservalError } from "../core/mod.ts";
import type { DatabaseSync } from "../sqlite/mod.ts";

export const UserRoleSchema = z.enum(["admin", "reviewer", "user"]);
export type UserRole = z.infer<typeof UserRoleSchema>;
export const TeamRoleSchema = z.enum(["owner", "reviewer", "member"]);
export type TeamRole = z.infer<typeof TeamRoleSchema>;
export const HandleSchema = z.string().regex(
  /^[a-z0-9][a-z0-9_-]{0,63}$/,
  "use 1-64 lower-case letters, digits, '-' or '_'",
);

/** Who is asking. Anonymous callers have no id and no teams. */
export interface Viewer {
  anonymous: boolean;
  userId: string;
  handle: string;
  role: UserRole | "anonymous";
  /** team id → the caller's role in it */
  teams: ReadonlyMap<string, TeamRole>;
}

export const ANONYMOUS: Viewer = {
  anonymous: true,
  userId: "",
  handle: "",
  role: "anonymous",
  teams: new Map(),
};

/** The built-in account the CLI acts as when it calls the embedded registry in process. */
export const LOCAL_ADMIN_HANDLE = "local";

export interface UserRow {
  id: string;
  handle: string;
  role: UserRole;
  created_at: string;
}

export interface TeamRow {
  id: string;
  handle: string;
  name: string;
  created_at: string;
}

// node:crypto loads only when an API key is hashed or issued: the embedded registry's own
// caller uses no key.
/** The SHA-256 of an API key, as `api_keys.key_hash` stores it. */
export function hashKey(key: string): string {
  return nodeCrypto().createHash("sha256").update(key).digest("hex");
}

/** Creates the local admin on first use; returns its viewer. */
export function localAdmin(db: DatabaseSync, now: string): Viewer {
  let row = db.prepare("SELECT * FROM users WHERE handle = ?").get(LOCAL_ADMIN_HANDLE) as
    | UserRow
    | undefined;
  if (!row) {
    db.prepare(
      "INSERT OR IGNORE INTO users(id, handle, role, created_at) VALUES (?, ?, 'admin', ?)",
    )
      .run(crypto.randomUUID(), LOCAL_ADMIN_HANDLE, now);
    row = db.prepare("SELECT * FROM users WHERE handle = ?").get(
      LOCAL_ADMIN_HANDLE,
    ) as unknown as UserRow;
  }
  return viewerFor(db, row);
}

/** The viewer a user is, with their team roles. */
export function viewerFor(db: DatabaseSync, user: UserRow): Viewer {
  const teams = new Map<string, TeamRole>();
  const rows = db.prepare("SELECT team_id, role FROM team_members WHERE user_id = ?").all(
    user.id,
  ) as Array<{ team_id: string; role: TeamRole }>;
  for (const r of rows) teams.set(r.team_id, r.role);
  return { anonymous: false, userId: user.id, handle: user.handle, role: user.role, teams };
}

/** Resolves a bearer token to a viewer; unknown or revoked keys are refused. */
export function authenticate(db: DatabaseSync, token: string): Viewer {
  const row = db.prepare(
    `SELECT u.* FROM api_keys k JOIN users u ON u.id = k.user_id
     WHERE k.key_hash = ? AND k.revoked_at IS NULL`,
  ).get(hashKey(token)) as UserRow | undefined;
  if (!row) {
    throw new ObservalError("UNAUTHENTICATED", "The API key is not valid", {
      remediation: "Ask an admin for a new key (`observal registry user key HANDLE`)",
    });
  }
  return viewerFor(db, row);
}

export function createUser(
  db: DatabaseSync,
  input: { handle: string; role: UserRole },
  now: string,
): UserRow {
  const exists = db.prepare("SELECT 1 FROM users WHERE handle = ?").get(input.handle);
  if (exists) {
    throw new ObservalError("ALREADY_EXISTS", `A user named "${input.handle}" already exists`, {
      remediation: "Choose another handle, or issue a new key with `observal registry user key`",
    });
  }
  const row: UserRow = {
    id: crypto.randomUUID(),
    handle: input.handle,
    role: input.role,
    created_at: now,
  };
  db.prepare("INSERT INTO users(id, handle, role, created_at) VALUES (?, ?, ?, ?)").run(
    row.id,
    row.handle,
    row.role,
    row.created_at,
  );
  return row;
}

export function findUser(db: DatabaseSync, ref: string): UserRow {
  const row = db.prepare("SELECT * FROM users WHERE handle = ? OR id = ?").get(ref, ref) as
    | UserRow
    | undefined;
  if (!row) {
    throw new ObservalError("NOT_FOUND", `No user "${ref}"`, {
      remediation: "List users with `observal registry user list`",
    });
  }
  return row;
}

export function listUsers(db: DatabaseSync): UserRow[] {
  return db.prepare("SELECT * FROM users ORDER BY handle").all() as unknown as UserRow[];
}

/** Issues a new API key for a user; the plain key is returned once and never stored. */
export function issueKey(db: DatabaseSync, userId: string, now: string): string {
  const key = `obs_${nodeCrypto().randomBytes(32).toString("base64url")}`;
  db.prepare(
    "INSERT INTO api_keys(id, user_id, key_hash, prefix, created_at) VALUES (?, ?, ?, ?, ?)",
  ).run(crypto.randomUUID(), userId, hashKey(key), key.slice(0, 8), now);
  return key;
}

export function createTeam(
  db: DatabaseSync,
  input: { handle: string; name?: string },
  now: string,
): TeamRow {
  const exists = db.prepare("SELECT 1 FROM teams WHERE handle = ?").get(input.handle);
  if (exists) {
    throw new ObservalError("ALREADY_EXISTS", `A team named "${input.handle}" already exists`);
  }
  const row: TeamRow = {
    id: crypto.randomUUID(),
    handle: input.handle,
    name: input.name || input.handle,
    created_at: now,
  };
  db.prepare("INSERT INTO teams(id, handle, name, created_at) VALUES (?, ?, ?, ?)").run(
    row.id,
    row.handle,
    row.name,
    row.created_at,
  );
  return row;
}

export function findTeam(db: DatabaseSync, ref: string): TeamRow {
  const row = db.prepare("SELECT * FROM teams WHERE handle = ? OR id = ?").get(ref, ref) as
    | TeamRow
    | undefined;
  if (!row) {
    throw new ObservalError("NOT_FOUND", `No team "${ref}"`, {
      remediation: "List teams with `observal registry team list`",
    });
  }
  return row;
}

export function listTeams(db: DatabaseSync): Array<TeamRow & { members: number }> {
  return db.prepare(
    `SELECT t.*, (SELECT COUNT(*) FROM team_members m WHERE m.team_id = t.id) AS members
     FROM teams t ORDER BY t.handle`,
  ).all() as unknown as Array<TeamRow & { members: number }>;
}

export function setMember(db: DatabaseSync, teamId: string, userId: string, role: TeamRole): void {
  db.prepare(
    `INSERT INTO team_members(team_id, user_id, role) VALUES (?, ?, ?)
     ON CONFLICT(team_id, user_id) DO UPDATE SET role = excluded.role`,
  ).run(teamId, userId, role);
}

export function removeMember(db: DatabaseSync, teamId: string, userId: string): boolean {
  return db.prepare("DELETE FROM team_members WHERE team_id = ? AND user_id = ?").run(
    teamId,
    userId,
  ).changes > 0;
}
