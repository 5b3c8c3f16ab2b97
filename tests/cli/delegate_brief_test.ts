/**
 * A brief given as `-` (stdin) or `--message-file`: it reaches the harness as it was
 * written, and a wrong one is refused with exit 2 before anything is looked up or started.
 */
import assert from "node:assert/strict";
import { readFileSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { HostStdin } from "../../lib/core/mod.ts";
import { MAX_BRIEF_BYTES } from "../../lib/cli/delegate/_brief.ts";
import { MAX_MESSAGE_CHARS } from "../../lib/delegation/mod.ts";
import { taskHome } from "./_delegate_home.ts";
import { cli } from "../support/cli.ts";
import { localPlayground } from "../support/local_delegation.ts";
import { runCliWithInput } from "../support/process.ts";

/** A stdin that hands out `text` (or, without it, `a`s without end), counting what it gave. */
function fakeStdin(text?: string, terminal = false): HostStdin & { given: () => number } {
  const bytes = text === undefined ? undefined : new TextEncoder().encode(text);
  let given = 0;
  return {
    isTerminal: () => terminal,
    given: () => given,
    read(into) {
      if (bytes) {
        if (given >= bytes.length) return Promise.resolve(null);
        const n = Math.min(into.length, bytes.length - given, 4096);
        into.set(bytes.subarray(given, given + n));
        given += n;
        return Promise.resolve(n);
      }
      const n = Math.min(into.length, 65_536);
      into.fill(97, 0, n);
      given += n;
      return Promise.resolve(n);
    },
  };
}

/** The `{error}` of a `--json` run that failed. */
function errorOf(r: { stderr: string }): { message: string; remediation?: string } {
  return JSON.parse(r.stderr).error;
}

Deno.test("delegate run - and --message-file: a wrong brief is a usage error before the agent is looked up", async () => {
  using h = taskHome();
  const run = (args: string[], stdin?: HostStdin) =>
    cli(["delegate", "run", "no/such-agent", ...args, "--json"], {
      env: h.env,
      cwd: h.home,
      stdin,
    });
  const file = join(h.home, "brief.md");
  writeFileSync(file, "Fix it.\n");

  const twice = await run(["-", "--message-file", file], fakeStdin("Fix it."));
  assert.equal(twice.code, 2, twice.stderr);
  assert.equal(errorOf(twice).message, "Give the message once: as MESSAGE or --message-file");
  const both = await run(["Fix it.", "--message-file", file]);
  assert.equal(both.code, 2, both.stderr);

  const empty = await run(["-"], fakeStdin(" \n\t\n"));
  assert.equal(empty.code, 2, empty.stderr);
  assert.equal(errorOf(empty).message, "The message from stdin is empty");
  writeFileSync(join(h.home, "blank.md"), "\n\n");
  const blank = await run(["--message-file", "blank.md"]);
  assert.equal(blank.code, 2, blank.stderr);
  assert.equal(errorOf(blank).message, "The message from blank.md is empty");

  const missing = await run(["--message-file", "nope.md"]);
  assert.equal(missing.code, 2, missing.stderr);
  assert.equal(errorOf(missing).message, "Cannot read --message-file nope.md: no such file");
  assert.equal(errorOf(missing).remediation, "Pass the path of a text file that holds the brief");

  const terminal = await run(["-"], fakeStdin("never read", true));
  assert.equal(terminal.code, 2, terminal.stderr);
  assert.match(errorOf(terminal).message, /stdin is a terminal/);
  assert.match(errorOf(terminal).remediation ?? "", /Pipe the message in .*--message-file FILE/);

  const noBrief = await run([]);
  assert.equal(noBrief.code, 2, noBrief.stderr);
  assert.equal(errorOf(noBrief).message, "Missing MESSAGE");

  // A good brief gets as far as looking the agent up.
  const good = await run(["--message-file", file]);
  assert.equal(good.code, 5, good.stderr);
  const piped = await run(["-"], fakeStdin("Fix it."));
  assert.equal(piped.code, 5, piped.stderr);
});

Deno.test("delegate run refuses a brief past the limit without reading it all", async () => {
  using h = taskHome();
  const run = (args: string[], stdin?: HostStdin) =>
    cli(["delegate", "run", "no/such-agent", ...args, "--json"], {
      env: h.env,
      cwd: h.home,
      stdin,
    });
  // A sparse 1 GiB file: refused by its size, never read.
  const huge = join(h.home, "huge.md");
  writeFileSync(huge, "");
  truncateSync(huge, 1024 ** 3);
  const big = await run(["--message-file", huge]);
  assert.equal(big.code, 2, big.stderr);
  assert.equal(
    errorOf(big).message,
    `The message from ${huge} is ${
      1024 ** 3
    } bytes; at most ${MAX_MESSAGE_CHARS} characters (${MAX_BRIEF_BYTES} bytes of UTF-8 at most) are accepted`,
  );

  // Endless stdin: read no further than one byte past the bound.
  const endless = fakeStdin();
  const flood = await run(["-"], endless);
  assert.equal(flood.code, 2, flood.stderr);
  assert.match(errorOf(flood).message, /^The message from stdin is more than \d+ bytes/);
  assert.equal(endless.given(), MAX_BRIEF_BYTES + 1);

  // Within the bytes but over the characters.
  const long = await run(["-"], fakeStdin("a".repeat(MAX_MESSAGE_CHARS + 1)));
  assert.equal(long.code, 2, long.stderr);
  assert.equal(
    errorOf(long).message,
    `The message from stdin is ${
      MAX_MESSAGE_CHARS + 1
    } characters; at most ${MAX_MESSAGE_CHARS} characters are accepted`,
  );
  // Exactly at the limit, in three-byte characters: accepted (then the agent is not found).
  const wide = await run(["-"], fakeStdin("€".repeat(MAX_MESSAGE_CHARS)));
  assert.equal(wide.code, 5, wide.stderr);

  const binary = join(h.home, "binary.md");
  writeFileSync(binary, new Uint8Array([0x66, 0xff, 0xfe, 0x00]));
  const notText = await run(["--message-file", binary]);
  assert.equal(notText.code, 2, notText.stderr);
  assert.match(errorOf(notText).message, /is not UTF-8 text$/);
});

Deno.test("delegate run with an empty AGENT is a usage error", async () => {
  using h = taskHome();
  const r = await h.observal(["delegate", "run", "", "hi", "--json"]);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(errorOf(r).message, "AGENT is empty");
  const spaces = await h.observal(["delegate", "run", "  ", "hi"]);
  assert.equal(spaces.code, 2, spaces.stderr);
});

Deno.test("delegate reply takes its answer from - or --message-file, checked before the task is looked up", async () => {
  using h = taskHome();
  const reply = (args: string[], stdin?: HostStdin) =>
    cli(["delegate", "reply", "abcd1234", ...args, "--json"], { env: h.env, cwd: h.home, stdin });
  const twice = await reply(["-", "--message-file", "a.md"], fakeStdin("yes"));
  assert.equal(twice.code, 2, twice.stderr);
  const empty = await reply(["-"], fakeStdin(""));
  assert.equal(empty.code, 2, empty.stderr);
  assert.equal(errorOf(empty).message, "The message from stdin is empty");
  const terminal = await reply(["-"], fakeStdin("yes", true));
  assert.equal(terminal.code, 2, terminal.stderr);
  assert.match(
    errorOf(terminal).remediation ?? "",
    /observal delegate reply TASK-ID - < answer\.md/,
  );
  const missing = await reply(["--message-file", "a.md"]);
  assert.equal(missing.code, 2, missing.stderr);
  // Read, then the task is looked up (there is none).
  writeFileSync(join(h.home, "a.md"), "yes\n");
  for (const r of [await reply(["--message-file", "a.md"]), await reply(["-"], fakeStdin("y"))]) {
    assert.equal(r.code, 5, r.stderr);
  }
});

Deno.test("delegate run and reply --help state the brief's limit", async () => {
  using h = taskHome();
  for (const command of ["run", "reply"]) {
    const r = await h.observal(["delegate", command, "--help"]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /--message-file FILE/);
    assert.match(r.stdout, new RegExp(`at most ${MAX_MESSAGE_CHARS} characters`));
  }
});

/** A stand-in Claude Code that keeps the task it was given on stdin in `out`. */
function keepingClaude(out: string): string {
  return `#!/bin/sh
cat > '${out}'
printf '{"type":"result","result":"Kept the brief.","is_error":false,"session_id":"s1"}\\n'
`;
}

Deno.test("a brief from stdin or --message-file reaches the harness as written", async () => {
  const pg = await localPlayground();
  try {
    const kept = join(pg.root, "kept.txt");
    pg.program("claude", keepingClaude(kept));
    const args = ["delegate", "run", pg.identifier, "--harness", "claude-code", "--wait", "60"];
    // Unsandboxed, so the stand-in may write its brief outside the task's workspace.
    args.push("--sandbox", "off");

    const multiLine =
      '-- Fix the parser.\n\n  Keep the indentation,\n\ttabs and `quotes\' "too".\n';
    const fromStdin = await runCliWithInput(pg.env, pg.repo, [...args, "-", "--json"], multiLine);
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    assert.equal(readFileSync(kept, "utf8"), multiLine);

    const file = join(pg.root, "brief.md");
    const dashed = "-p --help\nA brief that starts with a dash, in a file.\n";
    writeFileSync(file, dashed);
    const fromFile = await runCliWithInput(pg.env, pg.repo, [
      ...args,
      "--message-file",
      file,
      "--json",
    ], "");
    assert.equal(fromFile.code, 0, fromFile.stderr);
    assert.equal(readFileSync(kept, "utf8"), dashed);
  } finally {
    await pg.close();
  }
});
