/**
 * `$OBSERVAL_HOME/lockfile.json`: which agents this machine pulled, from which registry,
 * into which harness and directory, at which version and digest. `observal agent pull` is
 * the only writer.
 * @module
 */
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ObservalError, type ServerTarget } from "../../core/mod.ts";
import { writeFileAtomic } from "../../harness/mod.ts";

/** One pulled agent. */
export const LockedAgentSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string(),
  qualified_name: z.string().optional(),
  version: z.string(),
  scope: z.enum(["project", "user"]),
  /** The target directory of the pull (absolute). */
  directory: z.string(),
  local_name: z.string(),
  lock_digest: z.string().optional(),
  pulled_at: z.string(),
});
/** One pulled agent. */
export type LockedAgent = z.infer<typeof LockedAgentSchema>;

const HarnessLockSchema = z.looseObject({ agents: z.array(LockedAgentSchema) });

/** The whole lockfile; unknown keys (from newer versions) are kept. */
export const LockfileSchema = z.looseObject({
  lock_version: z.literal(2),
  updated_at: z.string(),
  registries: z.record(
    z.string(),
    z.looseObject({
      server_url: z.string().optional(),
      harnesses: z.record(z.string(), HarnessLockSchema),
    }),
  ),
});
/** The whole lockfile. */
export type Lockfile = z.infer<typeof LockfileSchema>;

/** The lockfile's path. */
export function lockfilePath(home: string): string {
  return join(home, "lockfile.json");
}

/**
 * The key a registry is recorded under: its URL with scheme and host lower-cased, default
 * port and trailing slash dropped; `embedded` for the registry in OBSERVAL_HOME.
 */
export function registryKey(target: ServerTarget): string {
  if (target.kind === "embedded") return "embedded";
  const url = new URL(target.url);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, "")}`;
}

/**
 * Reads the lockfile; a missing one is empty.
 *
 * @throws {ObservalError} FAILED_PRECONDITION when it is unreadable, not JSON, or of
 *   another lock version, so a pull stops before writing any file
 */
export function readLockfile(home: string): Lockfile {
  const path = lockfilePath(home);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") {
      return { lock_version: 2, updated_at: "", registries: {} };
    }
    throw new ObservalError("UNAVAILABLE", `Cannot read ${path}`, { cause: err, resource: path });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  const parsed = LockfileSchema.safeParse(json);
  if (!parsed.success) {
    throw new ObservalError(
      "FAILED_PRECONDITION",
      `${path} is not a lockfile this version of observal can update`,
      {
        remediation: `Nothing was written. Fix ${path} or move it aside, then pull again`,
        resource: path,
      },
    );
  }
  return parsed.data;
}

/**
 * Records a pulled agent, replacing its earlier entry: the same id and directory at
 * project scope, the same id at user scope.
 *
 * @returns a new lockfile; the given one is not changed
 */
export function upsertLockedAgent(
  lock: Lockfile,
  where: { registry: string; serverUrl?: string; harness: string },
  entry: LockedAgent,
  now: string,
): Lockfile {
  const registries = structuredClone(lock.registries);
  const registry = registries[where.registry] ??= {
    ...(where.serverUrl ? { server_url: where.serverUrl } : {}),
    harnesses: {},
  };
  const harness = registry.harnesses[where.harness] ??= { agents: [] };
  const same = (a: LockedAgent) =>
    a.id === entry.id && a.scope === entry.scope &&
    (entry.scope === "user" || a.directory === entry.directory);
  const index = harness.agents.findIndex(same);
  if (index === -1) harness.agents.push(entry);
  else harness.agents[index] = entry;
  return { ...lock, lock_version: 2, updated_at: now, registries };
}

/** Writes the lockfile atomically, creating OBSERVAL_HOME (private) when needed. */
export function writeLockfile(home: string, lock: Lockfile): void {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileAtomic(lockfilePath(home), `${JSON.stringify(lock, null, 2)}\n`, { mode: 0o600 });
}

/**
 * Local names already taken in a harness by other agents: at project scope those pulled
 * into the same directory, at user scope those pulled at user scope.
 */
export function takenLocalNames(
  lock: Lockfile,
  harness: string,
  agentId: string,
  scope: "project" | "user",
  directory: string,
): Set<string> {
  const taken = new Set<string>();
  for (const registry of Object.values(lock.registries)) {
    for (const a of registry.harnesses[harness]?.agents ?? []) {
      if (a.id === agentId || a.scope !== scope) continue;
      if (scope === "project" && a.directory !== directory) continue;
      taken.add(a.local_name);
    }
  }
  return taken;
}
