/**
 * A home whose embedded registry trusts 127.0.0.1, with a hostile agent
 * (./hostile_agent.ts) running and its card imported and approved through the real CLI.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Env } from "../../lib/core/mod.ts";
import { readPid, workerAlive } from "../../lib/delegation/mod.ts";
import { cli } from "./cli.ts";
import {
  type HostileAgent,
  type HostileMode,
  type HostileOptions,
  startHostileAgent,
} from "./hostile_agent.ts";

/** The home, its agent and the approved card's identifier. */
export interface HostileHome {
  home: string;
  env: Env;
  agent: HostileAgent;
  identifier: string;
  /** Stops the agent and any worker a failed test left, then removes the home. */
  close(): Promise<void>;
}

/**
 * Starts the agent in `mode` and approves its card in a new home.
 *
 * @param mode The agent's misbehaviour.
 * @param options The agent's options.
 * @param extra Variables added to the home's environment.
 */
export async function hostileHome(
  mode: HostileMode,
  options: HostileOptions = {},
  extra: Env = {},
): Promise<HostileHome> {
  const home = mkdtempSync(join(tmpdir(), "observal-hostile-"));
  const env: Env = {
    OBSERVAL_HOME: home,
    HOME: home,
    NO_COLOR: "1",
    RUST_BACKTRACE: "0",
    ...extra,
  };
  const agent = await startHostileAgent(mode, options);
  const close = async () => {
    await agent.close();
    const root = join(home, "delegations");
    for (const id of existsSync(root) ? readdirSync(root) : []) {
      const pid = readPid(join(root, id));
      if (pid !== undefined && workerAlive(pid, id, join(root, id))) Deno.kill(pid, "SIGKILL");
    }
    rmSync(home, { recursive: true, force: true, maxRetries: 5 });
  };
  const run = async (args: string[]) => {
    const r = await cli(args, { env, cwd: home });
    assert.equal(r.code, 0, `observal ${args.join(" ")}: ${r.stderr}`);
    return r.stdout;
  };
  try {
    await run(["registry", "settings", "set", "discovery.a2a_private_hosts", "127.0.0.1"]);
    const doc = JSON.parse(
      await run(["registry", "a2a", "submit", agent.cardUrl, "--visibility", "public", "--json"]),
    );
    const digest = doc["obs:artifactDigest"];
    await run(["registry", "a2a", "review", doc.identifier, "--approve", "--digest", digest]);
    return { home, env, agent, identifier: doc.identifier, close };
  } catch (err) {
    await close();
    throw err;
  }
}
