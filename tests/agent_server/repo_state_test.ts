/**
 * The repository-state extension end to end: an observal caller delegates from a
 * repository with a new commit, uncommitted edits and an untracked file to a served Agent
 * (`a2a serve` on a second home, a real harness program); the Agent works on exactly that
 * tree, the caller's repository stays untouched, and the returned patch applies to it.
 * Then hostile states sent over raw JSON-RPC: each refused with a reason, nothing kept.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { REPO_STATE_EXTENSION } from "../../lib/a2a/mod.ts";
import { treeOf } from "../support/local_delegation.ts";
import { callerHome, cloneWithWork, type Served, withServed } from "../support/served_agent.ts";

/**
 * Says what it saw (edit.txt and the untracked notes.txt, one line) and appends a line to
 * edit.txt, answering as `claude -p --output-format json` does.
 */
const SEES_AND_EDITS = `#!/bin/sh
cat > /dev/null
seen=$(cat edit.txt notes.txt 2>/dev/null | tr '\\n' ' ')
printf 'three\\n' >> edit.txt
printf '{"type":"result","result":"saw: %s","is_error":false,"session_id":"s1"}\\n' "$seen"
`;

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
}

/** Everything the caller's repository is: its files, index, HEAD and refs. */
function stateOf(repo: string): string {
  return JSON.stringify({
    tree: treeOf(repo),
    status: git(repo, "status", "--porcelain=v2", "--untracked-files=all"),
    head: git(repo, "rev-parse", "HEAD"),
    refs: git(repo, "for-each-ref"),
  });
}

Deno.test("a2a serve: delegate run sends the caller's repository state; the Agent works on exactly that tree and the patch applies to it", async () => {
  await withServed(SEES_AND_EDITS, async (pg, served) => {
    const served0 = treeOf(pg.repo);
    const caller = await callerHome(served);
    try {
      const repo = cloneWithWork(pg.repo, join(caller.home, "work"));
      const before = stateOf(repo);
      const run = await caller.run(
        ["delegate", "run", caller.id, "Add a line.", "--wait", "120", "--json"],
        repo,
      );
      assert.equal(run.code, 0, run.stderr);
      const task = JSON.parse(run.stdout);
      assert.equal(task.status.state, "TASK_STATE_COMPLETED", JSON.stringify(task.status));
      const result = task.artifacts.find((a: { name?: string }) => a.name === "result");
      // The new commit, the uncommitted line and the untracked file all reached the Agent.
      assert.equal(result.parts[0].text, "saw: one two committed uncommitted untracked");
      // Nothing in the caller's repository changed; the patch is kept as a local run's is.
      assert.equal(stateOf(repo), before);
      const meta = task.metadata.observal;
      assert.equal(meta.repository, repo);
      const patch = readFileSync(meta.patchPath, "utf8");
      assert.match(patch, /^\+three$/m);
      git(repo, "apply", "--check", meta.patchPath);
      git(repo, "apply", meta.patchPath);
      assert.equal(
        readFileSync(join(repo, "edit.txt"), "utf8"),
        "one\ntwo\ncommitted\nuncommitted\nthree\n",
      );
      // The state sent is dropped from the caller's task folder once the task ended.
      assert.deepEqual(
        readdirSync(join(meta.patchPath, "..")).filter((f) => f.startsWith("repo-")),
        [],
      );

      // --no-repo: the brief alone; the Agent works on the served repository's HEAD.
      const bare = await caller.run(
        ["delegate", "run", caller.id, "Add a line.", "--no-repo", "--wait", "120", "--json"],
        repo,
      );
      assert.equal(bare.code, 0, bare.stderr);
      const plain = JSON.parse(bare.stdout);
      const said = plain.artifacts.find((a: { name?: string }) => a.name === "result");
      assert.equal(said.parts[0].text, "saw: one two");
    } finally {
      caller.close();
    }
    assert.deepEqual(treeOf(pg.repo), served0, "the served repository is never changed");
    // Each rebuilt tree is removed when its run ends.
    const incoming = join(pg.home, "delegations", "incoming");
    const left = readdirSync(incoming).flatMap((d) => readdirSync(join(incoming, d)))
      .filter((f) => f.startsWith("state-"));
    assert.deepEqual(left, []);
  });
});

/** A SendMessage with the extension activated, carrying `parts` and `meta` as the state. */
async function sendState(
  served: Served,
  files: Array<{ bytes: Uint8Array; mediaType: string }>,
  meta: unknown,
): Promise<{ status: number; body: RpcAnswer }> {
  const res = await fetch(`${served.url}/`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "A2A-Version": "1.0",
      "A2A-Extensions": REPO_STATE_EXTENSION,
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "SendMessage",
      params: {
        message: {
          messageId: crypto.randomUUID(),
          role: "ROLE_USER",
          extensions: [REPO_STATE_EXTENSION],
          metadata: { [REPO_STATE_EXTENSION]: meta },
          parts: [
            { text: "Add a line." },
            ...files.map((f) => ({
              raw: Buffer.from(f.bytes).toString("base64"),
              mediaType: f.mediaType,
            })),
          ],
        },
      },
    }),
  });
  return { status: res.status, body: await res.json() };
}

/** A SendMessage answer, as far as these tests read it. */
interface RpcAnswer {
  result?: {
    task?: { status: { state: string; message: { parts: Array<{ text: string }> } } };
  };
  error?: { code: number };
}

/** The refusal a task carries, or fails when it was not refused. */
function refusal(r: { body: RpcAnswer }): string {
  const task = r.body.result?.task;
  assert.ok(task, JSON.stringify(r.body).slice(0, 500));
  assert.equal(task.status.state, "TASK_STATE_REJECTED", JSON.stringify(task.status));
  return task.status.message.parts[0].text;
}

