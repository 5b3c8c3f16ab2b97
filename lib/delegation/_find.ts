/**
 * Finding agents in the registry for a task, and resolving a reference to one.
 * @module
 */
import { A2A_AGENT_CARD_MEDIA_TYPE } from "../a2a/cards/mod.ts";
import { ObservalError } from "../core/mod.ts";
import type { EntryDocument, RegistryClient } from "../registry/mod.ts";
import type { HarnessOption } from "../runner/mod.ts";
import type { Caller } from "./caller.ts";
import { wouldLoop } from "./guards.ts";
import { agentIdOf } from "./_helpers.ts";
import type { DelegationDeps } from "./_options.ts";

/** One agent `find` returns. */
export interface FoundAgent {
  identifier: string;
  name: string;
  kind: "agent" | "a2a";
  description?: string;
  score?: number;
  version?: string;
  harnesses?: string[];
  ref?: string;
  /** Whether it can take a task from here (a registry Agent needs a usable harness). */
  delegable: boolean;
  /** What is missing when it cannot. */
  unavailable?: string;
}

/**
 * Approved, delegable agents that match a task description. With `caller`, the agents the
 * cycle guard would refuse it (itself, and those above it in its chain) are left out.
 */
export async function findAgents(
  deps: DelegationDeps,
  text: string,
  limit: number,
  signal?: AbortSignal,
  caller?: Caller,
): Promise<FoundAgent[]> {
  if (!text.trim()) {
    throw new ObservalError("INVALID_ARGUMENT", "Describe the task to find an agent for it");
  }
  const res = await registryFor(deps, signal).search({
    query: {
      text: text.slice(0, 2000),
      filter: {
        type: ["application/vnd.observal.agent+json", A2A_AGENT_CARD_MEDIA_TYPE],
        "obs:lifecycle": ["approved"],
      },
    },
    federation: "none",
    pageSize: Math.min(100, Math.max(3 * limit, 10)),
  });
  // Harness facts load only for commands that need them.
  const { harnessOptions, runnableHere } = await import("../runner/runnable/mod.ts");
  signal?.throwIfAborted();
  let options: HarnessOption[] | undefined;
  const found = res.results.filter((r) =>
    r["obs:delegable"] === true &&
    !(caller && wouldLoop(caller, { identifier: r.identifier, agentId: agentIdOf(r.identifier) }))
  );
  return found.slice(0, limit).map((r) => {
    const kind = r.type === A2A_AGENT_CARD_MEDIA_TYPE ? "a2a" as const : "agent" as const;
    // A registry Agent runs here only if some harness it supports is installed here.
    const here = kind === "agent"
      ? runnableHere(
        r["obs:supportedHarnesses"] ?? [],
        options ??= harnessOptions(deps.ctx.env, deps.ctx.cwd),
      )
      : { runnable: true as const };
    return {
      identifier: r.identifier,
      name: r.displayName,
      kind,
      description: r.description,
      score: r.score,
      version: r.version,
      harnesses: r["obs:supportedHarnesses"],
      ref: r["obs:nativeRef"],
      delegable: here.runnable,
      unavailable: here.runnable ? undefined : here.missing,
    };
  });
}

/** The registry client, its calls ended at once when `signal` aborts. */
function registryFor(deps: DelegationDeps, signal?: AbortSignal): RegistryClient {
  const registry = deps.registry();
  return signal ? registry.withSignal(signal) : registry;
}

/** Resolves a reference to the registry's current entry document. */
export async function resolveAgent(
  deps: DelegationDeps,
  ref: string,
  signal?: AbortSignal,
): Promise<EntryDocument> {
  const registry = registryFor(deps, signal);
  try {
    // An identifier, an Agent's namespace/name or UUID, or a unique prefix of either.
    return await registry.resolveEntry(ref);
  } catch (err) {
    signal?.throwIfAborted();
    if (err instanceof ObservalError && err.code === "NOT_FOUND") {
      throw new ObservalError("NOT_FOUND", `No agent "${ref}" in the registry`, {
        remediation: "Find one with `observal delegate find <what you need>`",
        resource: ref,
      });
    }
    throw err;
  }
}
