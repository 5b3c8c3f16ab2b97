/**
 * `observal a2a serve` with a real harness CLI (Claude Code, pinned, from npm) doing the
 * work, driven by the scripted model server, everything inside a loopback-only network
 * namespace where the machine allows it:
 * - the A2A SDKs' own clients (@a2a-js/sdk 1.3.0 and 0.3.14) send, stream, get, list,
 *   resubscribe and cancel;
 * - another observal imports both served Agents from the server's ARD manifest and
 *   delegates from a repository with a new commit, uncommitted edits and an untracked
 *   file: the patch that comes back applies to exactly that tree, which stays untouched
 *   until then.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ensureHarnessCli, harnessTestEnv } from "../support/harness_clis.ts";
import {
  agentYaml,
  localPlayground,
  publishApproved,
  treeOf,
} from "../support/local_delegation.ts";
import { type ScriptStep, scriptText } from "../support/model_server.ts";
import { runEntered, startModelServerInNetns } from "../support/netns.ts";
import { callerShell, MAIN } from "../support/process.ts";
import { cloneWithWork, serve } from "../support/served_agent.ts";

const SDK_CLIENTS = fileURLToPath(new URL("../support/sdk_clients_main.ts", import.meta.url));
const FINAL = "Edited edit.txt and wrote new.txt.";
const BRIEF = "Follow your scripted plan.";
const QUICK: ScriptStep[] = [
  { edit: { path: "edit.txt", old: "two", new: "TWO" } },
  { write: { path: "new.txt", content: "made by the agent\n" } },
  { say: FINAL },
];
/** Works (the model stays silent) until canceled. */
const SLOW: ScriptStep[] = [{ sleep: 600_000 }, { say: "Too late." }];

function scripted(name: string, steps: ScriptStep[]): string {
  return agentYaml(name).replace(
    "  You fix small things.\n",
    `  You follow a scripted plan. ${scriptText(steps)}\n`,
  );
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "utf8" }).trim();
}

