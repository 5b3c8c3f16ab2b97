/** The command table: each lazily declared command matches the module that declares it. */
import assert from "node:assert/strict";
import { type Command, commandIn, dispatch, type Group, lazy } from "../../lib/cli/command.ts";
import { rootGroup } from "../../lib/cli/mod.ts";
import { createContext, ObservalError } from "../../lib/core/mod.ts";

function leaves(node: Command | Group, names: string[] = []): Array<[string, Command]> {
  const here = [...names, node.name];
  if ("commands" in node) return node.commands.flatMap((c) => leaves(c, here));
  return [[here.join(" "), node]];
}

function capture() {
  let out = "";
  const ctx = createContext({
    env: {},
    io: { stdout: { write: (t) => void (out += t) }, stderr: { write: () => {} }, isTTY: false },
  });
  return { ctx, out: () => out };
}

Deno.test("every command in the table names a module that declares it with the same summary", async () => {
  const all = leaves(rootGroup);
  assert.ok(all.length >= 38, `found ${all.length} commands`);
  for (const [path, entry] of all) {
    assert.ok(entry.load, `${path} is not loaded on demand`);
    const command = await entry.load();
    assert.equal(command.name, entry.name, path);
    assert.equal(command.summary, entry.summary, `${path}: the table's summary is stale`);
    assert.equal(Boolean(command.hidden), Boolean(entry.hidden), path);
    assert.equal(command.load, undefined, `${path} loads another table entry`);
  }
});

Deno.test("dispatch() runs a lazy command with the flags its module declares", async () => {
  const group: Group = {
    name: "t",
    summary: "test",
    commands: [
      lazy("echo", "Prints its word", () =>
        Promise.resolve({
          name: "echo",
          summary: "Prints its word",
          args: ["word"],
          flags: { loud: { type: "boolean", description: "Shout" } },
          run(inv, ctx) {
            const word = inv.flags.loud ? inv.args.word.toUpperCase() : inv.args.word;
            ctx.io.stdout.write(`${word}\n`);
          },
        })),
    ],
  };
  const c = capture();
  assert.equal(await dispatch(group, ["echo", "hi", "--loud"], c.ctx), 0);
  assert.equal(c.out(), "HI\n");
  const help = capture();
  assert.equal(await dispatch(group, ["echo", "--help"], help.ctx), 0);
  assert.match(help.out(), /--loud/);
});

Deno.test("dispatch() refuses a table entry whose module declares another command", async () => {
  const group: Group = {
    name: "t",
    summary: "test",
    commands: [
      lazy("old", "Renamed", () => Promise.resolve({ name: "new", summary: "Renamed", run() {} })),
    ],
  };
  await assert.rejects(
    dispatch(group, ["old"], capture().ctx),
    (err: unknown) => err instanceof ObservalError && err.code === "INTERNAL",
  );
});

Deno.test("commandIn() finds a command inside a module's groups, and refuses a missing one", () => {
  const leaf: Command = { name: "add", summary: "Add", run() {} };
  const groups: Group[] = [{ name: "user", summary: "Users", commands: [leaf] }];
  assert.equal(commandIn(groups, "user", "add"), leaf);
  assert.throws(() => commandIn(groups, "user", "remove"), ObservalError);
  assert.throws(() => commandIn(groups, "user"), ObservalError);
});
