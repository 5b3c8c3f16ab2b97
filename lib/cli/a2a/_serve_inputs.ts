/**
 * What `observal a2a serve` reads and checks before it listens: the Agents it may serve,
 * the bearer token, the repository, and the folders its runs use.
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, statSync } from "node:fs";
import process from "node:process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { A2A_AGENT_CARD_MEDIA_TYPE } from "../../a2a/cards/mod.ts";
import { ObservalError, readPrivateFile } from "../../core/mod.ts";
import { checkApproved } from "../../delegation/mod.ts";
import type { EntryDocument, RegistryClient } from "../../registry/mod.ts";
import { isLoopback } from "../listen.ts";

/** Most Agents one server serves. */
const MAX_AGENTS = 16;

/** The --agent values given: at least one, at most {@linkcode MAX_AGENTS}, none twice. */
export function agentRefs(flag: unknown): string[] {
  const refs = (Array.isArray(flag) ? flag : flag === undefined ? [] : [flag])
    .map(String).filter((r) => r.trim() !== "");
  if (refs.length === 0) {
    throw new ObservalError("INVALID_ARGUMENT", "Name the registry Agent to serve", {
      remediation: "Pass --agent <identifier> (see `observal delegate find`); repeat it to " +
        "serve several",
    });
  }
  if (refs.length > MAX_AGENTS) {
    throw new ObservalError("INVALID_ARGUMENT", `One server serves at most ${MAX_AGENTS} Agents`, {
      remediation: "Start another `observal a2a serve` on another port for the rest",
    });
  }
  return refs;
}

/** Each reference resolved to an approved registry Agent (not a remote one), none twice. */
export async function servableEntries(
  registry: RegistryClient,
  refs: string[],
): Promise<EntryDocument[]> {
  const entries: EntryDocument[] = [];
  for (const ref of refs) {
    const entry = await registry.resolveEntry(ref).catch((err) => {
      if (err instanceof ObservalError && err.code === "NOT_FOUND") {
        throw new ObservalError("NOT_FOUND", `No agent "${ref}" in the registry`, {
          remediation: "Find one with `observal delegate find <what you need>`",
          resource: ref,
        });
      }
      throw err;
    });
    if (entry.type === A2A_AGENT_CARD_MEDIA_TYPE) {
      throw new ObservalError(
        "INVALID_ARGUMENT",
        `${entry.displayName ?? ref} is a remote A2A agent; only registry Agents are served`,
        { remediation: "Its clients can call it at its own endpoint" },
      );
    }
    checkApproved(entry, ref);
    if (entries.some((e) => e.identifier === entry.identifier)) {
      throw new ObservalError("INVALID_ARGUMENT", `${ref} is named twice`, {
        remediation: "Pass each Agent once",
      });
    }
    entries.push(entry);
  }
  return entries;
}

/** The variable holding host=address pairs used instead of DNS, as for agent endpoints. */
export const RESOLVE_VARIABLE = "OBSERVAL_A2A_RESOLVE";

/**
 * The webhook hosts allowed to be private: the registry's `discovery.a2a_private_hosts`
 * as it stands now (read at each use, so removing a host takes effect at once; a user
 * who may not read it gets none). Loopback hosts count only while this server listens on
 * loopback: one that other machines reach must not post to services on its own host.
 */
export async function webhookPrivateHosts(
  registry: RegistryClient,
  host: string,
): Promise<string[]> {
  let hosts: string[];
  try {
    const { items } = await registry.settings();
    const value = items.find((i) => i.key === "discovery.a2a_private_hosts")?.value;
    hosts = Array.isArray(value) ? value.filter((h): h is string => typeof h === "string") : [];
  } catch {
    return [];
  }
  return isLoopback(host) ? hosts : hosts.filter((h) => !isLoopback(h.replace(/^\[|\]$/g, "")));
}

/** Shortest token taken: a guessable one would open the Agent to anyone who can reach it. */
const MIN_TOKEN_CHARS = 16;

/** The bearer token in `file`: private to the user, one line, long enough. */
export function readToken(file: string): string {
  const text = readPrivateFile(file, "token-file", "the token");
  const token = text.trim();
  if (token.length < MIN_TOKEN_CHARS || /\s/.test(token)) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `--token-file ${file} must hold one token of at least ${MIN_TOKEN_CHARS} characters`,
      { remediation: "Write a long random one, e.g. `openssl rand -hex 32 > FILE`" },
    );
  }
  return token;
}

/** The repository the runs copy, checked to be a folder. */
export function repoFolder(dir: string): string {
  try {
    if (statSync(dir).isDirectory()) return realpathSync(dir);
  } catch { /* said below */ }
  throw new ObservalError("INVALID_ARGUMENT", `--repo ${dir} is not a folder`, {
    remediation: "Pass the path of a git repository",
  });
}

/** The top of the git repository `dir` is in, or undefined outside one. */
export function gitTop(dir: string): string | undefined {
  try {
    const top = execFileSync("git", ["rev-parse", "--show-toplevel"], {
      cwd: dir,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return realpathSync(top.trim());
  } catch {
    return undefined;
  }
}

/**
 * This server's folder for the trees it rebuilds from callers' repository states, under
 * the home's `delegations/incoming/`; folders a server that died left behind (named for
 * its pid) are removed first.
 */
export function stateFolder(home: string): string {
  const root = join(home, "delegations", "incoming");
  mkdirSync(root, { recursive: true, mode: 0o700 });
  for (const name of readdirSync(root)) {
    const pid = Number(/^serve-(\d+)-/.exec(name)?.[1]);
    if (pid && pid !== process.pid && !alive(pid)) {
      rmSync(join(root, name), { recursive: true, force: true });
    }
  }
  return mkdtempSync(join(root, `serve-${process.pid}-`));
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it lives, as another user's process.
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** An empty folder outside any repository, for runs without --repo. */
export function emptyFolder(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "observal-serve-")));
  let inside = false;
  try {
    execFileSync("git", ["rev-parse", "--show-toplevel"], { cwd: dir, stdio: "ignore" });
    inside = true;
  } catch { /* not in a repository, or no git: an empty folder either way */ }
  if (inside) {
    rmSync(dir, { recursive: true, force: true });
    throw new ObservalError(
      "FAILED_PRECONDITION",
      `The temporary folder ${tmpdir()} is inside a git repository`,
      { remediation: "Pass --repo, or set TMPDIR to a folder outside any repository" },
    );
  }
  return dir;
}
