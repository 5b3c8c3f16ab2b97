import assert from "node:assert/strict";
import { join } from "node:path";
import { planFilters } from "../../lib/workspace/_filters.ts";
import { gitEnv } from "../../lib/workspace/_git.ts";
import { copySettings, readCallerConfig } from "../../lib/workspace/_settings.ts";
import { git, initRepo, sandbox, write } from "./_helpers.ts";

Deno.test("readCallerConfig() reads content settings and filters in one call, for both uses", async () => {
  using sb = sandbox();
  const repo = initRepo(sb);
  write(
    join(sb.env.HOME, ".gitconfig"),
    '[core]\n\texcludesFile = /global/ignore\n\tautocrlf = true\n[filter "Rot"]\n' +
      "\tclean = tr a-z n-za-m\n\tsmudge = tr a-z n-za-m\n",
  );
  for (
    const [k, v] of [
      ["core.autoCRLF", "input"],
      ["core.fileMode", "false"],
      ["core.eolx", "crlf"],
      ["xfilter.a.clean", "cat"],
      ["filter.lfs.process", "git-lfs filter-process"],
      ["filter.lfs.required", "true"],
    ]
  ) git(repo, sb.env, "config", k, v);
  const env = gitEnv(sb.env);
  const entries = await readCallerConfig(repo, { env, timeoutMs: 10_000 });
  // Global scope first, then the repository's: later entries win.
  assert.deepEqual(entries, [
    "core.excludesfile\n/global/ignore",
    "core.autocrlf\ntrue",
    "filter.Rot.clean\ntr a-z n-za-m",
    "filter.Rot.smudge\ntr a-z n-za-m",
    // `git init` wrote core.filemode first; setting it kept its place.
    "core.filemode\nfalse",
    "core.autocrlf\ninput",
    "filter.lfs.process\ngit-lfs filter-process",
    "filter.lfs.required\ntrue",
  ]);
  const pins = copySettings(entries, env);
  assert.deepEqual(
    pins.filter((p) => p.startsWith("core.") && !p.includes("=default")).slice(0, 8),
    [
      "core.autocrlf=input",
      "core.eol=native",
      "core.filemode=false",
      "core.symlinks=true",
      "core.ignorecase=false",
      "core.precomposeunicode=false",
      "core.excludesfile=/global/ignore",
      `core.attributesfile=${join(sb.env.XDG_CONFIG_HOME, "git", "attributes")}`,
    ],
  );
  assert.ok(!pins.some((p) => p.startsWith("filter.")), "filters are planned apart");
  const plan = planFilters(entries, repo, env);
  assert.deepEqual(plan.reproduced, ["Rot"]);
  assert.deepEqual([...plan.refused.keys()], ["lfs"]);
  assert.ok(plan.config.includes("filter.Rot.clean=tr a-z n-za-m"));
  assert.ok(plan.config.includes("filter.lfs.process="));
  assert.ok(!plan.config.some((p) => p.startsWith("core.")), "settings are pinned apart");
});
