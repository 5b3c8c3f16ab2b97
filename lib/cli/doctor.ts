/**
 * `observal doctor`: what this machine can do and what is in the way, each problem with its
 * fix — the runtime, OBSERVAL_HOME and its store, the registry and the key, the harnesses
 * that can run agents headless, whether each harness's observal-agents entry really
 * launches (it is started and asked for its tools), and Pi's trust in this repository.
 * @module
 */
import { spawnSync } from "node:child_process";
import process from "node:process";
import { type Context, runtimeName, serverTarget, toObservalError } from "../core/mod.ts";
import { findExecutable } from "../process/mod.ts";
import type { Command } from "./command.ts";
import { printJson, say } from "./output.ts";

/** One finding. */
export interface Check {
  check: string;
  status: "ok" | "problem" | "info";
  detail: string;
  fix?: string;
}

/** The oldest Node the npm package runs on. */
const MIN_NODE = [22, 13] as const;

function newEnough(version: string): boolean {
  const [major, minor] = version.replace(/^v/, "").split(".").map(Number);
  return major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
}

function versionOf(binary: string, ctx: Context): string | undefined {
  try {
    const r = spawnSync(binary, ["--version"], {
      cwd: ctx.cwd,
      env: ctx.env as Record<string, string>,
      encoding: "utf8",
      timeout: 10_000,
      stdio: ["ignore", "pipe", "pipe"],
    });
    const line = `${r.stdout ?? ""}`.trim().split("\n")[0];
    return r.status === 0 && line ? line : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The node that comes first on PATH, which the `observal` command of an npm install runs
 * on. On Deno (from source, or a binary) observal never runs on it, so an old one is worth
 * knowing, not a problem.
 */
export function nodeOnPathCheck(node: string, version: string, onDeno: boolean): Check {
  const ok = newEnough(version);
  return {
    check: "node on PATH",
    status: ok ? "ok" : onDeno ? "info" : "problem",
    detail: `${node} is ${version}${
      ok || !onDeno ? "" : "; this observal runs on Deno, not on it"
    }`,
    fix: ok ? undefined : `Put Node ${MIN_NODE.join(".")} or newer first on PATH; the ` +
      "`observal` command of an npm install runs on it (configs observal writes name their " +
      "own Node and are not affected)",
  };
}

function runtimeChecks(ctx: Context): Check[] {
  const checks: Check[] = [];
  const deno = (globalThis as { Deno?: unknown }).Deno !== undefined;
  checks.push({
    check: "runtime",
    status: deno || newEnough(process.versions.node) ? "ok" : "problem",
    detail: runtimeName(),
    fix: deno || newEnough(process.versions.node)
      ? undefined
      : `Run observal with Node ${MIN_NODE.join(".")} or newer`,
  });
  // The `observal` command of an npm install runs on whichever node comes first on PATH.
  const node = findExecutable("node", { path: ctx.env.PATH });
  const version = node ? versionOf(node, ctx) : undefined;
  if (node && version) checks.push(nodeOnPathCheck(node, version, deno));
  return checks;
}

async function storeCheck(ctx: Context): Promise<Check> {
  const { openTaskStore } = await import("../store/mod.ts");
  try {
    const store = openTaskStore({ home: ctx.home, clock: ctx.clock });
    try {
      const { total } = store.list({ limit: 1 });
      return { check: "store", status: "ok", detail: `${ctx.home} (${total} delegated tasks)` };
    } finally {
      store.close();
    }
  } catch (err) {
    const e = toObservalError(err);
    return {
      check: "store",
      status: "problem",
      detail: e.message,
      fix: e.remediation ?? `Check that ${ctx.home} is writable, or set OBSERVAL_HOME`,
    };
  }
}

async function registryCheck(ctx: Context): Promise<Check> {
  let target;
  try {
    target = serverTarget(ctx);
  } catch (err) {
    const e = toObservalError(err);
    return { check: "registry", status: "problem", detail: e.message, fix: e.remediation };
  }
  if (target.kind === "embedded") {
    return { check: "registry", status: "ok", detail: `embedded, in ${ctx.home}/registry.db` };
  }
  const { openRegistryClient } = await import("./open_registry_client.ts");
  const client = openRegistryClient(ctx);
  try {
    // Listing imports needs a signed-in caller: it tells a rejected key from none.
    await client.listImports();
    return { check: "registry", status: "ok", detail: `${target.url}, key accepted` };
  } catch (err) {
    const e = toObservalError(err);
    if (e.code === "UNAUTHENTICATED" && !target.apiKey) {
      return {
        check: "registry",
        status: "problem",
        detail: `${target.url}, not signed in: searches see only public entries`,
        fix: "Set OBSERVAL_API_KEY (or api_key in $OBSERVAL_HOME/config.json) to your API key",
      };
    }
    if (e.code === "UNAUTHENTICATED" || e.code === "PERMISSION_DENIED") {
      return {
        check: "registry",
        status: "problem",
        detail: `${target.url} rejected the API key: ${e.message}`,
        fix: "Set OBSERVAL_API_KEY to a valid key; an admin issues one with " +
          "`observal registry user key <handle>`",
      };
    }
    return { check: "registry", status: "problem", detail: e.message, fix: e.remediation };
  } finally {
    client.close();
  }
}

async function harnessChecks(ctx: Context): Promise<Check[]> {
  const { harnessOptions } = await import("../runner/runnable/mod.ts");
  const { findDelegationEntry, getHarness, HARNESS_KEYS, headlessVerdict, piTrust, piTrustFix } =
    await import("../harness/mod.ts");
  const { probeMcpServer } = await import("../mcp/probe_server.ts");
  const checks: Check[] = [];
  const options = harnessOptions(ctx.env, ctx.cwd);
  for (const o of options) {
    checks.push(
      o.binary
        ? {
          check: `harness ${o.key}`,
          status: "ok",
          detail: `${o.binary} (${versionOf(o.binary, ctx) ?? "version unknown"})`,
        }
        : {
          check: `harness ${o.key}`,
          status: "info",
          detail: `cannot run here: ${o.unavailable}`,
          fix: o.fix ?? `Install ${o.name} so that ${o.program} is on PATH, to delegate with it`,
        },
    );
  }
  if (!options.some((o) => o.binary)) {
    checks.push({
      check: "harnesses",
      status: "problem",
      detail: "no harness can run a registry Agent headless here",
      fix: `Install one of: ${options.map((o) => `${o.name} (${o.program})`).join(", ")}`,
    });
  }
  for (const key of HARNESS_KEYS) {
    const facts = getHarness(key);
    for (const scope of ["project", "user"] as const) {
      let found;
      try {
        found = findDelegationEntry(key, scope, ctx.env, ctx.cwd);
      } catch {
        continue; // No such config for this harness at this scope.
      }
      if (found.scope !== scope) continue; // The same file as the other scope.
      const name = `observal-agents in ${found.path}`;
      const reinstall = `observal mcp install --harness ${key} --scope ${scope}`;
      if (found.error) {
        checks.push({
          check: name,
          status: "problem",
          detail: found.error,
          fix: `Fix the file, then ${reinstall}`,
        });
        continue;
      }
      if (!found.entry) continue;
      const probe = await probeMcpServer({
        command: found.entry.command,
        args: found.entry.args,
        env: { ...ctx.env, ...found.entry.env },
        cwd: ctx.cwd,
      });
      checks.push(
        probe.ok && probe.tools.includes("delegate")
          ? {
            check: name,
            status: "ok",
            detail: `${facts.display_name}: launches, ${probe.tools.length} tools`,
          }
          : {
            check: name,
            status: "problem",
            detail: `${facts.display_name}: ${found.entry.command} does not start the server: ${
              probe.ok ? "it offers no delegate tool" : probe.error
            }`,
            fix: `Run \`${reinstall}\` to point it at this observal`,
          },
      );
      // Launching is not enough: a headless run must also be let call delegate.
      const verdict = headlessVerdict(key, scope, found.raw, ctx.env, ctx.cwd);
      if (verdict) {
        checks.push({
          check: `headless ${key}`,
          status: verdict.allowed ? "ok" : verdict.ignored ? "problem" : "info",
          detail: verdict.detail,
          fix: verdict.fix,
        });
      }
    }
  }
  if (options.find((o) => o.key === "pi" && (o.binary || o.fix))) {
    const trust = piTrust(ctx.cwd, ctx.env);
    checks.push({
      check: "pi trust",
      status: trust.trusted ? "ok" : "info",
      detail: trust.trusted
        ? `Pi trusts ${ctx.cwd} (${trust.source})`
        : `Pi does not trust ${ctx.cwd}, so Pi agents are not delegated to here`,
      fix: trust.trusted ? undefined : piTrustFix(ctx.cwd, trust),
    });
  }
  return checks;
}

/**
 * Which sandbox registry agents' harnesses get here, and why: `on` without one is a
 * problem (every run would be refused); `auto` without one is said, with its fix.
 */
async function sandboxCheck(ctx: Context): Promise<Check> {
  const { chooseSandbox, probeSandbox, sandboxMode } = await import("../runner/sandbox/mod.ts");
  const { readConfig } = await import("../core/config.ts");
  try {
    const mode = sandboxMode(undefined, ctx.env, readConfig(ctx));
    const choice = chooseSandbox(mode, () => probeSandbox(ctx.home, ctx.env));
    if (choice.kind === "none") {
      return {
        check: "sandbox",
        status: "info",
        detail: `sandbox = ${mode}: harness children run unsandboxed (${choice.reason})`,
        fix: mode === "off"
          ? undefined
          : "Install bubblewrap, or set sandbox to off to accept unsandboxed runs",
      };
    }
    return {
      check: "sandbox",
      status: "ok",
      detail: `sandbox = ${mode}: harness children run in ${choice.kind} (${choice.reason})`,
    };
  } catch (err) {
    const e = toObservalError(err);
    return { check: "sandbox", status: "problem", detail: e.message, fix: e.remediation };
  }
}

/**
 * Which approved registry Agents `a2a serve` could serve here: those with a harness of
 * theirs installed. Informational: a registry that cannot be read is the registry check's.
 */
async function serveCheck(ctx: Context): Promise<Check | undefined> {
  const { openRegistryClient } = await import("./open_registry_client.ts");
  const { harnessOptions, runnableHere } = await import("../runner/runnable/mod.ts");
  const { entryKind } = await import("../registry/mod.ts");
  const client = openRegistryClient(ctx);
  try {
    const page = await client.listAgents({ pageSize: 100 });
    const agents = page.items.filter((e) =>
      entryKind(e) === "agent" && e["obs:lifecycle"] === "approved" && e["obs:delegable"] !== false
    );
    if (agents.length === 0) {
      return { check: "a2a serve", status: "info", detail: "no approved registry Agent to serve" };
    }
    const options = harnessOptions(ctx.env, ctx.cwd);
    const can: string[] = [];
    const cannot: string[] = [];
    for (const a of agents) {
      const here = runnableHere(a["obs:supportedHarnesses"] ?? [], options);
      const name = a.displayName ?? a.identifier;
      if (here.runnable) can.push(name);
      else cannot.push(`${name} (${here.missing})`);
    }
    const more = page.pageToken ? " (the first 100 approved entries)" : "";
    return {
      check: "a2a serve",
      status: "info",
      detail: `can serve ${can.length} of ${agents.length} approved registry Agents here${more}` +
        (can.length ? `: ${can.join(", ")}` : "") +
        (cannot.length ? `; not: ${cannot.join(", ")}` : ""),
    };
  } catch {
    return undefined;
  } finally {
    client.close();
  }
}

/**
 * Whether a `delegate run` from here uses a resident runner (see lib/resident/): why not,
 * or whether one runs now for callers like this one.
 */
async function residentCheck(ctx: Context): Promise<Check> {
  const { residentPlace, residentRefusal, runsFromSource } = await import("../resident/mod.ts");
  const { fileLocks, runByHand } = await import("../core/system/mod.ts");
  const refusal = residentRefusal(ctx.env, {
    terminal: runByHand(),
    fromSource: runsFromSource(),
  });
  if (refusal?.includes("not one of")) {
    return {
      check: "resident",
      status: "problem",
      detail: refusal,
      fix: "Set OBSERVAL_RESIDENT to auto, on or off",
    };
  }
  if (refusal) {
    return { check: "resident", status: "info", detail: `delegate run runs cold: ${refusal}` };
  }
  const place = await residentPlace(ctx.env);
  const running = fileLocks()?.held(place.lock) ?? false;
  return {
    check: "resident",
    status: "info",
    detail: running
      ? `a resident runner serves delegate run from here (${place.socket})`
      : "the next delegate run from here starts a resident runner for the ones after it",
  };
}

const MARK = { ok: "ok ", problem: "!! ", info: "-  " } as const;

/** `observal doctor`. */
export const doctorCommand: Command = {
  name: "doctor",
  summary: "Check what this machine can do, and say how to fix what is in the way",
  details: `Exit code 0 when nothing is in the way, 1 when any check found a problem.`,
  async run(inv, ctx) {
    const checks: Check[] = [
      ...runtimeChecks(ctx),
      await storeCheck(ctx),
      await registryCheck(ctx),
      await sandboxCheck(ctx),
      await residentCheck(ctx),
      ...(await harnessChecks(ctx)),
    ];
    const serve = await serveCheck(ctx);
    if (serve) checks.push(serve);
    const problems = checks.filter((c) => c.status === "problem").length;
    if (inv.json) {
      printJson(ctx, { ok: problems === 0, problems, checks });
    } else {
      for (const c of checks) {
        say(ctx, `${MARK[c.status]}${c.check}: ${c.detail}`);
        if (c.fix && c.status !== "ok") say(ctx, `     fix: ${c.fix}`);
      }
      say(ctx, problems ? `${problems} problem${problems === 1 ? "" : "s"} found.` : "All good.");
    }
    return problems ? 1 : 0;
  },
};
