/**
 * The same sandbox rules on macOS, as a Seatbelt profile for `sandbox-exec`: writes only
 * to what the policy allows (and the terminal devices), credential stores and OBSERVAL_HOME
 * (but the copy and the task folder) unreadable.
 * macOS has no PID namespace, so processes that leave the child's group are ended by the
 * workspace sweep instead. Unverified here: no macOS machine runs the tests; the profile
 * is unit-tested as text.
 * @module
 */
import type { HiddenPath, SandboxPolicy } from "./sandbox_policy.ts";

/** The program that applies a profile. */
export const SANDBOX_EXEC = "/usr/bin/sandbox-exec";

/** A string literal in the profile language (a Scheme dialect): `"` and `\` escaped. */
function quote(path: string): string {
  return `"${path.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
}

/**
 * The profile text. `tmp` is the child's own temp folder (its TMPDIR); macOS keeps the
 * shared ones under /private/var/folders and /private/tmp, which stay read-only.
 *
 * @example
 * ```ts
 * import type { SandboxPolicy } from "./sandbox_policy.ts";
 * declare const policy: SandboxPolicy;
 * declare const ws: { scratch: string };
 * declare const plan: { argv: string[] };
 * const profile = seatbeltProfile(policy, `${ws.scratch}/tmp`);
 * const argv = [SANDBOX_EXEC, "-p", profile, "--", ...plan.argv];
 * ```
 */
export function seatbeltProfile(policy: SandboxPolicy, tmp: string): string {
  const writable = [...policy.writable, tmp].map((p) => `(subpath ${quote(p)})`);
  const filters = (paths: readonly HiddenPath[]) =>
    paths.map((h) => `(${h.kind === "dir" ? "subpath" : "literal"} ${quote(h.path)})`);
  // Later rules win: OBSERVAL_HOME's masks come before what is shown or writable inside it.
  const lines = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    ...rule("(deny file-read* file-write*", filters(policy.masked)),
    ...rule("(allow file-read*", policy.shown.map((p) => `(subpath ${quote(p)})`)),
    ...rule("(allow file-read* file-write*", [
      ...writable,
      '(literal "/dev/null")',
      '(literal "/dev/zero")',
      '(literal "/dev/dtracehelper")',
      '(regex #"^/dev/tty")',
      '(regex #"^/dev/fd/")',
    ]),
    ...rule("(deny file-read* file-write*", filters(policy.hidden)),
  ];
  return `${lines.join("\n")}\n`;
}

/** `head` with one filter a line, closed on the last; none when there are no filters. */
function rule(head: string, filters: readonly string[]): string[] {
  if (!filters.length) return [];
  const lines = [head, ...filters.map((f) => `  ${f}`)];
  lines[lines.length - 1] += ")";
  return lines;
}

/** `sandbox-exec -p PROFILE -- argv`. */
export function seatbeltArgv(profile: string, argv: readonly string[]): string[] {
  return [SANDBOX_EXEC, "-p", profile, "--", ...argv];
}
