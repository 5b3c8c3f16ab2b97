/**
 * Which resident runner may run a caller's command: the one started by a caller identical
 * to it. Its socket is named by a digest of the build, the user, the machine's name, the
 * permissions and the whole environment but for the working folder, which every request
 * carries; a caller that differs in any of them finds no runner, and runs the command
 * itself. The runner checks the rest itself, for each caller (`processFacts`: cgroup,
 * namespaces, limits, umask, capabilities, ...), since a caller can read its own only by
 * starting a program, which would cost every command that looks for a runner.
 *
 * The socket lives in a folder of `/tmp` that only its user may enter, as tmux's and
 * ssh-agent's do. A sandboxed agent sees a private `/tmp`, so no runner outside its
 * sandbox is within its reach.
 *
 * No zod here: this loads before the CLI, in every `delegate run`.
 * @module
 */
import {
  buildStamp,
  definedEnv,
  grantedPermissions,
  hostUid,
  localSocketsHere,
  lstatPath,
  machineName,
} from "../core/system/mod.ts";

/** This module's URL; none in a CommonJS bundle (the Node single executable). */
const HERE = (import.meta as { url?: string }).url ?? "";

/** `OBSERVAL_RESIDENT`: `auto` (the default), `on` or `off`. */
export const RESIDENT_MODES = ["auto", "on", "off"] as const;

/** The permissions a runner needs, all of which its caller must hold whole. */
const NEEDED = ["read", "write", "net", "env", "run", "sys"];

/** The variables left out of the digest: each request brings its own. */
const PER_REQUEST = new Set(["PWD", "OLDPWD"]);

/** Where a runner for callers like this one listens. */
export interface ResidentPlace {
  /** The folder of this user's runners: `/tmp/observal-resident-<uid>`. */
  dir: string;
  /**
   * `<home>-<digest>`: a tag of the caller's observal home (so that runners can be counted
   * per home), then the digest of all it must share with the runner's caller.
   */
  name: string;
  /** The home's tag, which every runner of that home's name starts with. */
  home: string;
  socket: string;
  lock: string;
  log: string;
}

/** Whether argv is a command a runner takes: `delegate run`, reading nothing from stdin. */
export function residentCommand(argv: readonly string[]): boolean {
  return argv[0] === "delegate" && argv[1] === "run" && !argv.includes("-");
}

/**
 * Why a runner may not be used here, or undefined when it may: `OBSERVAL_RESIDENT`, the
 * runtime and system, the permissions. `auto` uses one only for a person at a terminal
 * (stdin and stderr), outside CI, and not from a source checkout, whose code a runner
 * would keep serving after it changed.
 */
export function residentRefusal(
  env: Readonly<Record<string, string | undefined>>,
  facts: { terminal: boolean; fromSource: boolean },
): string | undefined {
  const mode = env.OBSERVAL_RESIDENT?.trim() || "auto";
  if (!(RESIDENT_MODES as readonly string[]).includes(mode)) {
    return `OBSERVAL_RESIDENT is ${mode}, not one of ${RESIDENT_MODES.join(", ")}`;
  }
  if (mode === "off") return "OBSERVAL_RESIDENT is off";
  if (!localSocketsHere()) return "a resident runner needs Linux";
  const granted = grantedPermissions();
  const missing = NEEDED.filter((p) => !granted.includes(p));
  if (missing.length) return `this process lacks the ${missing.join(", ")} permissions`;
  if (mode === "auto") {
    if (env.CI) return "CI is set (OBSERVAL_RESIDENT=on uses one all the same)";
    if (!facts.terminal) return "not run from a terminal (OBSERVAL_RESIDENT=on uses one)";
    if (facts.fromSource) return "run from a source checkout (OBSERVAL_RESIDENT=on uses one)";
  }
  return undefined;
}

/** The place of the runner for a caller with `env` in this process's build. */
export async function residentPlace(
  env: Readonly<Record<string, string | undefined>>,
): Promise<ResidentPlace> {
  const vars = Object.entries(definedEnv(env))
    .filter(([name]) => !PER_REQUEST.has(name))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const uid = hostUid();
  const input = JSON.stringify([
    "observal-resident/1",
    buildStamp(HERE),
    uid,
    machineName(),
    grantedPermissions(),
    vars,
  ]);
  const [digest, home] = await Promise.all([
    hex(input, 16),
    hex(env.OBSERVAL_HOME ?? env.HOME ?? "", 4),
  ]);
  const dir = `/tmp/observal-resident-${uid}`;
  const name = `${home}-${digest}`;
  return {
    dir,
    name,
    home,
    socket: `${dir}/${name}.sock`,
    lock: `${dir}/${name}.lock`,
    log: `${dir}/${name}.log`,
  };
}

/** The first `bytes` of the SHA-256 of `text`, in hex. */
async function hex(text: string, bytes: number): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(hash).subarray(0, bytes)]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * Whether `path` is a folder of this user's that no one else may enter (not a link): the
 * only kind that may hold a runner's socket.
 */
export function isPrivateFolder(path: string): boolean {
  const stat = lstatPath(path);
  return Boolean(
    stat?.isDirectory && stat.uid === hostUid() && ((stat.mode ?? 0o777) & 0o777) === 0o700,
  );
}

/** Whether this module runs from a source checkout (not a bundle, binary or package). */
export function runsFromSource(): boolean {
  return HERE.endsWith("/lib/resident/identity.ts");
}
