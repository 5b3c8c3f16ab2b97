/**
 * A delegation playground: a temp OBSERVAL_HOME with the embedded registry, a real A2A agent
 * on 127.0.0.1 imported and approved, and the CLI to drive as a user would. Workers are
 * real detached observal processes.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { createContext, type Env, systemClock } from "../../lib/core/mod.ts";
import {
  DelegationService,
  detachedLauncher,
  type LaunchWorker,
  readPid,
  workerAlive,
} from "../../lib/delegation/mod.ts";
import { openRegistryClient } from "../../lib/cli/open_registry_client.ts";
import type { RegistryClient } from "../../lib/registry/mod.ts";
import { openTaskStore, type TaskStore } from "../../lib/store/mod.ts";
import { cli, type CliResult } from "./cli.ts";
import {
  startV03Agent,
  startV1Agent,
  type TestAgent,
  type TestAgentOptions,
} from "./a2a_agents.ts";

export interface Playground {
  home: string;
  env: Env;
  agent: TestAgent;
  identifier: string;
  digest: string;
  /** Runs `observal ...` in process with this home. */
  observal(args: string[], env?: Env): Promise<CliResult>;
  /** Runs `observal ... --json` and parses stdout. */
  json(
    args: string[],
    env?: Env,
  ): Promise<{ code: number; body: Record<string, unknown>; stderr: string }>;
  registry(): RegistryClient;
  /** Polls `delegate status` until the worker has reached the agent; returns the task. */
  untilRemote(id: string): Promise<Task>;
  /** A service on this home, with an optional launcher in place of the real one. */
  service(options?: { launch?: LaunchWorker; env?: Env; clock?: typeof systemClock }): {
    service: DelegationService;
    store: TaskStore;
    close(): void;
  };
  close(): Promise<void>;
}

/**
 * Imports the card at `cardUrl` into the registry of `env`'s home as public, with
 * discovery.a2a_private_hosts set so a loopback agent may be imported, and approves it.
 */
export async function importCard(
  env: Env,
  cwd: string,
  cardUrl: string,
  options: { approve?: boolean; privateHosts?: string } = {},
): Promise<{ identifier: string; digest: string }> {
  const admin = openRegistryClient(createContext({ env, cwd }));
  try {
    await admin.admin("PUT", "/settings/discovery.a2a_private_hosts", {
      value: options.privateHosts ?? "127.0.0.1",
    });
    const doc = await admin.submitCard({ cardUrl, visibility: "public" });
    const identifier = String(doc.identifier);
    const digest = String(doc["obs:artifactDigest"]);
    if (options.approve !== false) {
      await admin.reviewImport(identifier, { action: "approve", digest });
    }
    return { identifier, digest };
  } finally {
    admin.close();
  }
}

export async function playground(
  options: TestAgentOptions & {
    protocol?: "1.0" | "0.3";
    approve?: boolean;
    /** discovery.a2a_private_hosts while importing. @default "127.0.0.1" */
    privateHosts?: string;
  } = {},
): Promise<Playground> {
  const home = mkdtempSync(join(tmpdir(), "observal-deleg-"));
  const env: Env = { OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1", RUST_BACKTRACE: "0" };
  const agent = options.protocol === "0.3"
    ? await startV03Agent(options)
    : await startV1Agent(options);
  const { identifier, digest } = await importCard(env, home, agent.cardUrl, options);
  const observal = (args: string[], extra: Env = {}) =>
    cli(args, { env: { ...env, ...extra }, cwd: home });
  return {
    home,
    env,
    agent,
    identifier,
    digest,
    observal,
    async json(args, extra = {}) {
      const r = await observal([...args, "--json"], extra);
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(r.stdout || "{}");
      } catch {
        throw new Error(`not JSON (exit ${r.code}): ${r.stdout}\n${r.stderr}`);
      }
      return { code: r.code, body, stderr: r.stderr };
    },
    registry: () => openRegistryClient(createContext({ env, cwd: home })),
    async untilRemote(id) {
      for (let i = 0; i < 100; i++) {
        const r = await observal(["delegate", "status", id, "--json"]);
        const task = JSON.parse(r.stdout) as Task;
        if (task.metadata.observal.remoteTaskId) return task;
        await new Promise((res) => setTimeout(res, 100));
      }
      throw new Error(`task ${id} never reached the agent`);
    },
    service(opts = {}) {
      const sctx = createContext({ env: { ...env, ...opts.env }, cwd: home, clock: opts.clock });
      const store = openTaskStore({ home, clock: sctx.clock });
      let client: RegistryClient | undefined;
      const service = new DelegationService({
        ctx: sctx,
        store,
        registry: () => (client ??= openRegistryClient(sctx)),
        launch: opts.launch ?? detachedLauncher(sctx),
      });
      return {
        service,
        store,
        close() {
          client?.close();
          store.close();
        },
      };
    },
    async close() {
      await agent.close();
      // Every task here is final by now, but a worker may still be writing its last log
      // line; it must exit on its own (no orphans) before the home goes away.
      const deadline = Date.now() + 15_000;
      for (const id of workerTaskIds(home)) {
        const pid = readPid(join(home, "delegations", id));
        while (pid !== undefined && workerAlive(pid, id, join(home, "delegations", id))) {
          if (Date.now() > deadline) throw new Error(`worker ${pid} for ${id} did not exit`);
          await new Promise((res) => setTimeout(res, 20));
        }
      }
      rmSync(home, { recursive: true, force: true });
    },
  };
}

/** Ids of the task folders under a home. */
function workerTaskIds(home: string): string[] {
  const root = join(home, "delegations");
  if (!existsSync(root)) return [];
  return readdirSync(root, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) =>
    e.name
  );
}
