/**
 * Whether a harness child runs sandboxed: the `sandbox` setting (`auto`, `on`, `off`) and a
 * probe of what this machine offers, run once and cached under `OBSERVAL_HOME`.
 * @module
 */
import { z } from "zod";
import {
  hostOsRelease,
  hostPlatform,
  hostUid,
  join,
  nodeChildProcess,
  readText,
  realPath,
  statPath,
  writeText,
} from "../core/system/mod.ts";
import { type Env, ObservalError } from "../core/mod.ts";
import { findExecutable } from "../process/find_executable.ts";
import { bwrapProbeArgv } from "./bwrap.ts";
import { SANDBOX_EXEC } from "./seatbelt.ts";

/** The setting: `auto` sandboxes where it works, `on` refuses to run without, `off` never. */
export const SandboxModeSchema = z.enum(["auto", "on", "off"]);
export type SandboxMode = z.infer<typeof SandboxModeSchema>;

/**
 * How a run is sandboxed: bubblewrap, Seatbelt, inside the sandbox of the task that
 * delegated it (`inherited`), or not at all.
 */
export type SandboxKind = "bwrap" | "seatbelt" | "inherited" | "none";

/** Set in a sandboxed child's environment, so a delegation from inside it does not nest. */
export const SANDBOXED_ENV = "OBSERVAL_SANDBOXED";

/** What this machine offers. */
export interface SandboxProbe {
  kind: SandboxKind;
  /** The program that applies it (bwrap, sandbox-exec). */
  tool?: string;
  /** Why it is what it is, in a sentence (what to install when there is none). */
  reason: string;
  /**
   * The sandbox program is there, but this process may not run it (its permissions were
   * fixed before it was installed): whether a sandbox works here is unknown, so even
   * `auto` refuses.
   */
  denied?: boolean;
}

/** What a run gets, and why. */
export interface SandboxChoice extends SandboxProbe {
  mode: SandboxMode;
}

/**
 * The mode in force: `--sandbox`, then `OBSERVAL_SANDBOX`, then `sandbox` in config.json;
 * `auto` by default.
 *
 * @throws {ObservalError} INVALID_ARGUMENT for a value that is not auto, on or off
 */
export function sandboxMode(
  flag: string | undefined,
  env: Env,
  config: { sandbox?: unknown },
): SandboxMode {
  const sources: [string, unknown][] = [
    ["--sandbox", flag],
    ["OBSERVAL_SANDBOX", env.OBSERVAL_SANDBOX],
    ["sandbox in config.json", config.sandbox],
  ];
  for (const [where, raw] of sources) {
    if (raw === undefined || raw === "") continue;
    const parsed = SandboxModeSchema.safeParse(typeof raw === "string" ? raw.trim() : raw);
    if (parsed.success) return parsed.data;
    throw new ObservalError("INVALID_ARGUMENT", `${where} is "${String(raw)}"`, {
      remediation: "Use auto, on or off",
    });
  }
  return "auto";
}

const ProbeCacheSchema = z.object({
  key: z.string(),
  ok: z.boolean(),
  reason: z.string(),
});

/** The probe's cache file: one answer per bwrap build, kernel and user. */
export function probeCachePath(home: string): string {
  return join(home, "sandbox-probe.json");
}

/** Whether this process runs inside the sandbox of a task that delegated to it. */
function insideOurSandbox(env: Env): boolean {
  if (env[SANDBOXED_ENV] !== "bwrap") return false;
  // The variable alone could be set by anyone; the namespace's first process says so too.
  try {
    return readText("/proc/1/comm").trim() === "bwrap";
  } catch {
    return false;
  }
}

