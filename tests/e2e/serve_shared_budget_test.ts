/**
 * Two `observal registry serve` processes on one home spend one set of rate budgets: a
 * second process must not double what a client may do.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnObserval } from "../support/process.ts";

async function search(url: string, headers: Record<string, string> = {}): Promise<number> {
  const res = await fetch(`${url}/api/v1/ard/search`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query: { text: "anything" } }),
  });
  await res.body?.cancel();
  return res.status;
}

Deno.test("two registry serve processes on one home share one search budget", async () => {
  const home = mkdtempSync(join(tmpdir(), "observal-serve-"));
  const env = { OBSERVAL_HOME: home, HOME: home };
  // Started together: both open (and migrate) the new database at once.
  const servers = [0, 1].map(() => spawnObserval(["registry", "serve", "--port", "0"], env));
  try {
    const urls = await Promise.all(servers.map(async (s) => {
      const line = await s.firstLine;
      const url = /^listening (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)?.[1];
      assert.ok(url, line);
      return url;
    }));
    // 130 anonymous searches from one address, alternating between the two processes.
    const statuses: number[] = [];
    for (let i = 0; i < 130; i++) statuses.push(await search(urls[i % 2]));
    assert.equal(statuses.filter((s) => s === 200).length, 60, statuses.join(","));
    assert.equal(statuses.filter((s) => s === 429).length, 70, statuses.join(","));
    assert.deepEqual(statuses.slice(60), Array(70).fill(429), "the budget ends at the 61st");

    // A bad key's own budget is shared by both processes too.
    const bad = { authorization: "Bearer obs_wrong" };
    const failures: number[] = [];
    for (let i = 0; i < 12; i++) failures.push(await search(urls[i % 2], bad));
    assert.deepEqual(failures, [...Array(10).fill(401), 429, 429]);
    for (const s of servers) assert.equal(await s.stop(), 0, s.stderr());
  } finally {
    for (const s of servers) await s.stop();
    rmSync(home, { recursive: true, force: true });
  }
});
