/**
 * Help exits 0 wherever it is asked for: the root, every group without a subcommand,
 * `help <path>`, and `--help` / `-h` after any path (walked over the whole command table).
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Command, Group } from "../../lib/cli/command.ts";
import { rootGroup } from "../../lib/cli/mod.ts";
import { cli } from "../support/cli.ts";
import { MAIN } from "../support/process.ts";

/** Every path in the table below the root, groups and commands, hidden ones included. */
function walk(
  node: Command | Group,
  names: string[] = [],
): Array<{ path: string[]; group: boolean }> {
  const here = [...names, node.name];
  const self = names.length === 0 ? [] : [{ path: here.slice(1), group: "commands" in node }];
  if (!("commands" in node)) return self;
  return [...self, ...node.commands.flatMap((c) => walk(c, here))];
}

function tempHome() {
  const home = mkdtempSync(join(tmpdir(), "observal-help-"));
  return {
    env: { OBSERVAL_HOME: home, HOME: home },
    done: () => rmSync(home, { recursive: true, force: true }),
  };
}

Deno.test("help exits 0 for every group and every command, however it is asked for", async () => {
  const t = tempHome();
  try {
    const all = walk(rootGroup);
    assert.ok(all.filter((p) => p.group).length >= 9, "groups found");
    assert.ok(all.filter((p) => !p.group).length >= 40, "commands found");
    for (const { path, group } of all) {
      const label = path.join(" ");
      const asked = [
        ["help", ...path],
        [...path, "--help"],
        [...path, "-h"],
        ...(group ? [path] : []),
      ];
      for (const argv of asked) {
        // The help topics group runs its topic when named after `help`; asked for help, it helps.
        if (argv[0] === "help" && argv[1] === "help" && argv.length > 2) continue;
        const r = await cli(argv, { env: t.env });
        assert.equal(r.code, 0, `${argv.join(" ")}: ${r.stderr}`);
        assert.equal(r.stderr, "", argv.join(" "));
        assert.match(r.stdout, /^Usage:$/m, argv.join(" "));
        assert.match(r.stdout, group ? /^Commands:$/m : /^Flags:$/m, `${label} (${argv[0]})`);
      }
    }
  } finally {
    t.done();
  }
});

Deno.test("observal, observal help and observal --help print the root help, listing --version", async () => {
  const t = tempHome();
  try {
    const shown = new Set<string>();
    for (const argv of [[], ["help"], ["--help"], ["-h"], ["help", "--help"]]) {
      const r = await cli(argv, { env: t.env });
      assert.equal(r.code, 0, argv.join(" "));
      assert.match(r.stdout, /-V, --version\s+Print observal's version/);
      assert.match(r.stdout, /^ {2}delegate\s/m);
      assert.match(r.stdout, /observal help exit-codes/);
      shown.add(r.stdout);
    }
    assert.equal(shown.size, 1, "the same root help every way");
  } finally {
    t.done();
  }
});

Deno.test("help <command> shows that command's help; help exit-codes still runs the topic", async () => {
  const t = tempHome();
  try {
    const run = await cli(["help", "registry", "search"], { env: t.env });
    const flag = await cli(["registry", "search", "--help"], { env: t.env });
    assert.equal(run.code, 0);
    assert.equal(run.stdout, flag.stdout);
    assert.match(run.stdout, /Usage:\n {2}observal registry search TEXT \.\.\. \[flags\]/);
    const group = await cli(["registry", "help", "a2a"], { env: t.env });
    assert.equal(group.code, 0);
    assert.match(group.stdout, /Usage:\n {2}observal registry a2a <command>/);
    const codes = await cli(["help", "exit-codes"], { env: t.env });
    assert.equal(codes.code, 0);
    assert.match(codes.stdout, /^2 +usage/m);
    const codesHelp = await cli(["help", "exit-codes", "--help"], { env: t.env });
    assert.equal(codesHelp.code, 0);
    assert.match(codesHelp.stdout, /Usage:\n {2}observal help exit-codes/);
  } finally {
    t.done();
  }
});

Deno.test("help <unknown> is a usage error that names the closest command or topic", async () => {
  const t = tempHome();
  try {
    const topic = await cli(["help", "exit-code"], { env: t.env });
    assert.equal(topic.code, 2);
    assert.match(topic.stderr, /No command or help topic "exit-code"/);
    assert.match(topic.stderr, /Did you mean `observal help exit-codes`\?/);
    const command = await cli(["help", "registry", "serch"], { env: t.env });
    assert.equal(command.code, 2);
    assert.match(command.stderr, /Did you mean `observal registry search`\?/);
    const far = await cli(["help", "zzzzzz"], { env: t.env });
    assert.equal(far.code, 2);
    assert.doesNotMatch(far.stderr, /Did you mean/);
    assert.match(far.stderr, /Choose one of: delegate, agent/);
  } finally {
    t.done();
  }
});

Deno.test("the observal process exits 0 for help and 2 for an unknown command", async () => {
  const t = tempHome();
  try {
    const cases: Array<[string[], number, RegExp]> = [
      [[], 0, /^Usage:$/m],
      [["registry"], 0, /observal registry <command>/],
      [["help", "delegate", "run"], 0, /observal delegate run/],
      [["registry", "a2a", "--help"], 0, /observal registry a2a <command>/],
      [["delgate"], 2, /Did you mean `observal delegate`\?/],
    ];
    for (const [argv, code, text] of cases) {
      const out = await new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN, ...argv],
        env: { ...t.env, NO_COLOR: "1", RUST_BACKTRACE: "0" },
        stdin: "null",
      }).output();
      const decoded = new TextDecoder().decode(code === 0 ? out.stdout : out.stderr);
      assert.equal(out.code, code, `${argv.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
      assert.match(decoded, text, argv.join(" "));
    }
  } finally {
    t.done();
  }
});
