/** lib/core/host.ts: the process's streams, as a command writes them under Deno, and its timers. */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const HOST = new URL("../../lib/core/host.ts", import.meta.url).href;

// A reader that made its end of the pipe non-blocking (the flag is shared with the
// writer's end), and reads only after a second: by then the pipe is long full.
const SLOW_NON_BLOCKING_READER = `
import fcntl, os, subprocess, sys, time
r, w = os.pipe()
fcntl.fcntl(w, fcntl.F_SETFL, fcntl.fcntl(w, fcntl.F_GETFL) | os.O_NONBLOCK)
child = subprocess.Popen(sys.argv[1:], stdout=w)
os.close(w)
time.sleep(1)
total = 0
while chunk := os.read(r, 65536):
    total += len(chunk)
print(total, child.wait())
`;

/**
 * Runs `body` (a module that imports host.ts as `HOST`) with its stdout on such a pipe;
 * resolves to what the reader says: the bytes it got and the writer's exit code.
 */
async function writeThroughSlowPipe(body: string): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "observal-host-"));
  const script = join(dir, "write.ts");
  writeFileSync(script, body.replaceAll("HOST", JSON.stringify(HOST)));
  try {
    const out = await new Deno.Command("python3", {
      args: ["-c", SLOW_NON_BLOCKING_READER, Deno.execPath(), "run", "-A", script],
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, stderr);
    return new TextDecoder().decode(out.stdout).trim();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

Deno.test("hostStream() finishes a write to a full pipe its reader made non-blocking", async () => {
  const said = await writeThroughSlowPipe(
    `import { hostStream } from HOST;\nhostStream("stdout").write("A".repeat(1 << 20));\n`,
  );
  // Every byte arrived and the writer exited 0; before, it died of EAGAIN after 64 KiB.
  assert.equal(said, `${1 << 20} 0`);
});

Deno.test("hostStdio()'s stdout finishes a write to a full pipe its reader made non-blocking", async () => {
  // The MCP server's answers go this way; a harness may hand it such a pipe.
  const said = await writeThroughSlowPipe(
    `import { hostStdio } from HOST;\n` +
      `const bytes = new Uint8Array(1 << 20).fill(65);\n` +
      `for (let at = 0; at < bytes.length;) at += await hostStdio()!.stdout.write(bytes.subarray(at));\n`,
  );
  assert.equal(said, `${1 << 20} 0`);
});

/**
 * A script for {@linkcode startTimer}: three timers, one left to fire and two canceled (one
 * of them far off), plus one given a bad delay. It prints what fired, in order, and when.
 */
const TIMERS = (host: string) => `
import { startTimer } from ${JSON.stringify(host)};
const t0 = performance.now();
const fired = [];
const at = (name) => () => fired.push([name, Math.round(performance.now() - t0)]);
startTimer(60, () => { at("kept")(); console.log(JSON.stringify(fired)); });
startTimer(Number.NaN, at("bad delay"));
const early = startTimer(20, at("canceled"));
const far = startTimer(60_000, at("far"));
early();
far();
far(); // a second cancel changes nothing
`;

for (const runtime of ["deno", "node"] as const) {
  Deno.test(`startTimer() fires once after its delay, never once canceled, and a canceled timer does not hold the process (${runtime})`, async () => {
    const dir = mkdtempSync(join(tmpdir(), "observal-timer-"));
    try {
      const script = join(dir, "timers.mjs");
      writeFileSync(script, TIMERS(HOST));
      const root = fileURLToPath(new URL("../..", import.meta.url));
      const argv = runtime === "deno"
        ? [Deno.execPath(), "run", "-A", "--no-config", script]
        : [join(root, "node_modules", ".bin", "node"), script];
      const start = performance.now();
      const out = await new Deno.Command(argv[0], {
        args: argv.slice(1),
        stdout: "piped",
        stderr: "piped",
        env: { RUST_BACKTRACE: "0", NO_COLOR: "1" },
      }).output();
      const elapsed = performance.now() - start;
      const stderr = new TextDecoder().decode(out.stderr);
      assert.equal(out.code, 0, stderr);
      const fired = JSON.parse(new TextDecoder().decode(out.stdout)) as [string, number][];
      assert.deepEqual(fired.map(([name]) => name), ["bad delay", "kept"]);
      const kept = fired[1][1];
      assert.ok(kept >= 59, `fired after ${kept} ms, before its 60 ms`);
      // The 60 s timer was canceled: the process ends once the kept one has fired.
      assert.ok(elapsed < 20_000, `the process took ${Math.round(elapsed)} ms to exit`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

Deno.test("fileLocks(): a lock is held until released or until its holder dies, even by kill -9", async () => {
  const { fileLocks } = await import(HOST);
  const locks = fileLocks()!;
  const dir = mkdtempSync(join(tmpdir(), "observal-lock-"));
  try {
    const path = join(dir, "runner.lock");
    assert.equal(locks.held(path), false, "no file, no lock");
    const lock = locks.take(path);
    assert.ok(lock, "taken");
    // flock locks belong to the open file: another open here, in this process, sees it.
    assert.equal(locks.held(path), true);
    assert.equal(locks.take(path), undefined, "not taken twice");
    lock.release();
    assert.equal(locks.held(path), false);
    assert.equal(existsSync(path), false, "its release removes the file");

    // Another process takes it and is killed: the OS drops its lock with it.
    const holder = new Deno.Command(Deno.execPath(), {
      args: [
        "eval",
        `const { fileLocks } = await import(${JSON.stringify(HOST)});\n` +
        `fileLocks().take(${JSON.stringify(path)}); console.log("held");\n` +
        `await new Promise(() => setInterval(() => {}, 1000));`,
      ],
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    const reader = holder.stdout.getReader();
    assert.match(new TextDecoder().decode((await reader.read()).value), /held/);
    assert.equal(locks.held(path), true, "held by the other process");
    assert.equal(locks.take(path), undefined);
    holder.kill("SIGKILL");
    await holder.status;
    reader.releaseLock();
    await holder.stdout.cancel();
    assert.equal(existsSync(path), true, "a killed holder leaves its file");
    assert.equal(locks.held(path), false, "but not its lock");
    locks.take(path)!.release();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("overwriteText() rewrites a file in place, private, and a folder watcher sees each rewrite", async () => {
  const { overwriteText } = await import(HOST);
  const { readFileSync, statSync, watch } = await import("node:fs");
  const dir = mkdtempSync(join(tmpdir(), "observal-host-"));
  const path = join(dir, "state");
  let events = 0;
  const watcher = watch(dir, (_event, name) => void (String(name) === "state" && events++));
  /** Writes, then waits (up to 2 s) for the watcher to report the file. */
  const write = async (text: string) => {
    const before = events;
    overwriteText(path, text);
    for (let i = 0; i < 100 && events === before; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.ok(events > before, `no event for ${JSON.stringify(text)}`);
  };
  try {
    await write("TASK_STATE_SUBMITTED".padEnd(31) + "\n");
    assert.equal(statSync(path).mode & 0o777, 0o600);
    const inode = statSync(path).ino;
    await write("TASK_STATE_WORKING".padEnd(31) + "\n");
    // The same file, rewritten over its start: no new inode, and no truncation.
    assert.equal(statSync(path).ino, inode);
    assert.equal(readFileSync(path, "utf8"), "TASK_STATE_WORKING".padEnd(31) + "\n");
    await write("AB");
    assert.equal(readFileSync(path, "utf8"), "AB" + "SK_STATE_WORKING".padEnd(29) + "\n");
  } finally {
    watcher.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
