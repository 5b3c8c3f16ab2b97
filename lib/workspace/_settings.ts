/**
 * The `-c` settings every command in the copy runs with. Private to lib/workspace.
 * @module
 */
import { join } from "node:path";
import { runGit } from "./_git.ts";
import type { GitSettings } from "./types.ts";

// Settings that decide what a file's content, mode or ignoredness is. The copy must read
// its files the way the caller's repository does, whatever the agent later sets in the
// copy's own config. Value: the default when the caller has none (git's own default).
const CALLER_KEYS = {
  "core.autocrlf": () => "false",
  "core.eol": () => "native",
  "core.filemode": () => "true",
  "core.symlinks": () => "true",
  "core.ignorecase": () => "false",
  "core.precomposeunicode": () => "false",
  "core.excludesfile": (env: GitSettings["env"]) => xdgFile(env, "ignore"),
  "core.attributesfile": (env: GitSettings["env"]) => xdgFile(env, "attributes"),
} as const;

type CallerKey = keyof typeof CALLER_KEYS;

// Features that would make `add -A` skip files or write outside our private index, and
// output switches our plumbing does not want.
const FIXED: readonly string[] = [
  "core.bare=false",
  "core.safecrlf=false",
  "core.ignoreStat=false",
  "core.checkStat=default",
  "core.trustctime=true",
  "core.sparseCheckout=false",
  "index.sparse=false",
  "core.splitIndex=false",
  "core.untrackedCache=false",
  "core.quotePath=true",
  "diff.suppressBlankEmpty=false",
  "submodule.recurse=false",
  "gc.auto=0",
  "maintenance.auto=false",
  "advice.addEmbeddedRepo=false",
  "advice.detachedHead=false",
];

/**
 * The caller's config entries (`key\nvalue`, later scopes last) that decide how the copy
 * reads files: the content settings {@linkcode copySettings} pins and every filter driver
 * (`filter.*`, for `planFilters()`), read in one git call.
 */
export async function readCallerConfig(
  top: string,
  settings: Pick<GitSettings, "env" | "timeoutMs">,
  signal?: AbortSignal,
): Promise<string[]> {
  // git matches the regexp against keys whose section and variable names are lowercased.
  const keys = Object.keys(CALLER_KEYS).map((k) => k.replace(".", "\\."));
  const result = await runGit(
    ["config", "-z", "--get-regexp", `^(${keys.join("|")})$|^filter\\.`],
    { cwd: top, settings, okCodes: [0, 1], signal },
  );
  return new TextDecoder().decode(result.stdout).split("\0").filter(Boolean);
}

/**
 * The caller's content settings (from {@linkcode readCallerConfig}'s entries) plus the fixed
 * ones, as `key=value` pairs for `-c`.
 */
export function copySettings(entries: readonly string[], env: GitSettings["env"]): string[] {
  const found = new Map<string, string>();
  for (const entry of entries) {
    const nl = entry.indexOf("\n");
    // A key with no "=" at all is a boolean true.
    const [key, value] = nl < 0 ? [entry, "true"] : [entry.slice(0, nl), entry.slice(nl + 1)];
    const name = key.toLowerCase();
    if (Object.hasOwn(CALLER_KEYS, name)) found.set(name, value); // later scopes win, as in git
  }
  const pins = (Object.keys(CALLER_KEYS) as CallerKey[]).map((key) =>
    `${key}=${found.get(key) ?? CALLER_KEYS[key](env)}`
  );
  return [...pins, ...FIXED];
}

/** git's default location for the user-wide ignore or attributes file. */
function xdgFile(env: GitSettings["env"], name: string): string {
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, "git", name);
  if (env.HOME) return join(env.HOME, ".config", "git", name);
  return "";
}
