/**
 * `observal a2a serve` with each harness that resumes a session (real CLIs, pinned, from
 * npm) and the scripted model, inside a loopback-only network namespace where the machine
 * allows it: a follow-up in the same `contextId` resumes the first run's session (the model's
 * next request carries the first request and answer as turns of its own conversation, not
 * as a recalled summary), the harness keeps it in the first run's session file, and the
 * follow-up's patch applies on top of the first run's.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureHarnessCli, type HarnessCliKey, harnessTestEnv } from "../support/harness_clis.ts";
import { localPlayground, treeOf } from "../support/local_delegation.ts";
import { scriptText, type Wire } from "../support/model_server.ts";
import { runEntered, startModelServerInNetns } from "../support/netns.ts";
import { serve } from "../support/served_agent.ts";

const CLIENT = fileURLToPath(new URL("../support/conversation_client_main.ts", import.meta.url));
/** The briefs of one conversation: each edits edit.txt further, then answers. */
const LABELS = ["First", "Second", "Third"];
const BRIEFS = [
  ["make two loud", { path: "edit.txt", old: "two", new: "TWO" }],
  ["add three", { path: "edit.txt", old: "TWO", new: "TWO\nthree" }],
  ["add four", { path: "edit.txt", old: "three", new: "three\nfour" }],
].map(([what, edit], i) =>
  `${LABELS[i]} request: ${what}. ${
    scriptText([{ edit: edit as { path: string; old: string; new: string } }, {
      say: `${LABELS[i].toUpperCase()} ANSWER`,
    }])
  }`
);

type Json = Record<string, unknown>;

/** How one harness is told apart in the scenario. */
interface Case {
  key: HarnessCliKey;
  name: string;
  /** The API its requests use. */
  wire: Wire;
  /** Where, under HOME, it keeps session files (searched for the session id). */
  sessions: string[];
  /**
   * It continues a session in a new one that names the earlier as its parent (Pi binds a
   * session to the folder it ran in, and every run has a new copy).
   */
  forks?: boolean;
  /** What the user would have done before serving with it, under HOME. */
  prepare?: (home: string, repo: string, observalHome: string) => void;
}

const CASES: Case[] = [
  { key: "claude-code", name: "Claude Code", wire: "anthropic", sessions: [".claude", "projects"] },
  { key: "codex", name: "Codex", wire: "responses", sessions: [".codex", "sessions"] },
  {
    key: "pi",
    name: "Pi",
    wire: "chat",
    sessions: [".pi", "agent", "sessions"],
    forks: true,
    // Pi runs only in a folder it was told to trust (its project extensions execute). A
    // follow-up runs in a tree rebuilt under the server's incoming folder, so the operator
    // trusts that folder too.
    prepare: (home, repo, observalHome) =>
      writeFileSync(
        join(home, ".pi", "agent", "trust.json"),
        JSON.stringify({ [repo]: true, [join(observalHome, "delegations", "incoming")]: true }),
      ),
  },
];

/**
 * A request's conversation as role and texts, whatever the wire: Anthropic and Chat
 * Completions carry `messages`, Responses `input` (its messages are the items with a role).
 */
function turns(body: Json): { role: string; texts: string[] }[] {
  const list = (Array.isArray(body.messages) ? body.messages : body.input) as Json[] | undefined;
  return (list ?? []).filter((m) => typeof m?.role === "string").map((m) => {
    const content = m.content;
    const texts = typeof content === "string"
      ? [content]
      : Array.isArray(content)
      ? content.flatMap((c) => typeof c?.text === "string" ? [c.text] : [])
      : [];
    return { role: m.role as string, texts };
  });
}

/** Session files (`*.jsonl`) under `dir` whose name holds `id`. */
function sessionFiles(dir: string, id: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".jsonl") && f.includes(id))
    .map((f) => join(dir, f));
}