const patchOf = (text: string) => new TextEncoder().encode(text);
const DIFF = "text/x-diff";
const BUNDLE = "application/x-git-bundle";

Deno.test("a2a serve refuses hostile repository states with a reason: extra refs, paths out of the tree or into .git, not a bundle, a 1 GB body", async () => {
  await withServed(SEES_AND_EDITS, async (pg, served) => {
    const served0 = treeOf(pg.repo);
    const scratch = mkdtempSync(join(tmpdir(), "observal-hostile-"));
    try {
      const head = git(pg.repo, "rev-parse", "HEAD");
      // A bundle with HEAD and a second ref.
      git(pg.repo, "branch", "-q", "extra");
      const twoRefs = join(scratch, "two.bundle");
      git(pg.repo, "bundle", "create", "-q", twoRefs, "HEAD", "extra");
      git(pg.repo, "branch", "-q", "-D", "extra");
      const extra = await sendState(
        served,
        [{ bytes: readFileSync(twoRefs), mediaType: BUNDLE }],
        { head, path: "" },
      );
      assert.match(refusal(extra), /exactly one ref, HEAD/);

      const outside = await sendState(served, [{
        bytes: patchOf(
          "diff --git a/../escape.txt b/../escape.txt\nnew file mode 100644\n--- /dev/null\n" +
            "+++ b/../escape.txt\n@@ -0,0 +1 @@\n+out\n",
        ),
        mediaType: DIFF,
      }], { head, path: "" });
      assert.match(refusal(outside), /changes do not apply/);

      const hook = await sendState(served, [{
        bytes: patchOf(
          "diff --git a/.git/hooks/post-checkout b/.git/hooks/post-checkout\nnew file mode " +
            "100755\n--- /dev/null\n+++ b/.git/hooks/post-checkout\n@@ -0,0 +1 @@\n+touch pwned\n",
        ),
        mediaType: DIFF,
      }], { head, path: "" });
      assert.match(refusal(hook), /changes do not apply/);

      const notBundle = await sendState(
        served,
        [{ bytes: patchOf("#!/bin/sh\necho hi\n"), mediaType: BUNDLE }],
        { head, path: "" },
      );
      assert.match(refusal(notBundle), /not a git bundle/);

      const unknownHead = await sendState(served, [], { head: "f".repeat(40), path: "" });
      assert.match(refusal(unknownHead), /does not have the sender's HEAD/);

      const badMeta = await sendState(served, [], { head: "HEAD; rm -rf /", path: "" });
      assert.match(refusal(badMeta), /is not \{head\?, path\}/);

      const stray = await fetch(`${served.url}/`, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 2,
          method: "SendMessage",
          params: {
            message: {
              messageId: crypto.randomUUID(),
              role: "ROLE_USER",
              parts: [{ text: "hi" }, { raw: "aGk=", mediaType: "application/zip" }],
            },
          },
        }),
      });
      assert.match(refusal({ body: await stray.json() }), /file parts are taken only/);

      // A body declared at 1 GB is refused from its header, before any of it is read.
      const rssBefore = rssKiB(served.child.pid!);
      const huge = await declareHuge(served.url, 1024 * 1024 * 1024);
      assert.equal(huge.status, 413, huge.text);
      assert.equal(JSON.parse(huge.text).error.code, -32600);
      assert.ok(rssKiB(served.child.pid!) - rssBefore < 64 * 1024, "memory stays bounded");

      // The server still serves, nothing of the refused states was kept, the repository is whole.
      const card = await fetch(`${served.url}/.well-known/agent-card.json`);
      assert.equal(card.status, 200);
      await card.body?.cancel();
      const incoming = join(pg.home, "delegations", "incoming");
      const left = readdirSync(incoming).flatMap((d) => readdirSync(join(incoming, d)))
        .filter((f) => f.startsWith("state-"));
      assert.deepEqual(left, []);
      assert.deepEqual(treeOf(pg.repo), served0);
      assert.ok(!existsSync(join(pg.repo, "..", "escape.txt")));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

/** Sends headers declaring `bytes` of body, then a few bytes, and reads the answer. */
async function declareHuge(url: string, bytes: number): Promise<{ status: number; text: string }> {
  const { hostname, port } = new URL(url);
  const conn = await Deno.connect({ hostname, port: Number(port) });
  try {
    const head = `POST / HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\n` +
      `A2A-Version: 1.0\r\nA2A-Extensions: ${REPO_STATE_EXTENSION}\r\n` +
      `Content-Length: ${bytes}\r\nConnection: close\r\n\r\n{"jsonrpc":"2.0"`;
    await conn.write(new TextEncoder().encode(head));
    const chunks: Uint8Array[] = [];
    const buf = new Uint8Array(64 * 1024);
    while (true) {
      const n = await conn.read(buf);
      if (n === null) break;
      chunks.push(buf.slice(0, n));
      const text = new TextDecoder().decode(Buffer.concat(chunks));
      const body = /\r\n\r\n([\s\S]*\})\s*$/.exec(text);
      if (body) return { status: Number(text.split(" ")[1]), text: body[1] };
    }
    const text = new TextDecoder().decode(Buffer.concat(chunks));
    return { status: Number(text.split(" ")[1]), text: text.split("\r\n\r\n")[1] ?? "" };
  } finally {
    conn.close();
  }
}

/** The resident memory of process `pid`, in KiB. */
function rssKiB(pid: number): number {
  const status = Deno.readTextFileSync(`/proc/${pid}/status`);
  return Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
}
