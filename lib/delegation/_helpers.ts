/**
 * Small helpers of the delegation service: a task's log, error text, and what a task's
 * identifier and endpoint say.
 * @module
 */
import { nodeFs } from "../core/system/mod.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Appends to a task's log; a log that cannot be written loses the line, not the task. */
export function appendLog(path: string, text: string): void {
  try {
    nodeFs().appendFileSync(path, text, { mode: 0o600 });
  } catch { /* nowhere else to say it */ }
}

/** What to do when a write under OBSERVAL_HOME fails. */
export function spaceRemediation(home: string): string {
  return `Check that ${home} is writable and its disk has free space, then run it again`;
}

/** The registry agent id in `urn:air:<publisher>:agent:<uuid>`. */
export function agentIdOf(identifier: string): string | undefined {
  const parts = identifier.split(":");
  return parts.length === 5 && parts[3] === "agent" && UUID.test(parts[4]) ? parts[4] : undefined;
}

/** `host:port` for a URL, and the bare host when it is a name that must be resolved. */
export function netPermissions(url: string): string[] {
  if (!URL.canParse(url)) return [];
  const u = new URL(url);
  const hostPort = `${u.hostname}:${u.port || (u.protocol === "https:" ? "443" : "80")}`;
  const literal = /^[\d.]+$/.test(u.hostname) || u.hostname.startsWith("[");
  return literal ? [hostPort] : [hostPort, u.hostname];
}
