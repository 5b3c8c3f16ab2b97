/**
 * Both kinds of agent take the same verbs (list, inspect, review, remove) and default to
 * the same visibility; `registry agent show` still works as a hidden alias of inspect.
 */
import assert from "node:assert/strict";
import { rmSync } from "node:fs";
import { rootGroup } from "../../lib/cli/mod.ts";
import type { Group } from "../../lib/cli/command.ts";
import { cli } from "../support/cli.ts";
import { json, seed } from "./_registry_seed.ts";

function group(...path: string[]): Group {
  let node: Group = rootGroup;
  for (const name of path) node = node.commands.find((c) => c.name === name) as Group;
  return node;
}

Deno.test("registry agent and registry a2a offer list, inspect, review and remove", () => {
  const visible = (g: Group) => g.commands.filter((c) => !c.hidden).map((c) => c.name);
  for (const kind of ["agent", "a2a"]) {
    const names = visible(group("registry", kind));
    for (const verb of ["list", "inspect", "review", "remove"]) {
      assert.ok(names.includes(verb), `registry ${kind} ${verb}`);
    }
  }
  const show = group("registry", "agent").commands.find((c) => c.name === "show");
  assert.equal(show?.hidden, true, "show stays as a hidden alias");
});

Deno.test("submissions of both kinds are private unless --visibility says otherwise", async () => {
  const s = await seed();
  try {
    assert.equal(s.agent["obs:visibility"], "private");
    assert.equal(s.card["obs:visibility"], "private");
    for (const kind of ["agent", "a2a"]) {
      const help = await cli(["registry", kind, kind === "agent" ? "publish" : "submit", "-h"], {
        env: s.env,
      });
      assert.match(help.stdout, /--visibility private\|team\|public .*\(default private\)/);
    }
  } finally {
    await s.close();
  }
});

Deno.test("registry agent remove takes an Agent out of lists, installs and search", async () => {
  const s = await seed();
  try {
    const digest = String(s.agent["obs:artifactDigest"]);
    await json(
      ["registry", "agent", "review", s.agent.identifier, "--approve", "--digest", digest],
      s.env,
    );
    const unconfirmed = await cli(["registry", "agent", "remove", s.agent.identifier], {
      env: s.env,
    });
    assert.equal(unconfirmed.code, 2);
    assert.match(unconfirmed.stderr, /Removing needs --yes/);
    const removed = await cli(["registry", "agent", "remove", "local/code-reviewer", "--yes"], {
      env: s.env,
    });
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(removed.stdout, `Removed ${s.agent.identifier}.\n`);
    assert.equal((await json(["registry", "agent", "list"], s.env)).total, 0);
    const install = await cli(
      ["registry", "agent", "install", s.agent.identifier, "--harness", "codex"],
      { env: s.env },
    );
    assert.equal(install.code, 5);
    const search = await json(["registry", "search", "review", "code"], s.env);
    assert.ok(search.items.every((i: { kind: string }) => i.kind !== "agent"));
    const empty = await cli(["registry", "agent", "list"], { env: s.env });
    assert.equal(empty.stdout, "No registry Agents published yet.\n");
  } finally {
    await s.close();
  }
});

Deno.test("only an Agent's owner or an admin may remove it", async () => {
  const s = await seed();
  try {
    const digest = String(s.agent["obs:artifactDigest"]);
    const admin = s.reg.embedded();
    try {
      await admin.reviewAgent(s.agent.identifier, { action: "approve", digest });
      // Published private by the local admin: make it public so another user can see it.
      await admin.publishAgent({
        yaml: Deno.readTextFileSync(
          new URL("../../examples/agent/observal-agent.yaml", import.meta.url),
        )
          .replace(/^version: .*$/m, "version: 9.0.0"),
        visibility: "public",
      });
    } finally {
      admin.close();
    }
    const other = s.reg.http(s.reg.user("otto", "reviewer").key);
    try {
      const refused = await other.removeAgent(s.agent.identifier).catch((e) => e);
      assert.equal(refused.code, "PERMISSION_DENIED");
      assert.match(refused.message, /Only the owner or an admin can remove this agent/);
      const anonymous = await s.reg.http().removeAgent(s.agent.identifier).catch((e) => e);
      assert.equal(anonymous.code, "UNAUTHENTICATED");
    } finally {
      other.close();
    }
  } finally {
    await s.close();
  }
});

