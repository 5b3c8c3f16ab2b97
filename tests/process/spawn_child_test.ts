import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { systemClock } from "../../lib/core/clock.ts";
import {
  adoptChild,
  type ChildRecord,
  pidExists,
  signalGroup,
  spawnChild,
} from "../../lib/process/mod.ts";

Deno.test("spawnChild() keeps at most maxBytes of each stream and counts the rest", async () => {
  const dir = mkdtempSync(join(tmpdir(), "observal-spawn-"));
  try {
    const child = await spawnChild(
      ["sh", "-c", "head -c 100000 /dev/zero | tr '\\0' x; echo err >&2"],
      {
        cwd: dir,
        env: { PATH: Deno.env.get("PATH") },
        stdoutPath: join(dir, "out"),
        stderrPath: join(dir, "err"),
        maxBytes: 1000,
      },
    );
    const exit = await child.exited;
    assert.equal(exit.code, 0);
    assert.equal(exit.dropped.stdout, 99_000);
    assert.equal(exit.dropped.stderr, 0);
    const out = readFileSync(join(dir, "out"), "utf8");
    assert.ok(out.startsWith("x".repeat(1000)));
    assert.match(out, /99000 more bytes were dropped/);
    assert.equal(readFileSync(join(dir, "err"), "utf8"), "err\n");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("spawnChild() writes stdin and closes it; a child that ignores it is fine", async () => {
  const dir = mkdtempSync(join(tmpdir(), "observal-spawn-"));
  try {
    const cat = await spawnChild(["cat"], {
      cwd: dir,
      env: { PATH: Deno.env.get("PATH") },
      stdin: "--not-a-flag\nsecond line",
      stdoutPath: join(dir, "out"),
      stderrPath: join(dir, "err"),
    });
    assert.equal((await cat.exited).code, 0);
    assert.equal(readFileSync(join(dir, "out"), "utf8"), "--not-a-flag\nsecond line");
    const deaf = await spawnChild(["true"], {
      cwd: dir,
      env: { PATH: Deno.env.get("PATH") },
      stdin: "x".repeat(1 << 20),
      stdoutPath: join(dir, "out2"),
      stderrPath: join(dir, "err2"),
    });
    assert.equal((await deaf.exited).code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("spawnChild() rejects when the program does not exist", async () => {
  const dir = mkdtempSync(join(tmpdir(), "observal-spawn-"));
  try {
    await assert.rejects(
      spawnChild([join(dir, "missing")], {
        cwd: dir,
        env: {},
        stdoutPath: join(dir, "out"),
        stderrPath: join(dir, "err"),
      }),
      /ENOENT/,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

Deno.test("spawnChild() survives output it cannot write (a full disk): the fault is reported, nothing throws", async () => {
  const dir = mkdtempSync(join(tmpdir(), "observal-spawn-"));
  try {
    // /dev/full fails every write with ENOSPC, as a full disk does.
    const child = await spawnChild(["sh", "-c", "head -c 300000 /dev/zero; echo err >&2"], {
      cwd: dir,
      env: { PATH: Deno.env.get("PATH") },
      stdoutPath: "/dev/full",
      stderrPath: join(dir, "err"),
    });
    const exit = await child.exited;
    assert.equal(exit.code, 0, "the child was read to the end, never blocked");
    assert.equal((exit.fault as NodeJS.ErrnoException | undefined)?.code, "ENOSPC");
    assert.equal(child.fault(), exit.fault);
    // The rest is counted, less what the failed write itself took (one buffer at most).
    assert.ok(exit.dropped.stdout > 300_000 - 65_536 && exit.dropped.stdout <= 300_000);
    assert.equal(readFileSync(join(dir, "err"), "utf8"), "err\n", "the other stream is kept");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Starts `script` through spawnChild from a separate process that exits at once. */
async function startedElsewhere(dir: string, script: string): Promise<ChildRecord> {
  const starter = join(dir, "starter.ts");
  writeFileSync(
    starter,
    `import { spawnChild } from ${
      JSON.stringify(new URL("../../lib/process/mod.ts", import.meta.url).href)
    };
const child = await spawnChild(["sh", "-c", ${JSON.stringify(script)}], {
  cwd: ${JSON.stringify(dir)},
  env: { PATH: Deno.env.get("PATH") },
  stdin: "brief\\n",
  stdoutPath: ${JSON.stringify(join(dir, "out"))},
  stderrPath: ${JSON.stringify(join(dir, "err"))},
});
console.log(JSON.stringify(child.record));
Deno.exit(0);
`,
  );
  const r = await new Deno.Command(Deno.execPath(), { args: ["run", "-A", starter] }).output();
  assert.equal(r.code, 0, new TextDecoder().decode(r.stderr));
  return JSON.parse(new TextDecoder().decode(r.stdout));
}

// Windows children are piped, never handed over: these cases have nothing to run there.
const posixOnly = { ignore: Deno.build.os === "windows" };

Deno.test(
  "spawnChild() on POSIX: the child outlives its starter, and adoptChild() follows it to its exit code and output",
  posixOnly,
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "observal-spawn-"));
    try {
      const record = await startedElsewhere(
        dir,
        'sleep 0.5; read line; echo "got $line"; echo warned >&2; exit 3',
      );
      assert.ok(pidExists(record.pid), "still running after its starter exited");
      assert.ok(record.startTime, "the start time is recorded");
      const child = adoptChild(record, systemClock);
      const exit = await child.exited;
      assert.deepEqual(exit, {
        code: 3,
        signal: null,
        dropped: { stdout: 0, stderr: 0 },
        fault: undefined,
      });
      assert.equal(
        readFileSync(join(dir, "out"), "utf8"),
        "got brief\n",
        "stdin came from the brief",
      );
      assert.equal(readFileSync(join(dir, "err"), "utf8"), "warned\n");
      assert.deepEqual(
        readdirSync(dir).sort(),
        ["err", "err.status", "err.status.err", "err.status.out", "out", "starter.ts"],
        "no stdin file left",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);

Deno.test(
  "spawnChild() on POSIX: a program ended by a signal, and a group stopped from outside, report no exit code",
  posixOnly,
  async () => {
    const dir = mkdtempSync(join(tmpdir(), "observal-spawn-"));
    try {
      const self = await spawnChild(["sh", "-c", "kill -TERM $$"], {
        cwd: dir,
        env: { PATH: Deno.env.get("PATH") },
        stdoutPath: join(dir, "out"),
        stderrPath: join(dir, "err"),
      });
      assert.deepEqual(
        { code: (await self.exited).code, signal: (await self.exited).signal },
        { code: null, signal: "SIGTERM" },
      );
      const record = await startedElsewhere(dir, "sleep 30");
      const adopted = adoptChild(record, systemClock);
      signalGroup(record.pid, "SIGKILL");
      const exit = await adopted.exited;
      assert.equal(exit.code, null, "no exit line: the group was stopped");
      assert.ok(!pidExists(record.pid));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
);
