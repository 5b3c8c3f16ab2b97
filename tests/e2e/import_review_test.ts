/**
 * The governed import flow end to end over HTTP: real A2A agents serve their cards on
 * 127.0.0.1 (an allowlisted host), users with real API keys submit, review and search.
 */
import assert from "node:assert/strict";
import { ObservalError } from "../../lib/core/mod.ts";
import type { RegistryClient } from "../../lib/registry/mod.ts";
import { startV03Agent, startV1Agent } from "../support/a2a_agents.ts";
import { startRegistry } from "../support/registry.ts";

async function refused(p: Promise<unknown>, status: string, pattern?: RegExp) {
  const err = await p.then(() => undefined, (e) => e);
  assert.ok(err instanceof ObservalError, `expected a refusal, got ${err}`);
  assert.equal(err.code, status, `${err.code}: ${err.message}`);
  if (pattern) assert.match(err.message, pattern);
}

async function found(client: RegistryClient, text: string, identifier: string) {
  const res = await client.search({ query: { text }, pageSize: 50 });
  return res.results.find((r) => r.identifier === identifier);
}

Deno.test("import review flow: visibility, digests, changed cards and ownership over HTTP", async () => {
  const reg = await startRegistry({ privateHosts: ["127.0.0.1"] });
  const agent = await startV1Agent({ name: "Release Notes Writer" });
  const teamAgent = await startV03Agent({ name: "Team Helper" });
  try {
    const alice = reg.http(reg.user("alice").key);
    const bob = reg.http(reg.user("bob").key);
    const rita = reg.http(reg.user("rita", "reviewer").key);
    const admin = reg.http(reg.user("root", "admin").key);
    const tina = reg.http(reg.user("tina").key);
    const team = await admin.admin("POST", "/teams", { handle: "core" });
    await admin.admin("PUT", "/teams/core/members", { user: "alice", role: "member" });
    await admin.admin("PUT", "/teams/core/members", { user: "tina", role: "owner" });

    // A private import: pending, seen by its owner and admins only.
    const priv = await alice.submitCard({ cardUrl: agent.cardUrl });
    const id = String(priv.identifier);
    assert.equal(priv["obs:lifecycle"], "pending");
    assert.equal(priv["obs:delegable"], false);
    assert.match(id, /^urn:air:observal\.local:a2a:[0-9a-f-]{36}$/);
    await refused(bob.entry(id), "NOT_FOUND");
    assert.equal(await found(bob, "release notes", id), undefined);
    assert.ok(await found(alice, "release notes", id), "owner sees own pending import");
    assert.equal((await bob.listImports()).total, 0);
    // Private cards are reviewed by admins only: a global reviewer is not told it exists.
    await refused(
      rita.reviewImport(id, { action: "approve", digest: String(priv["obs:artifactDigest"]) }),
      "NOT_FOUND",
    );
    assert.ok(await found(admin, "release notes", id), "admin sees it in their queue");

    // Wider visibility goes back to pending and into the global reviewers' queue.
    const pub = await alice.submitCard({ cardUrl: agent.cardUrl, visibility: "public" });
    assert.equal(pub.identifier, id);
    assert.equal(pub["obs:lifecycle"], "pending");
    assert.ok((await rita.listImports()).items.some((i) => i.identifier === id));
    assert.equal(await found(bob, "release notes", id), undefined, "pending hidden from strangers");

    // Approval needs the digest that was reviewed.
    await refused(rita.reviewImport(id, { action: "approve" }), "INVALID_ARGUMENT", /digest/);
    await refused(
      rita.reviewImport(id, { action: "approve", digest: `sha256:${"0".repeat(64)}` }),
      "FAILED_PRECONDITION",
      /changed/,
    );
    await refused(rita.reviewImport(id, { action: "reject" }), "INVALID_ARGUMENT", /reason/);
    await refused(
      bob.reviewImport(id, { action: "approve", digest: String(pub["obs:artifactDigest"]) }),
      "PERMISSION_DENIED",
    );
    const approved = await rita.reviewImport(id, {
      action: "approve",
      digest: String(pub["obs:artifactDigest"]),
    });
    assert.equal(approved["obs:lifecycle"], "approved");
    const hit = await found(bob, "release notes", id);
    assert.ok(hit, "approved public import is visible to everyone signed in");
    assert.equal(hit["obs:delegable"], true);
    assert.equal(hit["obs:availability"], "delegate");

    // Re-submitting an unchanged card keeps the approval; a changed card goes back to pending.
    const same = await alice.submitCard({ cardUrl: agent.cardUrl, visibility: "public" });
    assert.equal(same["obs:lifecycle"], "approved");
    agent.setCardOverride((card) => ({ ...card, description: "Now does something else." }));
    const changed = await alice.submitCard({ cardUrl: agent.cardUrl, visibility: "public" });
    assert.equal(changed["obs:lifecycle"], "pending");
    assert.notEqual(changed["obs:artifactDigest"], pub["obs:artifactDigest"]);
    assert.equal(await found(bob, "release notes", id), undefined);
    // The old digest no longer approves it.
    await refused(
      rita.reviewImport(id, { action: "approve", digest: String(pub["obs:artifactDigest"]) }),
      "FAILED_PRECONDITION",
    );

    // Someone else cannot take a registered card.
    await refused(
      bob.submitCard({ cardUrl: agent.cardUrl, visibility: "public" }),
      "ALREADY_EXISTS",
      /someone else/,
    );
    await refused(bob.removeImport(id), "PERMISSION_DENIED");

    // Team visibility: reviewed by the team's owner, invisible to outsiders.
    await refused(
      bob.submitCard({ cardUrl: teamAgent.cardUrl, visibility: "team", teamId: String(team.id) }),
      "PERMISSION_DENIED",
    );
    await refused(
      alice.submitCard({ cardUrl: teamAgent.cardUrl, visibility: "team" }),
      "INVALID_ARGUMENT",
      /teamId/,
    );
    const t = await alice.submitCard({
      cardUrl: teamAgent.cardUrl,
      visibility: "team",
      teamId: String(team.id),
    });
    const tid = String(t.identifier);
    await refused(bob.entry(tid), "NOT_FOUND");
    await refused(
      rita.reviewImport(tid, { action: "approve", digest: String(t["obs:artifactDigest"]) }),
      "NOT_FOUND",
    );
    assert.ok((await tina.listImports()).items.some((i) => i.identifier === tid));
    const tApproved = await tina.reviewImport(tid, {
      action: "approve",
      digest: String(t["obs:artifactDigest"]),
    });
    assert.equal(tApproved["obs:lifecycle"], "approved");
    assert.ok(await found(tina, "team helper", tid));
    assert.equal(await found(bob, "team helper", tid), undefined);

    // Removal by the owner: gone for everyone, and a fresh submit starts over as pending.
    assert.deepEqual(await alice.removeImport(tid), { identifier: tid, removed: true });
    await refused(tina.entry(tid), "NOT_FOUND");
    const again = await tina.submitCard({
      cardUrl: teamAgent.cardUrl,
      visibility: "team",
      teamId: String(team.id),
    });
    assert.equal(again["obs:lifecycle"], "pending");
    assert.equal(again.identifier, tid);
  } finally {
    await agent.close();
    await teamAgent.close();
    await reg.close();
  }
});
