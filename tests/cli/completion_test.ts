/**
 * `observal completion`: each script loads in its shell (bash and zsh from Debian; fish
 * where installed) and completes subcommands, flags and the values of checked flags.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cli } from "../support/cli.ts";

async function script(shell: string): Promise<string> {
  const r = await cli(["completion", shell], { env: { OBSERVAL_HOME: "/nonexistent" } });
  assert.equal(r.code, 0, r.stderr);
  return r.stdout;
}

function has(program: string): boolean {
  return new Deno.Command("sh", { args: ["-c", `command -v ${program}`] }).outputSync().success;
}

/** Runs `code` in `shell` with the script saved at $SCRIPT; stdout, failing on a non-zero exit. */
function run(shell: string, args: string[], text: string, code: string): string {
  const dir = mkdtempSync(join(tmpdir(), "observal-completion-"));
  try {
    writeFileSync(join(dir, "script"), text);
    const out = new Deno.Command(shell, {
      args: [...args, code],
      env: { SCRIPT: join(dir, "script"), HOME: dir, ZDOTDIR: dir, PATH: "/usr/bin:/bin" },
      cwd: dir,
    }).outputSync();
    const dec = new TextDecoder();
    assert.equal(out.code, 0, `${shell}: ${dec.decode(out.stderr)}`);
    assert.equal(dec.decode(out.stderr), "", `${shell} printed errors`);
    return dec.decode(out.stdout);
  } finally {
    rmSync(dir, { recursive: true });
  }
}

Deno.test("completion bash: loads, registers _observal, completes commands, flags and checked values", async () => {
  const text = await script("bash");
  const out = run(
    "bash",
    ["--norc", "--noprofile", "-c"],
    text,
    `source <(cat "$SCRIPT")
complete -p observal
c() { COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _observal; echo "[$*] \${COMPREPLY[*]}"; }
c observal ""
c observal del
c observal delegate ""
c observal delegate run --sandbox ""
c observal delegate run --json --sandbox o
c observal delegate run -i cl
c observal registry agent list --state ""
c observal delegate list -s ""
c observal mcp install --launcher ""
c observal delegate run --sandbox = ""
c observal auth login --
c observal --
`,
  );
  const line = (words: string) => {
    const found = out.split("\n").find((l) => l.startsWith(`[${words}] `));
    assert.ok(found !== undefined, `no line for ${words} in:\n${out}`);
    return found.slice(words.length + 3).split(" ").filter(Boolean);
  };
  assert.match(out, /^complete -F _observal observal$/m);
  assert.ok(line("observal ").includes("delegate"));
  assert.ok(line("observal ").includes("completion") && line("observal ").includes("auth"));
  assert.deepEqual(line("observal del"), ["delegate"]);
  for (const c of ["run", "status", "apply", "diff", "list", "cancel"]) {
    assert.ok(line("observal delegate ").includes(c), c);
  }
  assert.deepEqual(line("observal delegate run --sandbox "), ["auto", "on", "off"]);
  assert.deepEqual(line("observal delegate run --json --sandbox o"), ["on", "off"]);
  assert.deepEqual(line("observal delegate run -i cl"), ["claude-code"]);
  assert.deepEqual(line("observal registry agent list --state "), [
    "pending",
    "approved",
    "rejected",
  ]);
  assert.ok(line("observal delegate list -s ").includes("completed"));
  assert.deepEqual(line("observal mcp install --launcher "), ["self", "npx"]);
  assert.deepEqual(line("observal delegate run --sandbox = "), ["auto", "on", "off"]);
  assert.deepEqual(line("observal auth login --").sort(), [
    "--help",
    "--json",
    "--server",
    "--with-token",
  ]);
  assert.ok(line("observal --").includes("--version"));
});

Deno.test({
  name: "completion zsh: loads under compinit, registers _observal for observal, completes",
  ignore: !has("zsh"),
  fn: async () => {
    const text = await script("zsh");
    assert.match(text, /^#compdef observal$/m);
    const out = run(
      "zsh",
      ["-f", "-c"],
      text,
      `autoload -U compinit && compinit -u -d "$HOME/.zcompdump"
source "$SCRIPT"
print -r -- "function: $(whence -w _observal)"
print -r -- "registered: \${_comps[observal]}"
compadd() { print -r -- "compadd $*"; }
_files() { print -r -- "files"; }
words=(observal delegate ""); CURRENT=3; _observal
words=(observal delegate run --sandbox ""); CURRENT=5; _observal
words=(observal --json config ""); CURRENT=4; _observal
words=(observal completion ""); CURRENT=3; _observal
`,
    );
    assert.match(out, /^function: _observal: function$/m);
    assert.match(out, /^registered: _observal$/m);
    const lines = out.split("\n");
    assert.match(lines[2], /^compadd -l -d descriptions -- find run status reply diff apply /);
    assert.equal(lines[3], "compadd -- auto on off");
    assert.equal(lines[4], "compadd -l -d descriptions -- list get set unset");
    assert.equal(lines[5], "files", "a positional completes file names");
  },
});

Deno.test("completion fish: every command and checked value is there (and fish reads it where installed)", async () => {
  const text = await script("fish");
  assert.match(text, /^complete -c observal -f$/m);
  assert.match(
    text,
    /^complete -c observal -n '__observal_at \\'delegate run\\'' -l sandbox -x -a 'auto on off' -d /m,
  );
  assert.match(text, /-n '__observal_at \\'delegate\\'' -a 'run' -d 'Delegate a task/);
  assert.match(text, /-n '__observal_at \\'delegate run\\'' -l harness -s i -x -a '[^']*codex/);
  assert.match(text, /-n '__observal_at \\'\\'' -a 'auth' -d /);
  if (!has("fish")) {
    console.log("fish is not installed: its script was checked for content only");
    return;
  }
  const out = run(
    "fish",
    ["--no-config", "-c"],
    text,
    `source $SCRIPT; complete -C 'observal delegate run --sandbox '`,
  );
  assert.deepEqual(out.trim().split("\n").map((l) => l.split("\t")[0]), ["auto", "on", "off"]);
});

Deno.test("completion refuses an unknown shell with the ones it knows", async () => {
  const r = await cli(["completion", "zhs"], { env: { OBSERVAL_HOME: "/nonexistent" } });
  assert.equal(r.code, 2);
  assert.match(r.stderr, /Did you mean zsh\? Use one of: bash, zsh, fish/);
});