for (const c of CASES) {
  Deno.test(`a2a serve with ${c.name}: follow-ups in the same contextId resume the last run's session, on top of its changes`, async () => {
    const cli = await ensureHarnessCli(c.key);
    const model = await startModelServerInNetns();
    const pg = await localPlayground();
    const scratch = mkdtempSync(join(tmpdir(), "observal-resume-"));
    try {
      const env: Record<string, string> = {
        ...(pg.env as Record<string, string>),
        ...harnessTestEnv(c.key, { home: pg.root, modelUrl: model.url }),
        CLAUDE_CODE_MAX_RETRIES: "1",
      };
      env.PATH = `${cli.binDir}:${pg.bin}:${env.PATH}`;
      c.prepare?.(pg.root, pg.repo, pg.home);
      const served = await serve({ ...pg, env }, ["--harness", c.key], {
        enter: model.enter,
        harness: false,
      });
      const before = treeOf(pg.repo);
      try {
        const run = await runEntered(
          model.enter,
          [Deno.execPath(), "run", "-A", CLIENT, served.url, ...BRIEFS],
          { cwd: pg.root, env: { PATH: env.PATH, HOME: pg.root, NO_COLOR: "1" } },
        );
        const detail = () =>
          `exit ${run.code}\n${run.stdout}\n${run.stderr.slice(-3000)}\nserver:\n${
            served.stderr().slice(-3000)
          }\nmodel replies: ${model.requests().map((q) => q.reply).join(", ")}`;
        assert.equal(run.code, 0, detail());
        const runs = JSON.parse(run.stdout);
        const sessions: string[] = [];
        for (const [k, label] of LABELS.entries()) {
          assert.equal(runs[k].state, "TASK_STATE_COMPLETED", detail());
          assert.equal(runs[k].result, `${label.toUpperCase()} ANSWER`, detail());
          if (k === 0) continue;
          const said = runs[k].said.join("\n");
          // Pi forks the session (`--fork`); the others resume it.
          const how = c.name === "Pi" ? "continues" : "resumes";
          const fork = c.name === "Pi" ? " in a fork" : "";
          const session = new RegExp(`${how} ${c.name} session (\\S+?)${fork},`).exec(said)?.[1];
          assert.ok(session, said);
          sessions.push(session);

          // The model's requests for this brief carry every earlier run as turns of the same
          // conversation, in order: each brief from the user, its answer from the model.
          const asked = model.requests().filter((q) =>
            q.wire === c.wire && JSON.stringify(q.body).includes(`${label} request`)
          );
          assert.ok(asked.length > 0, `the ${label} brief reached the model`);
          const conversation = turns(asked[0].body as Json);
          const at = (role: string, text: string) =>
            conversation.findIndex((m) => m.role === role && m.texts.some((t) => t.includes(text)));
          const order = LABELS.slice(0, k).flatMap((l) => [
            at("user", `${l} request`),
            at("assistant", `${l.toUpperCase()} ANSWER`),
          ]).concat(at("user", `${label} request`));
          assert.ok(
            order.every((n, i) => n >= 0 && (i === 0 || n > order[i - 1])),
            `${order}: ${JSON.stringify(conversation)}`,
          );
          // Resumed, the brief is the new message only: no recalled summary of the earlier.
          assert.ok(!JSON.stringify(asked[0].body).includes("Earlier request 1:"));
        }

        // Where the harness kept the runs: one session file for them all, or for a harness
        // that forks, a file per run naming the one before as its parent, each left as it was.
        const root = join(pg.root, ...c.sessions);
        const file = (id: string) => {
          const found = sessionFiles(root, id);
          assert.equal(found.length, 1, `${id}: ${found.join("\n")}`);
          return found[0];
        };
        const read = (f: string) => readFileSync(f, "utf8");
        const [s1, s2] = sessions.map(file);
        assert.ok(read(s1).includes("First request"));
        if (c.forks) {
          const holdingThird = sessionFiles(root, "").filter((f) =>
            read(f).includes("Third request")
          );
          assert.equal(holdingThird.length, 1, holdingThird.join("\n"));
          const parent = (f: string) => JSON.parse(read(f).split("\n")[0]).parentSession;
          assert.equal(parent(s2), s1, "the second run's session names the first's");
          assert.equal(parent(holdingThird[0]), s2, "the third run's session names the second's");
          assert.ok(!read(s1).includes("Second request"), "the first session is left as it was");
          assert.ok(!read(s2).includes("Third request"), "the second session is left as it was");
        } else {
          assert.equal(s2, s1, "every run resumed the one session");
          assert.ok(read(s1).includes("Second request") && read(s1).includes("Third request"));
        }

        // Each patch applies on top of the one before, in a clone of the served repository.
        const clone = join(scratch, "clone");
        execFileSync("git", ["clone", "-q", pg.repo, clone]);
        for (const [i, { patch }] of runs.entries()) {
          const diff = join(scratch, `${i}.diff`);
          writeFileSync(diff, patch);
          execFileSync("git", ["apply", diff], { cwd: clone });
        }
        assert.equal(readFileSync(join(clone, "edit.txt"), "utf8"), "one\nTWO\nthree\nfour\n");
        assert.ok(model.isolated || Deno.build.os !== "linux", "everything ran in a namespace");
      } finally {
        assert.equal(await served.stop(), 0, served.stderr());
      }
      assert.deepEqual(treeOf(pg.repo), before, "the served repository never changes");
    } finally {
      rmSync(scratch, { recursive: true, force: true });
      await pg.close();
      await model.close();
    }
  });
}
