/**
 * `observal delegate run` hands a task to an approved registry Agent, and the real harness
 * CLI (pinned, from npm) does the work in the throwaway copy, driven by the scripted model
 * server. Everything runs inside a loopback-only network namespace where the machine
 * allows it, so nothing can leave the machine.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Task } from "../../lib/a2a/mod.ts";
import { type HarnessKey, planHeadlessRun } from "../../lib/harness/mod.ts";
import { ensureHarnessCli, type HarnessCliKey, harnessTestEnv } from "../support/harness_clis.ts";
import { agentYaml, gitDirState, localPlayground, treeOf } from "../support/local_delegation.ts";
import { type ScriptStep, scriptText } from "../support/model_server.ts";
import { runEntered, startModelServerInNetns } from "../support/netns.ts";
import { callerShell, MAIN } from "../support/process.ts";
import { buildNpm } from "../packaging/_pack.ts";

const FINAL = "Made the three changes.";
/** Starts with dashes: it must reach the agent as the task, never as a flag. */
const TASK = "--help is part of the task: follow your scripted plan.";
const STEPS: ScriptStep[] = [
  { write: { path: "new.txt", content: "created by the agent\n" } },
  { edit: { path: "edit.txt", old: "two", new: "TWO" } },
  { delete: { path: "gone.txt" } },
  { say: FINAL },
];

const REPO = fileURLToPath(new URL("../..", import.meta.url));

/**
 * How observal is installed: from source; the npm package under Node (whose workers run
 * under Node's permission model); the bundle a compiled binary embeds, run as the binary
 * runs it. Each shipped form is built once, on first use, and removed when the file's
 * tests end.
 */
