import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { spawnChild } from "../../lib/process/mod.ts";

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
    assert.equal(exit.dropped.stdout, 300_000);
    assert.equal(readFileSync(join(dir, "err"), "utf8"), "err\n", "the other stream is kept");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
