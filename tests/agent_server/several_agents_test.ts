/**
 * `observal a2a serve` with several Agents: each under `/agents/<name>` with its own card
 * and endpoint, an index at `/`, an ARD manifest that validates against the ARD schema
 * and that another observal imports whole, and one set of run slots for them all.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { generateKeyPairSync } from "node:crypto";
import { verifyCardSignatures } from "../../lib/a2a/signature.ts";
import { join } from "node:path";
import { type Task, TaskState } from "@a2a-js/sdk";
import { v1Message } from "../support/a2a_message.ts";
import { ClientFactory } from "@a2a-js/sdk/client";
import { agentYaml, publishApproved } from "../support/local_delegation.ts";
import { callerHome, withServed } from "../support/served_agent.ts";
import { validate } from "../support/ard_schema.ts";
import { cli } from "../support/cli.ts";

/** Answers once `$HOME/go` exists, as `claude -p --output-format json` does. */
const WAITS = `#!/bin/sh
cat > /dev/null
while [ ! -e "$HOME/go" ]; do sleep 0.05; done
printf '{"type":"result","result":"Done.","is_error":false,"session_id":"s1"}\\n'
`;

const send = (text: string, returnImmediately = false) => v1Message(text, { returnImmediately });

function statusText(task: Task): string {
  return (task.status?.message?.parts ?? [])
    .flatMap((p) => p.content?.$case === "text" ? [p.content.value] : [])
    .join(" ");
}

async function getJson(url: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, { headers });
  return { status: res.status, body: await res.json() };
}

