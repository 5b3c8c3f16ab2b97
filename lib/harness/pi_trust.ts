/**
 * Whether Pi already trusts a directory. A headless Pi run executes the project's own
 * `.pi` extensions and package installs, and the workspace is a copy of the caller's
 * repository, so a delegated Pi agent runs only where Pi itself was told to trust it.
 * @module
 */
import { z } from "zod";
import { dirname, isAbsolute, join, readHead, resolve } from "../core/system/mod.ts";
import type { Env } from "../core/mod.ts";

/** Pi's answer for one directory, and where it came from. */
export interface PiTrust {
  trusted: boolean;
  /** The trust.json entry that decided, or "defaultProjectTrust", or "none". */
  source: string;
  /** Pi's agent directory that was read. */
  agentDir: string;
}

const TrustFileSchema = z.record(z.string(), z.boolean());
const SettingsSchema = z.looseObject({ defaultProjectTrust: z.unknown().optional() });
const MAX_FILE_BYTES = 1024 * 1024;

/** A JSON file's value; undefined when it is missing, larger than the bound or malformed. */
function readJson(path: string): unknown {
  // One byte past the bound tells a file that is too large without reading all of it.
  const bytes = readHead(path, MAX_FILE_BYTES + 1);
  if (!bytes || bytes.length > MAX_FILE_BYTES) return undefined;
  try {
    // A byte-order mark stays, and fails the parse, as it does where Pi reads the file.
    return JSON.parse(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes));
  } catch {
    return undefined;
  }
}

/**
 * The folder to trust for `dir`. `a2a serve` rebuilds each caller's tree in a new folder
 * under the home's `delegations/incoming/` (`serve-<pid>-…`), which nobody can name ahead
 * of time: trusting `incoming` itself trusts every tree it will rebuild (the nearest
 * decision among the parents wins, for Pi as here).
 */
function trustTarget(dir: string): string {
  return /^(.*[\\/]delegations[\\/]incoming)[\\/]serve-\d+-[^\\/]+(?:[\\/]|$)/.exec(dir)?.[1] ??
    dir;
}

/** Pi's agent directory: `PI_CODING_AGENT_DIR` (with `~` expanded), else `~/.pi/agent`. */
export function piAgentDir(env: Env): string {
  const home = env.HOME || env.USERPROFILE || "/";
  const set = env.PI_CODING_AGENT_DIR?.trim();
  if (set) {
    const expanded = set === "~" ? home : set.startsWith("~/") ? join(home, set.slice(2)) : set;
    return isAbsolute(expanded) ? expanded : resolve(home, expanded);
  }
  return join(home, ".pi", "agent");
}

/**
 * Pi's trust decision for `dir`: the nearest decision in `<agentDir>/trust.json` among
 * `dir` and its parents wins (a `false` on the repository beats a `true` on a parent);
 * with none, `defaultProjectTrust: "always"` in `<agentDir>/settings.json` trusts it.
 * Anything unreadable or malformed counts as no trust.
 *
 * @param dir the caller's directory (resolved here)
 * @param env where PI_CODING_AGENT_DIR and HOME come from
 * @returns whether Pi trusts it and why
 *
 * @example
 * ```ts
 * piTrust("/home/u/repo", { HOME: "/home/u" }).trusted; // false unless Pi was told so
 * ```
 */
export function piTrust(dir: string, env: Env): PiTrust {
  const agentDir = piAgentDir(env);
  const decisions = TrustFileSchema.safeParse(readJson(join(agentDir, "trust.json")));
  if (decisions.success) {
    const entries = new Map(
      Object.entries(decisions.data).map(([k, v]) => [resolve(k), v] as const),
    );
    for (let at = resolve(dir);; at = dirname(at)) {
      const decision = entries.get(at);
      if (decision !== undefined) return { trusted: decision, source: at, agentDir };
      if (dirname(at) === at) break;
    }
  }
  const settings = SettingsSchema.safeParse(readJson(join(agentDir, "settings.json")));
  if (settings.success && settings.data.defaultProjectTrust === "always") {
    return { trusted: true, source: "defaultProjectTrust", agentDir };
  }
  return { trusted: false, source: "none", agentDir };
}

/**
 * How to make Pi trust `dir`, as one instruction naming Pi's own trust file and the entry
 * to set there (Pi has no command for it): change the `false` that decided, or add one.
 *
 * @param dir the directory that should be trusted (resolved here)
 * @param trust what {@linkcode piTrust} answered for it
 * @returns a sentence without a final period
 *
 * @example
 * ```ts
 * piTrustFix("/home/u/repo", { trusted: false, source: "none", agentDir: "/home/u/.pi/agent" });
 * // 'If you trust /home/u/repo, add "/home/u/repo": true to /home/u/.pi/agent/trust.json ...'
 * ```
 */
export function piTrustFix(dir: string, trust: PiTrust): string {
  const file = join(trust.agentDir, "trust.json");
  const at = trustTarget(resolve(dir));
  if (isAbsolute(trust.source)) {
    return `If you trust ${at}, change "${trust.source}": false to true in ${file}`;
  }
  return `If you trust ${at}, add "${at}": true to ${file} (a JSON object of folder paths; ` +
    `create it if it is missing)`;
}
