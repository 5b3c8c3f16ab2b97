/**
 * The capability lock: an append-only JSON Lines log of agents and tools used, which
 * session uploads attach to the caller's session. Delegations add `mode: "delegated"`.
 * @module
 */
import {
  appendFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { z } from "zod";

export const CapabilityLockLineSchema = z.object({
  ts: z.string(),
  harness: z.string().optional(),
  cwd: z.string().optional(),
  identifier: z.string().optional(),
  kind: z.enum(["agent", "external", "mcp", "skill", "hook", "prompt"]),
  component_id: z.string().optional(),
  native_ref: z.string().optional(),
  version: z.string().optional(),
  digest: z.string().optional(),
  mode: z.string(),
  source: z.string(),
  session_hint: z.string().optional(),
  extra: z.record(z.string(), z.string()).optional(),
});
export type CapabilityLockLine = z.infer<typeof CapabilityLockLineSchema>;

/** Longest line kept whole; a longer one loses its `extra`. */
const MAX_LINE_BYTES = 8 * 1024;

/** Path of the capability lock under OBSERVAL_HOME. */
export function capabilityLockPath(home: string): string {
  return join(home, "capability_lock.jsonl");
}

function compact(line: CapabilityLockLine): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(line)) {
    if (v === undefined || v === null || v === "") continue;
    if (typeof v === "object" && Object.keys(v).length === 0) continue;
    out[k] = v;
  }
  return out;
}

/** Appends one line. One `appendFileSync` call per line keeps concurrent writers whole. */
export function appendCapabilityLock(home: string, line: CapabilityLockLine): void {
  const parsed = CapabilityLockLineSchema.parse(line);
  let text = JSON.stringify(compact(parsed));
  if (Buffer.byteLength(text) > MAX_LINE_BYTES) {
    text = JSON.stringify(compact({ ...parsed, extra: undefined }));
  }
  mkdirSync(home, { recursive: true, mode: 0o700 });
  appendFileSync(capabilityLockPath(home), `${text}\n`, { mode: 0o600 });
}

/** How long capability-lock lines are kept. */
export const CAPABILITY_LOCK_RETENTION_DAYS = 30;

/**
 * Drops lines older than the retention period (and lines that are not ours to read),
 * rewriting the file atomically. Lines appended while it runs are kept: the rewrite
 * happens only when the file has not grown since it was read.
 *
 * @returns how many lines were kept and removed
 */
export function pruneCapabilityLock(
  home: string,
  options: { now: Date; retentionDays?: number },
): { kept: number; removed: number } {
  const path = capabilityLockPath(home);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { kept: 0, removed: 0 };
  }
  const days = options.retentionDays ?? CAPABILITY_LOCK_RETENTION_DAYS;
  const cutoff = options.now.getTime() - days * 86_400_000;
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  const kept = lines.filter((line) => {
    try {
      const ts = Date.parse(JSON.parse(line).ts);
      return Number.isFinite(ts) && ts >= cutoff;
    } catch {
      return false;
    }
  });
  if (kept.length === lines.length) return { kept: kept.length, removed: 0 };
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, kept.map((l) => `${l}\n`).join(""), { mode: 0o600 });
  // Someone appended meanwhile: keep their line, prune another time.
  if (statSync(path).size !== Buffer.byteLength(text)) {
    rmSync(tmp, { force: true });
    return { kept: lines.length, removed: 0 };
  }
  renameSync(tmp, path);
  return { kept: kept.length, removed: lines.length - kept.length };
}