Deno.test("a2a serve with two Agents: a signed card and an endpoint each, an index, an ARD manifest another observal imports whole, shared run slots", async () => {
  let reviewer = "";
  await withServed(
    WAITS,
    async (pg, served) => {
      const url = served.url;
      const index = await getJson(`${url}/`);
      assert.equal(index.status, 200);
      assert.deepEqual(
        index.body.agents.map((a: { slug: string; identifier: string }) => [a.slug, a.identifier]),
        [["fixer", pg.identifier], ["reviewer", reviewer]],
      );
      // Each Agent's card names its own endpoint; the origin has no card of its own.
      for (const slug of ["fixer", "reviewer"]) {
        const card = await getJson(`${url}/agents/${slug}/.well-known/agent-card.json`, {
          "A2A-Version": "1.0",
        });
        assert.equal(card.body.name, slug);
        assert.equal(card.body.supportedInterfaces[0].url, `${url}/agents/${slug}/`);
      }
      // Each card is signed; the key set they name is at the origin, for both.
      for (const slug of ["fixer", "reviewer"]) {
        const card = await getJson(`${url}/agents/${slug}/.well-known/agent-card.json`);
        const verdict = await verifyCardSignatures(card.body, {
          fetchJwks: async (jku) => {
            assert.equal(jku, `${url}/.well-known/jwks.json`);
            return (await getJson(jku)).body;
          },
        });
        assert.equal(verdict.status, "verified");
      }
      const none = await getJson(`${url}/.well-known/agent-card.json`);
      assert.equal(none.status, 404);
      assert.match(none.body.error, /2 agents; their cards are listed/);

      const manifest = await getJson(`${url}/.well-known/ard.json`);
      assert.deepEqual(validate("manifest", manifest.body), []);
      assert.deepEqual(
        manifest.body.entries.map((e: { url: string }) => e.url),
        ["fixer", "reviewer"].map((s) => `${url}/agents/${s}/.well-known/agent-card.json`),
      );

      // One slot for both: the reviewer's message waits while the fixer's runs.
      const fixer = await new ClientFactory().createFromUrl(`${url}/agents/fixer/`);
      const second = await new ClientFactory().createFromUrl(`${url}/agents/reviewer/`);
      const first = await fixer.sendMessage(send("First.", true)) as Task;
      const waiting = await second.sendMessage(send("Second.", true)) as Task;
      const seen = await second.getTask({ tenant: "", id: waiting.id, historyLength: 0 });
      assert.equal(seen.status?.state, TaskState.TASK_STATE_SUBMITTED);
      assert.match(statusText(seen), /number 1 in line/);
      // The fixer's endpoint knows only its own tasks.
      await assert.rejects(fixer.getTask({ tenant: "", id: waiting.id, historyLength: 0 }));
      writeFileSync(join(pg.env.HOME!, "go"), "");
      for (const [client, task] of [[fixer, first], [second, waiting]] as const) {
        const deadline = Date.now() + 60_000;
        for (;;) {
          const now = await client.getTask({ tenant: "", id: task.id, historyLength: 0 });
          if (now.status?.state === TaskState.TASK_STATE_COMPLETED) break;
          assert.ok(Date.now() < deadline, statusText(now));
          await new Promise((r) => setTimeout(r, 100));
        }
      }
      // Each ran as the Agent it was sent to.
      const list = await pg.json(["delegate", "list"]);
      const targets = (list.body.items as Array<{ metadata: { observal: { target: string } } }>)
        .map((t) => t.metadata.observal.target).sort();
      assert.deepEqual(targets, [pg.identifier, reviewer].sort());

      // Another observal imports both from the manifest.
      const caller = await callerHome(served, { manifest: true });
      try {
        assert.equal(caller.imported.length, 2);
        assert.deepEqual(
          caller.imported.map((d) => d.displayName).sort(),
          ["fixer", "reviewer"],
        );
      } finally {
        caller.close();
      }
    },
    async (pg) => {
      reviewer = (await publishApproved(pg.env, pg.repo, agentYaml("reviewer"))).identifier;
      const key = join(pg.root, "signing.pem");
      const { privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
      writeFileSync(key, privateKey.export({ type: "pkcs8", format: "pem" }), { mode: 0o600 });
      return ["--agent", reviewer, "--max-concurrent", "1", "--signing-key", key];
    },
  );
});

Deno.test("registry a2a submit of an ARD manifest refuses cards on another origin, and a manifest with none", async () => {
  const manifests: Record<string, unknown> = {
    "/elsewhere/.well-known/ard.json": {
      specVersion: "1.0",
      entries: [{
        identifier: "urn:air:example.com:a2a:x",
        displayName: "x",
        type: "application/a2a-agent-card+json",
        url: "http://169.254.169.254/.well-known/agent-card.json",
      }],
    },
    "/empty/.well-known/ard.json": { specVersion: "1.0", entries: [] },
    "/garbled/.well-known/ard.json": { name: "a card, not a manifest" },
  };
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    (req) => Response.json(manifests[new URL(req.url).pathname] ?? {}, { status: 200 }),
  );
  const url = `http://127.0.0.1:${server.addr.port}`;
  const home = await Deno.makeTempDir({ prefix: "observal-caller-" });
  try {
    const env = { OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1" };
    const set = await cli(
      ["registry", "settings", "set", "discovery.a2a_private_hosts", "127.0.0.1"],
      { env, cwd: home },
    );
    assert.equal(set.code, 0, set.stderr);
    const cases: Array<[string, RegExp]> = [
      ["elsewhere", /other origins than http:\/\/127\.0\.0\.1:\d+: http:\/\/169\.254\.169\.254/],
      ["empty", /lists no Agent Cards/],
      ["garbled", /is not an ARD manifest/],
    ];
    for (const [name, why] of cases) {
      const r = await cli(["registry", "a2a", "submit", `${url}/${name}/.well-known/ard.json`], {
        env,
        cwd: home,
      });
      assert.notEqual(r.code, 0, name);
      assert.match(r.stderr, why, name);
    }
    const list = await cli(["registry", "a2a", "list", "--json"], { env, cwd: home });
    assert.equal(JSON.parse(list.stdout).items.length, 0, "nothing was registered");
  } finally {
    await server.shutdown();
    await Deno.remove(home, { recursive: true });
  }
});
