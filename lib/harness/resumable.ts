/**
 * Which harnesses can resume an earlier session, and the shape of one found: what a headless
 * plan needs without reading the file system (finding a session is in `resume_session.ts`).
 * @module
 */
import type { HarnessKey } from "./registry.ts";

/** The harnesses whose sessions a later run resumes. */
export const RESUMABLE_HARNESSES: readonly HarnessKey[] = ["claude-code", "codex", "pi"];

/**
 * Whether the harness takes up an earlier session as a fork: Pi's `--fork` starts a new
 * session in the new copy that carries the earlier turns; the others resume the session.
 */
export function forksSession(key: HarnessKey): boolean {
  return key === "pi";
}

/** A session a run can resume: its id and the file that holds its transcript. */
export interface ResumableSession {
  sessionId: string;
  file: string;
}