function linuxProbe(home: string, env: Env): SandboxProbe {
  if (insideOurSandbox(env)) {
    return {
      kind: "inherited",
      reason: "already inside the sandbox of the task that delegated this one",
    };
  }
  const bwrap = findExecutable("bwrap", { path: env.PATH ?? "" });
  if (!bwrap) {
    return {
      kind: "none",
      reason: "bubblewrap is not installed (no bwrap on PATH): install the bubblewrap package",
    };
  }
  const real = realPath(bwrap) ?? bwrap;
  const st = statPath(real);
  const root = hostUid() === 0;
  let release = "";
  try {
    // Not /proc/sys/kernel/osrelease: under Deno only --allow-all may read /proc/sys.
    release = hostOsRelease();
  } catch { /* not allowed: the key just carries less */ }
  const key = JSON.stringify([real, st?.mode, release, hostUid()]);
  const cache = probeCachePath(home);
  try {
    const cached = ProbeCacheSchema.parse(JSON.parse(readText(cache)));
    if (cached.key === key) return probeAnswer(cached.ok, bwrap, cached.reason);
  } catch { /* no cache, or an old one: probe */ }
  const truePath = findExecutable("true", { path: "/usr/bin:/bin" }) ?? "/bin/true";
  const [command, ...args] = bwrapProbeArgv(bwrap, root, truePath);
  let ok = false;
  let reason = "";
  try {
    const r = nodeChildProcess().spawnSync(command, args, {
      encoding: "utf8",
      timeout: 10_000,
      stdio: ["ignore", "ignore", "pipe"],
    });
    // Deno answers a program its permissions refuse with an empty result, and no error.
    if (r.status == null && r.signal == null && !r.error) {
      return {
        kind: "none",
        tool: bwrap,
        denied: true,
        reason: `bubblewrap is installed (${bwrap}), but this observal may not run it`,
      };
    }
    ok = r.status === 0;
    reason = ok ? "" : (r.stderr || r.error?.message || `exit ${r.status}`).trim().slice(0, 300);
  } catch (err) {
    reason = (err as Error).message;
  }
  try {
    writeText(cache, `${JSON.stringify({ key, ok, reason })}\n`, 0o600);
  } catch { /* a read-only home probes again next time */ }
  return probeAnswer(ok, bwrap, reason);
}

function probeAnswer(ok: boolean, bwrap: string, reason: string): SandboxProbe {
  return ok ? { kind: "bwrap", tool: bwrap, reason: `bubblewrap works here (${bwrap})` } : {
    kind: "none",
    tool: bwrap,
    reason: `bubblewrap cannot start a sandbox here (${reason}): ` +
      "allow unprivileged user namespaces (kernel.unprivileged_userns_clone=1, or an " +
      "AppArmor profile for bwrap)",
  };
}

/**
 * What this machine offers for sandboxing a harness child. Linux runs bubblewrap once
 * with the flags a real run uses and caches the answer; macOS has `sandbox-exec`.
 *
 * @param home `OBSERVAL_HOME`, where the answer is cached
 * @param env the caller's environment (PATH)
 */
export function probeSandbox(home: string, env: Env): SandboxProbe {
  const platform = hostPlatform();
  if (platform === "linux") return linuxProbe(home, env);
  if (platform === "darwin") {
    return statPath(SANDBOX_EXEC)
      ? {
        kind: "seatbelt",
        tool: SANDBOX_EXEC,
        reason: "macOS Seatbelt (sandbox-exec); not verified by observal's tests",
      }
      : { kind: "none", reason: `${SANDBOX_EXEC} is missing` };
  }
  return { kind: "none", reason: `observal has no sandbox for ${platform}` };
}

/**
 * The sandbox a run gets under `mode`.
 *
 * @throws {ObservalError} FAILED_PRECONDITION when the mode is `on` and there is none
 */
export function chooseSandbox(mode: SandboxMode, probe: () => SandboxProbe): SandboxChoice {
  if (mode === "off") {
    return { mode, kind: "none", reason: "the sandbox setting is off" };
  }
  const found = probe();
  if (found.kind === "none" && found.denied) {
    throw new ObservalError(
      "FAILED_PRECONDITION",
      `Whether a sandbox works here is unknown: ${found.reason}`,
      {
        remediation: "Run `observal mcp install` (or `observal agent pull`) again, so that the " +
          "entry that starts observal lets it run bubblewrap; or delegate with --sandbox off",
      },
    );
  }
  if (found.kind === "none" && mode === "on") {
    throw new ObservalError(
      "FAILED_PRECONDITION",
      `The sandbox is required (sandbox = on), but ${found.reason}`,
      {
        remediation: hostPlatform() === "linux"
          ? "Install bubblewrap (apt-get install bubblewrap, dnf install bubblewrap), or run " +
            "with --sandbox auto"
          : "Run with --sandbox auto or off on this system",
      },
    );
  }
  return { mode, ...found };
}
