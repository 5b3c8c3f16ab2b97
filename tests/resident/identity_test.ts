/**
 * Which callers may use a resident runner, and its small parts: when it is refused, the
 * commands it takes, the folder its socket may live in, the digest that names it, the
 * frames of its wire, the Ctrl-Cs it keeps, the facts it compares.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  isPrivateFolder,
  residentCommand,
  residentPlace,
  residentRefusal,
} from "../../lib/resident/identity.ts";
import { frameBytes, frameLines } from "../../lib/resident/_frames.ts";
import { interruptHub } from "../../lib/resident/_interrupt_hub.ts";
import { processFacts } from "../../lib/core/system/mod.ts";

const person = { terminal: true, fromSource: false };

Deno.test("residentRefusal: off, an unknown mode, and auto away from a person at a terminal refuse", () => {
  assert.match(residentRefusal({ OBSERVAL_RESIDENT: "off" }, person)!, /is off/);
  assert.match(residentRefusal({ OBSERVAL_RESIDENT: "yes" }, person)!, /not one of auto, on, off/);
  assert.equal(residentRefusal({}, person), undefined, "auto, by hand, installed: used");
  assert.equal(residentRefusal({ OBSERVAL_RESIDENT: " auto " }, person), undefined);
  assert.match(residentRefusal({ CI: "true" }, person)!, /CI is set/);
  assert.match(residentRefusal({}, { ...person, terminal: false })!, /not run from a terminal/);
  assert.match(residentRefusal({}, { ...person, fromSource: true })!, /source checkout/);
  // on: all of those are the caller's choice.
  const on = { OBSERVAL_RESIDENT: "on", CI: "true" };
  assert.equal(residentRefusal(on, { terminal: false, fromSource: true }), undefined);
});

Deno.test("residentCommand: only delegate run, and never one that reads its brief from stdin", () => {
  assert.ok(residentCommand(["delegate", "run", "fixer", "Fix it"]));
  assert.ok(!residentCommand(["delegate", "run", "fixer", "-"]));
  assert.ok(!residentCommand(["delegate", "status", "x"]));
  assert.ok(!residentCommand(["run", "delegate"]));
});

Deno.test("isPrivateFolder: only this user's folder with mode 0700, not a link to one", () => {
  const root = mkdtempSync(join(tmpdir(), "observal-resident-test-"));
  try {
    const dir = join(root, "d");
    mkdirSync(dir, { mode: 0o700 });
    chmodSync(dir, 0o700);
    assert.ok(isPrivateFolder(dir));
    chmodSync(dir, 0o755);
    assert.ok(!isPrivateFolder(dir), "others may enter");
    chmodSync(dir, 0o700);
    symlinkSync(dir, join(root, "link"));
    assert.ok(!isPrivateFolder(join(root, "link")), "a link");
    assert.ok(!isPrivateFolder(join(root, "none")), "nothing there");
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

Deno.test("residentPlace: named by the environment but for the working folder", async () => {
  const env = { HOME: "/h", PATH: "/usr/bin", PWD: "/a", OLDPWD: "/b" };
  const place = await residentPlace(env);
  assert.match(place.name, /^[0-9a-f]{8}-[0-9a-f]{32}$/);
  assert.equal(place.socket, `${place.dir}/${place.name}.sock`);
  assert.ok(place.name.startsWith(`${place.home}-`));
  assert.equal((await residentPlace({ ...env, PWD: "/c", OLDPWD: "/d" })).name, place.name);
  assert.notEqual((await residentPlace({ ...env, PATH: "/bin" })).name, place.name);
  const other = await residentPlace({ ...env, EXTRA: "" });
  assert.notEqual(other.name, place.name);
  assert.equal(other.home, place.home, "the same home");
  assert.notEqual((await residentPlace({ ...env, OBSERVAL_HOME: "/o" })).home, place.home);
});

Deno.test("frameLines: lines split across chunks come whole; a line past the cap ends the stream", async () => {
  const stream = (...parts: string[]) =>
    new ReadableStream<Uint8Array>({
      start(c) {
        for (const p of parts) c.enqueue(new TextEncoder().encode(p));
        c.close();
      },
    });
  const lines: string[] = [];
  for await (const l of frameLines(stream('{"out":"a', 'b"}\n{"ex', 'it":0}\n'), 100)) {
    lines.push(l);
  }
  assert.deepEqual(lines.map((l) => JSON.parse(l)), [{ out: "ab" }, { exit: 0 }]);
  assert.equal(new TextDecoder().decode(frameBytes({ err: "x\n" })), '{"err":"x\\n"}\n');
  await assert.rejects(async () => {
    for await (const _ of frameLines(stream("x".repeat(50), "y".repeat(60)), 100)) { /* */ }
  }, /past 100 characters/);
});

Deno.test("interruptHub: a Ctrl-C before the command listens reaches its first listener", async () => {
  const hub = interruptHub();
  hub.interrupt();
  hub.interrupt();
  hub.interrupt();
  let got = 0;
  const off = hub.on(() => got++);
  assert.equal(got, 0, "not while it is still adding its listener");
  await new Promise((r) => setTimeout(r, 10));
  assert.equal(got, 2, "two at most: the second quits");
  hub.interrupt();
  assert.equal(got, 3, "once it listens, at once");
  off();
  hub.interrupt();
  assert.equal(got, 3, "not after it stopped listening");
});

Deno.test("processFacts: this process's facts, the same read twice; a child's start; none for no process", async () => {
  const a = processFacts(Deno.pid);
  assert.ok(a, "readable here");
  assert.match(a.facts, /^Umask:\s+0\d{3}$/m);
  assert.match(a.facts, /^mnt:\[\d+\]$/m);
  assert.match(a.facts, /Max open files/);
  assert.equal(processFacts(Deno.pid)?.facts, a.facts);
  assert.equal(processFacts(2 ** 22 + 7), undefined);
  // A process's start, to within the second boot time is given in.
  const before = Date.now();
  const child = new Deno.Command("sleep", { args: ["5"] }).spawn();
  try {
    const started = processFacts(child.pid)!.startedAt;
    assert.ok(Math.abs(started - before) < 1500, `${started - before} ms`);
  } finally {
    child.kill();
    await child.status;
  }
});
