/**
 * Which harness sessions a later run can resume, and where each harness keeps the file that
 * holds one. A delegated run works in a throwaway copy, so a session resumes only where its
 * transcript lives outside the copy, in the harness's own state folder: Claude Code
 * (`--resume`, found under any project folder), Codex (`exec resume`, in the new copy) and Pi
 * (`--fork` of the file: Pi binds a session to the folder it ran in, so the run continues it
 * in a new session that names the earlier as its parent) were each verified end to end with
 * the CLI at the version the tests pin. The others start a new session. It reads the file
 * system (node:fs), so it sits behind the full door, `mod.ts`; the light door has only
 * `resumable.ts`.
 * @module
 */
import { readdirSync, statSync } from "node:fs";
import type { Env } from "../core/mod.ts";
import { isAbsolute, join, resolve } from "../core/system/mod.ts";
import { piSessionRoot } from "./pi_session.ts";
import { getHarness, type HarnessKey } from "./registry.ts";
import type { ResumableSession } from "./resumable.ts";

/** Most entries read in one folder while looking for a session (a bounded search). */
const MAX_ENTRIES = 10_000;

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function entries(dir: string): string[] {
  try {
    return readdirSync(dir).slice(0, MAX_ENTRIES);
  } catch {
    return [];
  }
}

function folder(env: Env, variable: string, fallback: string): string {
  const home = env.HOME || env.USERPROFILE || "/";
  const set = env[variable]?.trim();
  if (!set) return join(home, fallback);
  const expanded = set === "~" ? home : set.startsWith("~/") ? join(home, set.slice(2)) : set;
  return isAbsolute(expanded) ? expanded : resolve(home, expanded);
}

/** Claude Code: `<config dir>/projects/<cwd as a name>/<id>.jsonl`, for any cwd. */
function claudeSession(env: Env, id: string): string | undefined {
  const projects = sessionRoot("claude-code", env)!;
  return entries(projects).map((p) => join(projects, p, `${id}.jsonl`)).find(isFile);
}

/** Codex: `<CODEX_HOME>/sessions/<yyyy>/<mm>/<dd>/rollout-<time>-<id>.jsonl`. */
function codexSession(env: Env, id: string): string | undefined {
  const root = sessionRoot("codex", env)!;
  const suffix = `-${id}.jsonl`;
  // Newest first: a resumed session was most likely started recently.
  const down = (dir: string) => entries(dir).sort().reverse().map((e) => join(dir, e));
  for (const year of down(root)) {
    for (const month of down(year)) {
      for (const day of down(month)) {
        const found = entries(day).find((f) => f.startsWith("rollout-") && f.endsWith(suffix));
        if (found) return join(day, found);
      }
    }
  }
  return undefined;
}

/** Pi: `<sessions>/<cwd as a name>/<time>_<id>.jsonl`, or straight in a set session folder. */
function piSession(env: Env, id: string): string | undefined {
  const root = piSessionRoot(env);
  const suffix = `_${id}.jsonl`;
  const here = (dir: string) => entries(dir).find((f) => f.endsWith(suffix));
  const direct = here(root);
  if (direct && isFile(join(root, direct))) return join(root, direct);
  for (const sub of entries(root)) {
    const found = here(join(root, sub));
    if (found && isFile(join(root, sub, found))) return join(root, sub, found);
  }
  return undefined;
}

/**
 * The folder a harness's sessions are looked for under (what a run that resumes one must
 * be able to read), or undefined for a harness that cannot resume.
 */
export function sessionRoot(harness: HarnessKey, env: Env): string | undefined {
  if (harness === "claude-code") {
    return join(folder(env, "CLAUDE_CONFIG_DIR", ".claude"), "projects");
  }
  if (harness === "codex") return join(folder(env, "CODEX_HOME", ".codex"), "sessions");
  if (harness === "pi") return piSessionRoot(env);
  return undefined;
}

const FINDERS: Partial<Record<HarnessKey, (env: Env, id: string) => string | undefined>> = {
  "claude-code": claudeSession,
  codex: codexSession,
  pi: piSession,
};

/** Session ids as the harnesses make them: no path separators or dots to climb out with. */
const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * The session `sessionId` of `harness`, when a run here can resume it; otherwise why not,
 * in words that finish "starts a new session: ...".
 *
 * @param harness the harness the run uses
 * @param sessionId the session an earlier run of that harness left
 * @param env where HOME and the harness's state variables come from
 *
 * @example
 * ```ts
 * const found = resumableSession("kiro", "s1", { HOME: "/home/u" });
 * // { reason: "Kiro cannot resume one" }
 * ```
 */
export function resumableSession(
  harness: HarnessKey,
  sessionId: string,
  env: Env,
): ResumableSession | { reason: string } {
  const name = getHarness(harness).display_name;
  const find = FINDERS[harness];
  if (!find) return { reason: `${name} cannot resume one` };
  if (!SESSION_ID.test(sessionId)) {
    return { reason: `${name} session id ${JSON.stringify(sessionId)} is not one it makes` };
  }
  const file = find(env, sessionId);
  return file
    ? { sessionId, file }
    : { reason: `${name} session ${sessionId} is gone from its state folder` };
}