Deno.test("both inspect commands print the same labels; a card's signature state reads as words", async () => {
  const s = await seed();
  try {
    const labels = (out: string) => out.split("\n").map((l) => /^([A-Z][\w ]*):/.exec(l)?.[1]);
    const agent = await cli(["registry", "agent", "inspect", s.agent.identifier], { env: s.env });
    assert.equal(agent.code, 0, agent.stderr);
    const card = await cli(["registry", "a2a", "inspect", s.card.identifier], { env: s.env });
    assert.equal(card.code, 0, card.stderr);
    for (const label of ["Name", "Identifier", "Kind", "Version", "State", "Digest"]) {
      assert.ok(
        labels(agent.stdout).includes(label),
        `agent inspect lacks ${label}:\n${agent.stdout}`,
      );
      assert.ok(labels(card.stdout).includes(label), `a2a inspect lacks ${label}:\n${card.stdout}`);
    }
    assert.match(card.stdout, /^Signature: +unsigned$/m);
    assert.doesNotMatch(card.stdout, /\{"status"/);
  } finally {
    await s.close();
  }
});

Deno.test("a malformed digest is called malformed, by the CLI and by the registry; nothing is approved", async () => {
  const s = await seed();
  try {
    for (const [kind, id] of [["a2a", s.card.identifier], ["agent", s.agent.identifier]]) {
      const r = await cli(["registry", kind, "review", id, "--approve", "--digest", "sha256:abc"], {
        env: s.env,
      });
      assert.equal(r.code, 2, r.stderr);
      assert.match(r.stderr, /"sha256:abc" is not a digest/);
      assert.match(r.stderr, /64 hex digits/);
      assert.doesNotMatch(r.stderr, /changed/);
    }
    // The registry says the same to any client that sends one.
    const admin = s.reg.user("reviewer", "admin");
    const path = `/api/v1/ard/imports/${encodeURIComponent(s.card.identifier)}/review`;
    const res = await fetch(`${s.reg.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${admin.key}`, "content-type": "application/json" },
      body: JSON.stringify({ action: "approve", digest: "sha256:XYZ" }),
    });
    assert.equal(res.status, 400);
    const body = await res.json();
    assert.equal(body.errorCode, "INVALID_ARGUMENT");
    assert.match(body.message, /is not a digest/);
    const after = await json(["registry", "a2a", "inspect", s.card.identifier], s.env);
    assert.equal(after["obs:lifecycle"], "pending");
  } finally {
    await s.close();
  }
});

Deno.test("find and search against a server that shows an anonymous caller nothing hint at the key", async () => {
  const s = await seed();
  const home = Deno.makeTempDirSync();
  try {
    const anon = { OBSERVAL_HOME: home, HOME: home, OBSERVAL_SERVER_URL: s.reg.url };
    for (const argv of [["delegate", "find", "review code"], ["registry", "search", "review"]]) {
      const r = await cli(argv, { env: anon });
      assert.equal(r.code, 0, r.stderr);
      assert.match(
        r.stderr,
        /not signed in to http:\/\/127\.0\.0\.1:\d+.*observal auth login.*OBSERVAL_API_KEY/s,
      );
      const asJson = await cli([...argv, "--json"], { env: anon });
      assert.equal(JSON.parse(asJson.stdout).total, 0);
      assert.match(asJson.stderr, /not signed in/);
      // Signed in, an empty answer is just empty.
      const key = s.reg.user(`u${argv.length}${argv[0]}`).key;
      const signed = await cli(argv, { env: { ...anon, OBSERVAL_API_KEY: key } });
      assert.equal(signed.code, 0, signed.stderr);
      assert.doesNotMatch(signed.stderr, /not signed in/);
    }
  } finally {
    rmSync(home, { recursive: true, force: true });
    await s.close();
  }
});
