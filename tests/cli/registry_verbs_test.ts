/**
 * Both kinds of agent take the same verbs (list, inspect, review, remove) and default to
 * the same visibility; `registry agent show` still works as a hidden alias of inspect.
 */
import assert from "node:assert/strict";
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
