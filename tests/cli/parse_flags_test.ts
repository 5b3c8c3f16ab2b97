/** parseFlags(): argv read as node:util parseArgs reads it in strict mode, with our messages. */
import assert from "node:assert/strict";
import { parseArgs } from "node:util";
import { FlagError, type FlagSpec, parseFlags } from "../../lib/cli/parse_flags.ts";

const SPECS: Record<string, FlagSpec> = {
  json: { type: "boolean" },
  force: { type: "boolean", short: "f" },
  all: { type: "boolean", short: "a" },
  limit: { type: "string", short: "n" },
  label: { type: "string", multiple: true, short: "l" },
};

Deno.test("parseFlags() reads every accepted form as node:util parseArgs does", () => {
  const cases: string[][] = [
    [],
    ["text", "more"],
    ["--json", "x"],
    ["--limit", "5", "q"],
    ["--limit=5"],
    ["--limit=", "q"],
    ["--limit=-3"],
    ["-n", "5"],
    ["-n5", "q"],
    ["-n=5"],
    ["-fa"],
    ["-fan", "7"],
    ["-fan7"],
    ["--limit", "1", "--limit", "2"],
    ["--label", "a", "-l", "b", "--label=c"],
    ["q", "--", "--json", "-n"],
    ["-", "--json"],
    ["--limit", "-"],
  ];
  for (const argv of cases) {
    const node = parseArgs({ args: argv, options: SPECS, allowPositionals: true, strict: true });
    const ours = parseFlags(argv, SPECS);
    assert.deepEqual(ours.values, { ...node.values }, argv.join(" "));
    assert.deepEqual(ours.positionals, node.positionals, argv.join(" "));
  }
});

Deno.test("parseFlags() refuses what node:util parseArgs refuses, saying what is wrong", () => {
  const cases: [string[], RegExp, string | undefined][] = [
    [["--jsno"], /^Unknown flag "--jsno"$/, "--jsno"],
    [["-q"], /^Unknown flag "-q"$/, "-q"],
    [["-fq"], /^Unknown flag "-q"$/, "-q"],
    [["--limit"], /^--limit needs a value$/, undefined],
    [["-n"], /^-n needs a value$/, undefined],
    [["--limit", "--json"], /--limit needs a value \(.*write --limit=--json\)/, undefined],
    [["--json=yes"], /^--json takes no value$/, undefined],
    [["--constructor"], /^Unknown flag "--constructor"$/, "--constructor"],
  ];
  for (const [argv, message, unknown] of cases) {
    const node = () =>
      parseArgs({ args: argv, options: SPECS, allowPositionals: true, strict: true });
    assert.throws(node, argv.join(" "));
    assert.throws(() => parseFlags(argv, SPECS), (err: unknown) => {
      assert.ok(err instanceof FlagError);
      assert.match(err.message, message);
      assert.equal(err.unknown, unknown);
      return true;
    }, argv.join(" "));
  }
});
