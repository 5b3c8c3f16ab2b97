/**
 * Time from `delegate run` to the completed task against a local A2A agent that answers
 * at once, beside the bare @a2a-js/sdk client round trip and the cost of starting an
 * observal process, all measured in this run.
 *
 *   deno run -A bench/remote.ts [--runs 20]
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { SendMessageRequest } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";
import { createContext } from "../lib/core/mod.ts";
import { DelegationService, detachedLauncher } from "../lib/delegation/mod.ts";
import { openRegistryClient } from "../lib/cli/open_registry_client.ts";
import { openTaskStore } from "../lib/store/mod.ts";
import { startV1Agent, type TestAgent } from "../tests/support/a2a_agents.ts";

const { values } = parseArgs({
  args: process.argv.slice(2),
  options: { runs: { type: "string", default: "20" } },
});
const runs = Number(values.runs);
const main = fileURLToPath(new URL("../main.ts", import.meta.url));

function stats(ms: number[]) {
  const s = [...ms].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { p50: at(0.5), p90: at(0.9), max: s[s.length - 1] };
}

async function timeRuns(n: number, fn: () => Promise<unknown> | unknown): Promise<number[]> {
  await fn(); // warm-up, not counted
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}

async function delegateRuns(agent: TestAgent): Promise<number[]> {
  const home = mkdtempSync(join(tmpdir(), "observal-bench-"));
  const ctx = createContext({ env: { ...process.env, OBSERVAL_HOME: home }, cwd: home });
  const admin = openRegistryClient(ctx);
  const store = openTaskStore({ home, clock: ctx.clock });
  try {
    await admin.admin("PUT", "/settings/discovery.a2a_private_hosts", { value: "127.0.0.1" });
    const doc = await admin.submitCard({ cardUrl: agent.cardUrl, visibility: "public" });
    await admin.reviewImport(String(doc.identifier), {
      action: "approve",
      digest: String(doc["obs:artifactDigest"]),
    });
    const service = new DelegationService({
      ctx,
      store,
      registry: () => admin,
      launch: detachedLauncher(ctx),
    });
    return await timeRuns(runs, async () => {
      const task = await service.start(String(doc.identifier), "ping", {
        caller: { depth: 0, maxDepth: 2, chain: [] },
        waitSeconds: 60,
      });
      if (task.status.state !== "TASK_STATE_COMPLETED") {
        throw new Error(`${task.status.state}: ${JSON.stringify(task.status.message?.parts)}`);
      }
    });
  } finally {
    admin.close();
    store.close();
    rmSync(home, { recursive: true, force: true });
  }
}

const polling = await startV1Agent({ behaviour: "complete" });
const streaming = await startV1Agent({ behaviour: "complete", streaming: true });
try {
  const client = await new ClientFactory().createFromUrl(polling.url);
  const sdk = await timeRuns(runs, async () => {
    await client.sendMessage(SendMessageRequest.fromJSON({
      message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "ping" }] },
    }));
  });
  const deno = process.execPath;
  const bare = await timeRuns(runs, () => execFileSync(deno, ["eval", ""]));
  const start = await timeRuns(runs, () => execFileSync(deno, ["run", "-A", main, "--version"]));
  const viaPoll = await delegateRuns(polling);
  const viaStream = await delegateRuns(streaming);

  const rows: Array<[string, number[]]> = [
    ["sdk client round trip (baseline)", sdk],
    ["deno eval '' (process baseline)", bare],
    ["observal --version (worker start)", start],
    ["delegate run, polling agent", viaPoll],
    ["delegate run, streaming agent", viaStream],
  ];
  console.log(
    `${"".padEnd(36)} ${"p50 ms".padStart(8)} ${"p90 ms".padStart(8)} ${"max ms".padStart(8)}`,
  );
  for (const [name, ms] of rows) {
    const s = stats(ms);
    console.log(
      `${name.padEnd(36)} ${s.p50.toFixed(1).padStart(8)} ${s.p90.toFixed(1).padStart(8)} ${
        s.max.toFixed(1).padStart(8)
      }`,
    );
  }
  const sdk50 = stats(sdk).p50, start50 = stats(start).p50;
  const s = stats(viaStream), p = stats(viaPoll);
  console.log(
    `\nstreaming: ${(s.p50 / sdk50).toFixed(1)}x the sdk round trip; overhead beyond the sdk ` +
      `round trip and one worker start: ${(s.p50 - sdk50 - start50).toFixed(1)} ms (p50)`,
  );
  console.log(
    `polling:   ${(p.p50 / sdk50).toFixed(1)}x the sdk round trip; overhead beyond the sdk ` +
      `round trip and one worker start: ${(p.p50 - sdk50 - start50).toFixed(1)} ms (p50)`,
  );
  console.log(`slowest streaming run ${s.max.toFixed(0)} ms (a poll interval is 2000 ms)`);
} finally {
  await polling.close();
  await streaming.close();
}