type Form = "source" | "npm" | "binary";
const built = new Map<Form, string[]>();
const scratch: string[] = [];
function observalArgv(form: Form): string[] {
  if (form === "source") return [Deno.execPath(), "run", "-A", MAIN];
  let argv = built.get(form);
  if (argv) return argv;
  if (form === "npm") {
    // Inside the repository, so Node finds the dependencies as an install would.
    const out = join(REPO, "tmp", `npm-harness-${crypto.randomUUID().slice(0, 8)}`);
    scratch.push(out);
    buildNpm(out);
    argv = [join(REPO, "node_modules", ".bin", "node"), join(out, "bin", "observal.mjs")];
  } else {
    const out = mkdtempSync(join(tmpdir(), "observal-bundle-"));
    scratch.push(out);
    execFileSync("bash", ["compile.sh", "--bundle", join(out, "b")], { cwd: REPO, stdio: "pipe" });
    argv = [Deno.execPath(), "run", "--no-config", "-A", join(out, "b", "observal.mjs")];
  }
  built.set(form, argv);
  return argv;
}
globalThis.addEventListener("unload", () => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function runObserval(
  argv: string[],
  options: { enter: string[]; cwd: string; env: Record<string, string>; form: Form },
): Promise<{ code: number; stdout: string; stderr: string }> {
  return runEntered(options.enter, [...observalArgv(options.form), ...argv], options);
}

function delegateTest(
  key: HarnessCliKey,
  session: "chosen" | RegExp,
  options: { form?: Form; sandbox: "on" | "off" },
) {
  const { form = "source", sandbox } = options;
  const from = form === "source" ? "" : ` (${form})`;
  Deno.test(`delegate run --harness ${key}${from} --sandbox ${sandbox}, from the caller's shell: the real CLI edits the copy; the patch applies`, async () => {
    const cli = await ensureHarnessCli(key);
    const model = await startModelServerInNetns();
    const pg = await localPlayground({
      yaml: agentYaml("scripted", `# via ${key}\n`).replace(
        "  You fix small things.\n",
        `  You follow a scripted plan. ${scriptText(STEPS)}\n`,
      ),
    });
    try {
      const env: Record<string, string> = {
        ...(pg.env as Record<string, string>),
        ...harnessTestEnv(key, { home: pg.root, modelUrl: model.url }),
        ...callerShell(pg.repo),
      };
      env.PATH = `${cli.binDir}:${env.PATH}`;
      // A 5xx would otherwise be retried for minutes.
      env.CLAUDE_CODE_MAX_RETRIES = "1";
      if (key === "pi") {
        // Pi runs only where it already trusts the caller's repository.
        const dir = join(pg.root, ".pi", "agent");
        mkdirSync(dir, { recursive: true });
        writeFileSync(join(dir, "trust.json"), JSON.stringify({ [pg.repo]: true }));
      }
      const treeBefore = treeOf(pg.repo);
      const gitBefore = gitDirState(pg.repo);
      const r = await runObserval(
        [
          "delegate",
          "run",
          pg.identifier,
          "--harness",
          key,
          "--sandbox",
          sandbox,
          "--json",
          "--wait",
          "300",
          "--",
          TASK,
        ],
        { enter: model.enter, cwd: pg.repo, env, form },
      );
      const task = JSON.parse(r.stdout || "{}") as Task;
      const detail = () => {
        const dir = join(pg.home, "delegations", task.id ?? "");
        const read = (f: string) => {
          try {
            return readFileSync(join(dir, f), "utf8").slice(-3000);
          } catch {
            return "";
          }
        };
        return `exit ${r.code}\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}\n` +
          `stdout.log:\n${read("stdout.log")}\nstderr.log:\n${read("stderr.log")}\n` +
          `worker.log:\n${read("worker.log")}\nrequests: ${
            model.requests().map((q) => `${q.path} -> ${q.reply}`).join(", ")
          }`;
      };
      assert.equal(r.code, 0, detail());
      assert.equal(task.status.state, "TASK_STATE_COMPLETED", detail());
      const meta = task.metadata.observal;
      assert.equal(meta.harness, key);
      assert.equal(meta.sandbox, sandbox === "on" ? "bwrap" : "none");
      const result = task.artifacts?.find((a) => a.name === "result");
      assert.equal(result?.parts[0].text, FINAL, detail());
      assert.ok(meta.patchPath, detail());
      const patch = readFileSync(meta.patchPath, "utf8");
      // The agent's own configuration stays out of the patch.
      assert.doesNotMatch(
        patch,
        /\.claude\/|\.codex\/|\.opencode\/|\.github\/agents|opencode\.json|\.gemini\//,
      );
      // The child's session id is recorded: chosen by us, or read from the harness.
      if (session === "chosen") {
        assert.match(meta.childSessionId ?? "", /^[0-9a-f]{8}-[0-9a-f-]{27}$/);
      } else {
        assert.match(meta.childSessionId ?? "", session);
      }
      // The task reached the model as the task, and only the namespace's loopback was used.
      assert.ok(
        model.requests().some((q) => JSON.stringify(q.body).includes(TASK)),
        "the brief reached the model",
      );
      assert.ok(model.isolated || Deno.build.os !== "linux", "children ran in a network namespace");

      // Until the caller applies it, the caller's repository is exactly as it was.
      assert.deepEqual(treeOf(pg.repo), treeBefore);
      assert.deepEqual(gitDirState(pg.repo), gitBefore);
      pg.git("apply", meta.patchPath);
      const after = treeOf(pg.repo);
      assert.deepEqual(after, {
        "keep.txt": "keep\n",
        "edit.txt": "one\nTWO\n",
        "new.txt": "created by the agent\n",
      });
    } finally {
      await pg.close();
      await model.close();
    }
  });
}

for (const sandbox of ["on", "off"] as const) {
  delegateTest("claude-code", "chosen", { sandbox });
  delegateTest("codex", /^[0-9a-f-]{36}$/, { sandbox });
  delegateTest("pi", "chosen", { sandbox });
  delegateTest("opencode", /^ses_/, { sandbox });
  delegateTest("copilot-cli", "chosen", { sandbox });
  delegateTest("gemini-cli", "chosen", { sandbox });
}
// As installed: the npm package's worker runs under Node's permission model; the binary's
// bundle loads harness renderers from its chunks.
delegateTest("claude-code", "chosen", { form: "npm", sandbox: "on" });
delegateTest("codex", /^[0-9a-f-]{36}$/, { form: "binary", sandbox: "on" });

/** The help text a flag must appear in, per harness. */
const HELP: Record<HarnessCliKey, string[]> = {
  "claude-code": ["--help"],
  codex: ["exec", "--help"],
  pi: ["--help"],
  opencode: ["run", "--help"],
  "copilot-cli": ["--help"],
  "gemini-cli": ["--help"],
};

Deno.test("every flag an adapter passes is in the pinned CLI's --help", async () => {
  for (const key of Object.keys(HELP) as HarnessCliKey[]) {
    const cli = await ensureHarnessCli(key);
    const plan = planHeadlessRun({
      harness: key as HarnessKey,
      binary: cli.bin,
      agentName: "reviewer",
      instructions: "Review.",
      message: "task",
      workdir: "/ws",
      scratch: "/scratch",
      sessionId: "11111111-2222-4333-8444-555555555555",
      mcpServers: { git: { command: "npx", args: ["git-mcp"], env: { A: "1" } } },
    });
    const flags = new Set(
      plan.argv.slice(1).filter((a) => /^--[a-z]/.test(a)).map((a) => a.split("=")[0]),
    );
    const out = await new Deno.Command(cli.bin, {
      args: HELP[key],
      env: { PATH: `${cli.binDir}:${Deno.env.get("PATH")}`, HOME: "/nonexistent", NO_COLOR: "1" },
      clearEnv: true,
      stdin: "null",
    }).output();
    const help = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
    for (const flag of flags) {
      assert.ok(
        new RegExp(`(^|[\\s,\\[])${flag}(?![\\w-])`, "m").test(help),
        `${key}: ${flag} is not in \`${HELP[key].join(" ")}\`:\n${help.slice(0, 4000)}`,
      );
    }
  }
});
