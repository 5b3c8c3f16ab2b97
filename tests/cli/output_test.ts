/** What reaches a terminal: control characters escaped, colour only from paint(), JSON whole. */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { type Context, createContext } from "../../lib/core/mod.ts";
import {
  escapeControls,
  note,
  paint,
  printBlock,
  printJson,
  printJsonError,
  printTable,
  progressLine,
  say,
} from "../../lib/cli/output.ts";

const HOSTILE = "ok\x1b[2J\x1b]0;pwned\x07\x9b31m\r\x00\x7f\u202eevil\ttab\nnext";

function capture(options: { color?: boolean; isTTY?: boolean } = {}) {
  let stdout = "";
  let stderr = "";
  const ctx: Context = createContext({
    env: {},
    cwd: "/",
    home: "/nonexistent",
    io: {
      stdout: { write: (t) => void (stdout += t) },
      stderr: { write: (t) => void (stderr += t) },
      isTTY: options.isTTY ?? false,
      color: options.color ?? false,
    },
  });
  return { ctx, out: () => stdout, err: () => stderr };
}

/** Any byte a terminal would act on, other than newline and tab. */
// deno-lint-ignore no-control-regex
const CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;

Deno.test("escapeControls() shows C0, C1, DEL and bidi controls as escapes, keeping newline and tab", () => {
  assert.equal(
    escapeControls(HOSTILE),
    "ok\\x1b[2J\\x1b]0;pwned\\x07\\x9b31m\\x0d\\x00\\x7f\\u202eevil\ttab\nnext",
  );
  assert.equal(escapeControls("line one\r\nline two"), "line one\nline two");
  assert.equal(escapeControls("plain ünïcødé ✓"), "plain ünïcødé ✓");
});

Deno.test("say(), note(), printBlock() and printTable() never write an agent's control characters", () => {
  const t = capture();
  say(t.ctx, "status: ", HOSTILE);
  note(t.ctx, HOSTILE);
  printBlock(t.ctx, HOSTILE);
  printTable(t.ctx, ["NAME", "STATE"], [[HOSTILE.replace(/\n/g, " "), paint("green", HOSTILE)]]);
  for (const text of [t.out(), t.err()]) {
    assert.doesNotMatch(text, CONTROL);
    assert.match(text, /\\x1b\[2J/);
  }
});

Deno.test("paint() colours only where colour is allowed, and its text is escaped too", () => {
  const colour = capture({ color: true });
  say(colour.ctx, paint("red", "error:"), " ", paint("bold", "\x1b[8mhidden"));
  assert.equal(colour.out(), "\x1b[31merror:\x1b[0m \x1b[1m\\x1b[8mhidden\x1b[0m\n");
  const plain = capture();
  say(plain.ctx, paint("red", "error:"), " x");
  assert.equal(plain.out(), "error: x\n");
  // A styled piece put into a string by mistake loses its colour, never its safety.
  say(plain.ctx, `${paint("red", "\x1b[2J")}`);
  assert.equal(plain.out(), "error: x\n\\x1b[2J\n");
});

Deno.test("printTable() aligns columns by what is shown, escapes and colour included", () => {
  const t = capture({ color: true });
  printTable(t.ctx, ["A", "B", "C"], [["x\x1b", paint("green", "yes"), "1"], ["long", "no", "2"]]);
  const lines = t.out().split("\n");
  assert.equal(lines[0], "A      B    C");
  assert.equal(lines[1], "x\\x1b  \x1b[32myes\x1b[0m  1");
  assert.equal(lines[2], "long   no   2");
});

Deno.test("printJson() keeps the data whole, with every control character escaped by JSON", () => {
  const t = capture();
  const value = { text: HOSTILE, nested: ["\x9b", "\u2028"] };
  printJson(t.ctx, value);
  printJsonError(t.ctx, { error: { message: HOSTILE } });
  assert.doesNotMatch(t.out(), CONTROL);
  assert.deepEqual(JSON.parse(t.out()), value);
  assert.deepEqual(JSON.parse(t.err()), { error: { message: HOSTILE } });
  assert.match(t.out(), /\\u009b/);
});

Deno.test("progressLine() draws and clears on a terminal only, with the text escaped", () => {
  const tty = capture({ isTTY: true });
  const line = progressLine(tty.ctx);
  line.draw("agent\x1b]0;x\x07", ": working");
  line.clear();
  assert.equal(tty.err(), "\r\x1b[2Kagent\\x1b]0;x\\x07: working\r\x1b[2K");
  const pipe = capture();
  const quiet = progressLine(pipe.ctx);
  quiet.draw("agent");
  quiet.clear();
  assert.equal(pipe.err(), "");
});

Deno.test("only lib/cli/output.ts writes to ctx.io, so no output can skip the escaping", () => {
  const cliDir = fileURLToPath(new URL("../../lib/cli/", import.meta.url));
  const offenders: string[] = [];
  for (const name of readdirSync(cliDir, { recursive: true }) as string[]) {
    if (!name.endsWith(".ts") || name === "output.ts") continue;
    const text = readFileSync(join(cliDir, name), "utf8");
    if (/\bio\.(stdout|stderr)\.write\b|process\.(stdout|stderr)\.write\b/.test(text)) {
      offenders.push(relative(cliDir, join(cliDir, name)));
    }
  }
  assert.deepEqual(offenders, []);
});
