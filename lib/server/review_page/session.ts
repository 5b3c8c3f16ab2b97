/**
 * The review page's sessions: a random id in an HttpOnly, SameSite=Strict cookie, stored
 * hashed in the registry database with an expiry, so every process serving one database
 * knows them. Each session has its own random token that every form carries (CSRF).
 * @module
 */
import { nodeCrypto } from "../../core/mod.ts";
import { hashKey, type UserRow, type Viewer, viewerFor } from "../identity.ts";
import type { RegistryState } from "../state.ts";

/** The cookie's name. */
export const SESSION_COOKIE = "observal_review";

/** How long a sign-in lasts. */
export const SESSION_MS = 8 * 60 * 60 * 1000;

/** A signed-in session: who, and the token its forms carry. */
export interface Session {
  viewer: Viewer;
  csrf: string;
}

function digest(text: string): string {
  return nodeCrypto().createHash("sha256").update(`session:${text}`).digest("hex");
}

function randomToken(): string {
  return nodeCrypto().randomBytes(32).toString("base64url");
}

/** Opens a session for the holder of `apiKey` (already checked); returns the cookie value. */
export function openSession(state: RegistryState, apiKey: string): string {
  const now = state.clock.now().getTime();
  const id = randomToken();
  state.db.prepare("DELETE FROM review_sessions WHERE expires_at <= ?").run(now);
  state.db.prepare(
    "INSERT INTO review_sessions(id_hash, key_hash, csrf, expires_at) VALUES (?, ?, ?, ?)",
  ).run(digest(id), hashKey(apiKey), randomToken(), now + SESSION_MS);
  return id;
}

/**
 * The live session a cookie value names, or undefined: unknown, expired, or opened with a
 * key since revoked.
 */
export function loadSession(state: RegistryState, id: string | undefined): Session | undefined {
  if (!id || id.length > 100) return undefined;
  const row = state.db.prepare(
    `SELECT u.*, s.csrf AS session_csrf FROM review_sessions s
     JOIN api_keys k ON k.key_hash = s.key_hash AND k.revoked_at IS NULL
     JOIN users u ON u.id = k.user_id
     WHERE s.id_hash = ? AND s.expires_at > ?`,
  ).get(digest(id), state.clock.now().getTime()) as
    | (UserRow & { session_csrf: string })
    | undefined;
  if (!row) return undefined;
  return { viewer: viewerFor(state.db, row), csrf: row.session_csrf };
}

/** Ends the session a cookie value names. */
export function endSession(state: RegistryState, id: string): void {
  state.db.prepare("DELETE FROM review_sessions WHERE id_hash = ?").run(digest(id));
}

/** Whether a form's token is the session's, compared in constant time. */
export function csrfMatches(session: Session, token: unknown): boolean {
  if (typeof token !== "string") return false;
  const a = new TextEncoder().encode(token);
  const b = new TextEncoder().encode(session.csrf);
  return a.length === b.length && nodeCrypto().timingSafeEqual(a, b);
}