Deno.test("a2a serve with Claude Code and the scripted model: the SDK clients' every call, and another observal's delegation with its repository", async () => {
  const cli = await ensureHarnessCli("claude-code");
  const model = await startModelServerInNetns();
  const pg = await localPlayground({ yaml: scripted("quick", QUICK) });
  const callerHome = mkdtempSync(join(tmpdir(), "observal-caller-"));
  try {
    const slow = (await publishApproved(pg.env, pg.repo, scripted("slow", SLOW))).identifier;
    const env: Record<string, string> = {
      ...(pg.env as Record<string, string>),
      ...harnessTestEnv("claude-code", { home: pg.root, modelUrl: model.url }),
      // A 5xx would otherwise be retried for minutes.
      CLAUDE_CODE_MAX_RETRIES: "1",
    };
    env.PATH = `${cli.binDir}:${pg.bin}:${env.PATH}`;
    // The SDK clients' blocking sends must get the finished run, on a busy machine too
    // (the bound's own behaviour is tested in tests/agent_server/serve_test.ts).
    const served = await serve({ ...pg, env }, ["--agent", slow, "--max-wait", "600"], {
      enter: model.enter,
    });
    const servedBefore = treeOf(pg.repo);
    try {
      const quickUrl = `${served.url}/agents/quick/`;
      const slowUrl = `${served.url}/agents/slow/`;
      const clients = await runEntered(
        model.enter,
        [Deno.execPath(), "run", "-A", SDK_CLIENTS, quickUrl, slowUrl, BRIEF],
        { cwd: pg.root, env: { PATH: env.PATH, HOME: pg.root, NO_COLOR: "1" } },
      );
      const detail = () =>
        `exit ${clients.code}\n${clients.stdout}\n${clients.stderr.slice(-3000)}\nserver:\n${
          served.stderr().slice(-3000)
        }`;
      assert.equal(clients.code, 0, detail());
      const { v1, v03 } = JSON.parse(clients.stdout);

      // v1.0: the run, its stream, get and list.
      assert.equal(v1.sent.state, "TASK_STATE_COMPLETED", detail());
      assert.equal(v1.sent.result, FINAL);
      assert.match(v1.sent.patch, /^-two$/m);
      assert.match(v1.sent.patch, /^\+TWO$/m);
      assert.match(v1.sent.patch, /^\+made by the agent$/m);
      assert.equal(v1.streamed.states[0], "TASK_STATE_SUBMITTED");
      assert.ok(v1.streamed.states.includes("TASK_STATE_WORKING"), v1.streamed.states);
      assert.equal(v1.streamed.states.at(-1), "TASK_STATE_COMPLETED");
      assert.equal(v1.got.state, "TASK_STATE_COMPLETED");
      assert.ok(v1.got.history >= 1);
      assert.ok(v1.listed.includes(v1.streamed.id), JSON.stringify(v1.listed));
      // Resubscribed while the slow run works, then canceled: the stream ends canceled.
      assert.equal(v1.resubscribed[0], "TASK_STATE_WORKING");
      assert.equal(v1.resubscribed.at(-1), "TASK_STATE_CANCELED", JSON.stringify(v1));
      assert.equal(v1.canceled, "TASK_STATE_CANCELED");
      // v0.3: the same, in v0.3 shapes.
      assert.equal(v03.sent.state, "completed", detail());
      assert.equal(v03.sent.result, FINAL);
      assert.match(v03.sent.patch, /^\+TWO$/m);
      assert.equal(v03.streamed.at(-1), "completed");
      assert.equal(v03.got, "completed");
      assert.equal(v03.resubscribed[0], "working");
      assert.equal(v03.resubscribed.at(-1), "canceled", JSON.stringify(v03));
      assert.equal(v03.canceled, "canceled");
      assert.ok(
        model.requests().some((q) => JSON.stringify(q.body).includes(BRIEF)),
        "the brief reached the model",
      );

      // Another observal: imports both Agents from the manifest, delegates with its tree.
      const repo = cloneWithWork(pg.repo, join(callerHome, "work"));
      // As a person runs it: a shell inside the repository (PWD, OLDPWD, git pointed at
      // it), and a home reached through a symlink.
      mkdirSync(join(callerHome, "real-home"));
      symlinkSync(join(callerHome, "real-home"), join(callerHome, "home"));
      const callerEnv = {
        OBSERVAL_HOME: join(callerHome, "home"),
        HOME: join(callerHome, "home"),
        PATH: env.PATH,
        NO_COLOR: "1",
        ...callerShell(repo),
      };
      const observal = async (args: string[]) => {
        const r = await runEntered(model.enter, [Deno.execPath(), "run", "-A", MAIN, ...args], {
          cwd: repo,
          env: callerEnv,
        });
        assert.equal(r.code, 0, `${args.join(" ")}: ${r.stdout}\n${r.stderr}`);
        return r.stdout;
      };
      await observal(["registry", "settings", "set", "discovery.a2a_private_hosts", "127.0.0.1"]);
      const imported = JSON.parse(
        await observal([
          "registry",
          "a2a",
          "submit",
          `${served.url}/.well-known/ard.json`,
          "--json",
        ]),
      ).items as Array<Record<string, string>>;
      assert.deepEqual(imported.map((d) => d.displayName).sort(), ["quick", "slow"]);
      for (const doc of imported) {
        await observal([
          "registry",
          "a2a",
          "review",
          doc.identifier,
          "--approve",
          "--digest",
          doc["obs:artifactDigest"],
        ]);
      }
      const quickId = imported.find((d) => d.displayName === "quick")!.identifier;
      const before = {
        tree: treeOf(repo),
        status: git(repo, "status", "--porcelain=v2", "--untracked-files=all"),
        head: git(repo, "rev-parse", "HEAD"),
      };
      const task = JSON.parse(
        await observal(["delegate", "run", quickId, BRIEF, "--wait", "300", "--json"]),
      );
      assert.equal(task.status.state, "TASK_STATE_COMPLETED", JSON.stringify(task.status));
      assert.deepEqual(
        {
          tree: treeOf(repo),
          status: git(repo, "status", "--porcelain=v2", "--untracked-files=all"),
          head: git(repo, "rev-parse", "HEAD"),
        },
        before,
        "the caller's repository is untouched until the patch is applied",
      );
      const patchPath = task.metadata.observal.patchPath;
      git(repo, "apply", patchPath);
      assert.equal(
        readFileSync(join(repo, "edit.txt"), "utf8"),
        "one\nTWO\ncommitted\nuncommitted\n",
      );
      assert.equal(readFileSync(join(repo, "new.txt"), "utf8"), "made by the agent\n");
      assert.equal(readFileSync(join(repo, "notes.txt"), "utf8"), "untracked\n");
      assert.ok(model.isolated || Deno.build.os !== "linux", "everything ran in a namespace");
    } finally {
      assert.equal(await served.stop(), 0, served.stderr());
    }
    assert.deepEqual(treeOf(pg.repo), servedBefore, "the served repository never changes");
  } finally {
    rmSync(callerHome, { recursive: true, force: true });
    await pg.close();
    await model.close();
  }
});
