/**
 * Where Pi keeps a session's transcript, named as Pi names it, so the transcript of a
 * delegated Pi run outlives the throwaway copy it ran in and sits with the user's other
 * Pi sessions.
 * @module
 */
import type { Env } from "../core/mod.ts";
import { isAbsolute, join, resolve } from "../core/system/mod.ts";
import { piAgentDir } from "./pi_trust.ts";

function expandHome(path: string, env: Env): string {
  const home = env.HOME || env.USERPROFILE || "/";
  const expanded = path === "~" ? home : path.startsWith("~/") ? join(home, path.slice(2)) : path;
  return isAbsolute(expanded) ? expanded : resolve(home, expanded);
}

/**
 * The folder Pi keeps all sessions under: `PI_CODING_AGENT_SESSION_DIR`, else the
 * `sessions` folder of its agent directory.
 *
 * @param env where the variables and HOME come from
 * @returns an absolute path
 */
export function piSessionRoot(env: Env): string {
  const set = env.PI_CODING_AGENT_SESSION_DIR?.trim();
  return set ? expandHome(set, env) : join(piAgentDir(env), "sessions");
}

/**
 * The file Pi would create for a new session started in `cwd`: a folder per working
 * directory (`--` + the path with separators as `-` + `--`) under the sessions folder, and
 * `<start time>_<session id>.jsonl` in it. With `PI_CODING_AGENT_SESSION_DIR` set, Pi puts
 * the files straight in that folder.
 *
 * @param env where PI_CODING_AGENT_DIR, PI_CODING_AGENT_SESSION_DIR and HOME come from
 * @param cwd the folder the session runs in
 * @param sessionId the session's id
 * @param startedAt when the session starts
 * @returns an absolute path
 *
 * @example
 * ```ts
 * piSessionFile({ HOME: "/home/u" }, "/work/repo", "0b7c", new Date("2026-01-02T03:04:05.678Z"));
 * // "/home/u/.pi/agent/sessions/--work-repo--/2026-01-02T03-04-05-678Z_0b7c.jsonl"
 * ```
 */
export function piSessionFile(env: Env, cwd: string, sessionId: string, startedAt: Date): string {
  const name = `${startedAt.toISOString().replace(/[:.]/g, "-")}_${sessionId}.jsonl`;
  if (env.PI_CODING_AGENT_SESSION_DIR?.trim()) return join(piSessionRoot(env), name);
  const folder = `--${cwd.replace(/^[/\\]/, "").replace(/[/\\:]/g, "-")}--`;
  return join(piSessionRoot(env), folder, name);
}
