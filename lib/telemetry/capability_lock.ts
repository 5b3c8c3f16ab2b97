/**
 * The capability lock: an append-only JSON Lines log of agents and tools used, which
 * session uploads attach to the caller's session. Delegations add `mode: "delegated"`.
 * @module
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { join } from "node:path";
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
