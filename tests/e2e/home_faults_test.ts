/**
 * The home (OBSERVAL_HOME) under faults, as a user meets them: a home on a read-only file
 * system (a read-only bind mount made by bubblewrap, which stops root too and needs no root),
 * the files a full run leaves there (private, whatever the umask), and a disk that fills
 * while a registry Agent runs (a real tmpfs of a few MB; root only).
 */
import assert from "node:assert/strict";
// @ts-types="@modelcontextprotocol/sdk/client/index"
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { lstatSync, readdirSync, readFileSync, statfsSync } from "node:fs";
import { join } from "node:path";
import type { Task } from "../../lib/a2a/mod.ts";
import { systemClock } from "../../lib/core/mod.ts";
import { openRegistry, registryPath } from "../../lib/server/mod.ts";
import { openTaskStore } from "../../lib/store/mod.ts";
import { setup, workersGone } from "../support/gated_agent.ts";
import { localPlayground } from "../support/local_delegation.ts";
import { MAIN } from "../support/process.ts";
import { canMountDisks, mountSmallDisk } from "../support/small_disk.ts";

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs observal as its own process, under `wrap` (a command prefix) when given. */
async function observal(
  env: Record<string, string | undefined>,
  cwd: string,
  args: string[],
  wrap: string[] = [],
): Promise<Ran> {
  const argv = [...wrap, Deno.execPath(), "run", "-A", MAIN, ...args];
  const out = await new Deno.Command(argv[0], {
    args: argv.slice(1),
    env: { ...env, PATH: env.PATH ?? Deno.env.get("PATH") } as Record<string, string>,
    clearEnv: true,
    cwd,
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
}

/** bubblewrap showing the whole file system as it is, but `dir` read-only. */
const readOnly = (dir: string) => ["bwrap", "--dev-bind", "/", "/", "--ro-bind", dir, dir];

/** Calls MCP tools on `observal delegate mcp` run with its home read-only. */
async function mcpCalls(
  env: Record<string, string | undefined>,
  home: string,
  calls: [string, Record<string, unknown>][],
): Promise<{ text: string; isError: boolean }[]> {
  const argv = [...readOnly(home), Deno.execPath(), "run", "-A", MAIN, "delegate", "mcp"];
  const client = new Client({ name: "observal-test", version: "0.0.0" });
  await client.connect(
    new StdioClientTransport({
      command: argv[0],
      args: argv.slice(1),
      env: Object.fromEntries(
        Object.entries({ PATH: Deno.env.get("PATH"), ...env }).filter((e): e is [
          string,
          string,
        ] => e[1] !== undefined),
      ),
      cwd: home,
      stderr: "ignore",
    }),
  );
  try {
    const results = [];
    for (const [name, args] of calls) {
      const r = await client.callTool({ name, arguments: args });
      const content = r.content as { text?: string }[];
      results.push({ text: content.map((c) => c.text ?? "").join("\n"), isError: !!r.isError });
    }
    return results;
  } finally {
    await client.close();
  }
}

Deno.test("a read-only home: run, cancel, reply, settings set and serve exit 9, and the MCP tools fail, with one message and remedy", async () => {
  const s = await setup({ ask: true });
  try {
    const asked = await s.json(["delegate", "run", s.identifier, "Test it", "--wait", "60"]);
    assert.equal(asked.body.status.state, "TASK_STATE_INPUT_REQUIRED", asked.stderr);
    const id = asked.body.id;
    const commands = [
      ["delegate", "run", s.identifier, "Hi", "--wait", "0"],
      ["delegate", "cancel", id],
      ["delegate", "reply", id, "Yes"],
      ["registry", "settings", "set", "deployment.public_url", "https://ro-home.example"],
      ["registry", "serve", "--port", "0"],
    ];
    const remedies = new Set<string>();
    // Closed, the databases have no -wal and -shm files and SQLite cannot even open them;
    // held open by another process (a running worker, say), they open and the write fails.
    for (const held of [false, true]) {
      const store = held ? openTaskStore({ home: s.home, clock: systemClock }) : undefined;
      const registry = held
        ? openRegistry({ path: registryPath(s.home), clock: systemClock, delegationCommand: [] })
        : undefined;
      try {
        for (const args of commands) {
          const r = await observal(s.env, s.home, args, readOnly(s.home));
          const what = `${held ? "held" : "closed"}: ${args.slice(0, 3).join(" ")}`;
          assert.equal(r.code, 9, `${what}: ${r.stderr}`);
          const lines = r.stderr.trim().split("\n");
          assert.equal(lines.length, 2, `${what}: a message and a remedy: ${r.stderr}`);
          assert.equal(
            lines[0],
            `error: Cannot write to the observal home ${s.home}: it is on a read-only file system`,
            what,
          );
          remedies.add(lines[1]);
        }
        // The MCP server says it to the model the same way.
        for (
          const r of await mcpCalls(s.env, s.home, [
            ["delegate", { agent: s.identifier, message: "Hi", wait_seconds: 0 }],
            ["delegate", { task_id: id, message: "Yes", wait_seconds: 0 }],
            ["cancel_task", { task_id: id }],
          ])
        ) {
          assert.ok(r.isError, r.text);
          assert.match(r.text, /Cannot write to the observal home .*: it is on a read-only file/);
          remedies.add(r.text.split("\n")[1].replace(/\.$/, ""));
        }
      } finally {
        store?.close();
        registry?.close();
      }
    }
    assert.deepEqual([...remedies], [
      "Make it writable (remount its file system read-write), or point OBSERVAL_HOME at a " +
      "writable folder, then try again",
    ]);
    // Nothing took effect: the task still waits, no second task, the setting unchanged.
    const list = await observal(s.env, s.home, ["delegate", "list", "--json"]);
    const tasks = JSON.parse(list.stdout).items as Task[];
    assert.deepEqual(tasks.map((t) => t.status.state), ["TASK_STATE_INPUT_REQUIRED"]);
    const settings = await observal(s.env, s.home, ["registry", "settings", "list", "--json"]);
    const items = JSON.parse(settings.stdout).items as { key: string; value: unknown }[];
    assert.equal(items.find((i) => i.key === "deployment.public_url")?.value, "");
    assert.equal((await s.json(["delegate", "cancel", id])).code, 0);
  } finally {
    await s.close();
  }
});

/**
 * A stand-in for `claude -p` that writes one file and answers; with $FAKE_FLOOD it first
 * prints that many bytes.
 */
const FAKE_CLAUDE = `#!/bin/sh
sid=""
prev=""
for a in "$@"; do
  [ "$prev" = "--session-id" ] && sid="$a"
  prev="$a"
done
cat > /dev/null
[ -n "\${FAKE_FLOOD:-}" ] && head -c "$FAKE_FLOOD" /dev/zero
printf 'made\\n' > made.txt
printf '{"type":"result","result":"Done here.","is_error":false,"session_id":"%s"}\\n' "$sid"
`;

/** Every file and folder under `dir` (links not followed) whose mode lets others in. */
function tooOpen(dir: string): string[] {
  const found: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const stat = lstatSync(path);
    const mode = stat.mode & 0o777;
    if (stat.isDirectory()) {
      if (mode & ~0o700) found.push(`${mode.toString(8)} ${path}/`);
      found.push(...tooOpen(path));
    } else if (!stat.isSymbolicLink() && mode & ~0o600) {
      found.push(`${mode.toString(8)} ${path}`);
    }
  }
  return found;
}

Deno.test("after a full run with umask 000, no file in the home is more open than 0600, no folder than 0700", async () => {
  const pg = await localPlayground();
  try {
    pg.program("claude", FAKE_CLAUDE);
    // umask 000 takes away nothing: every mode is what observal asked for.
    const umask0 = ["sh", "-c", 'umask 000 && exec "$@"', "sh"];
    const set = await observal(pg.env, pg.repo, [
      "registry",
      "settings",
      "set",
      "deployment.public_url",
      "https://registry.example",
    ], umask0);
    assert.equal(set.code, 0, set.stderr);
    const r = await observal(pg.env, pg.repo, [
      "delegate",
      "run",
      pg.identifier,
      "--harness",
      "claude-code",
      "--json",
      "--",
      "Make the file",
    ], umask0);
    assert.equal(r.code, 0, r.stderr);
    const task = JSON.parse(r.stdout) as Task;
    assert.equal(task.status.state, "TASK_STATE_COMPLETED");
    // Written after the task settled: the worker's last log lines, the store's checkpoint.
    await workersGone(pg.home);
    const names = readdirSync(join(pg.home, "delegations", task.id));
    for (const file of ["state", "worker.log", "stdout.log", "stderr.log", "changes.patch"]) {
      assert.ok(names.includes(file), `${file} is in the task folder: ${names}`);
    }
    assert.deepEqual(tooOpen(pg.home), []);
  } finally {
    await pg.close();
  }
});

Deno.test({
  name: "a disk that fills while the harness writes: the task fails naming the full disk",
  ignore: !canMountDisks,
  async fn() {
    const pg = await localPlayground();
    const dir = join(pg.home, "delegations");
    const unmount = mountSmallDisk(dir, "size=4m");
    try {
      pg.program("claude", FAKE_CLAUDE);
      // Twice the disk: the child's output fills it while the run is under way.
      const r = await pg.json(
        ["delegate", "run", pg.identifier, "--harness", "claude-code", "--", "Flood"],
        { env: { FAKE_FLOOD: String(8 * 1024 * 1024) } },
      );
      assert.equal(r.code, 3, r.stderr);
      const task = r.body as unknown as Task;
      assert.equal(task.status.state, "TASK_STATE_FAILED");
      const said = task.status.message?.parts[0].text ?? "";
      assert.match(
        said,
        new RegExp(`Cannot write to the observal home ${pg.home}: its disk is full\\. Free`),
      );
      assert.match(said, /output could not be kept/);
      await workersGone(pg.home);
      const log = readFileSync(join(dir, task.id, "worker.log"), "utf8");
      assert.doesNotMatch(log, /Uncaught|ENOSPC.*\n\s+at /, log);
      // The flood's log was cut, so the disk has room again.
      const fs = statfsSync(dir);
      assert.ok(Number(fs.bavail) * Number(fs.bsize) > 1024 * 1024, "space was given back");
      assert.ok(lstatSync(join(dir, task.id, "stdout.log")).size <= 64 * 1024);
    } finally {
      unmount();
      await pg.close();
    }
  },
});
