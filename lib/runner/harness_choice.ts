/**
 * Which harness runs a registry Agent: the caller's own harness when it can, else the
 * first one installed here that the agent supports. `--harness` is strict: it is used or
 * refused, never silently replaced.
 * @module
 */
import type { Env } from "../core/mod.ts";
import { ObservalError } from "../core/mod.ts";
import {
  getHarness,
  type HarnessKey,
  headlessAdapter,
  headlessHarnesses,
  normalizeHarness,
  piTrust,
  piTrustFix,
} from "../harness/facts/mod.ts";
import { findExecutable } from "../process/find_executable.ts";

/** One harness that can run headless, and whether it can here. */
export interface HarnessOption {
  key: HarnessKey;
  /** Display name, e.g. "Claude Code". */
  name: string;
  /** The binary the harness runs as. */
  program: string;
  /** Its absolute path, when it is installed and usable here. */
  binary?: string;
  /** Why it cannot run here, when it cannot. */
  unavailable?: string;
  /** What makes it usable when it is installed but refused here (Pi's trust). */
  fix?: string;
  /** Where the harness keeps the trust decision a run depends on (Pi's agent folder). */
  trustDir?: string;
}

/**
 * Every harness with a headless mode and whether it can run here: its binary must be on
 * the PATH of `env`; Pi must also already trust `cwd`.
 */
export function harnessOptions(env: Env, cwd: string): HarnessOption[] {
  return headlessHarnesses().map(harnessProbe(env, cwd));
}

/** Probes harnesses one at a time, each once: see {@linkcode harnessOption}. */
export type HarnessProbe = (key: HarnessKey) => HarnessOption;

/**
 * A {@linkcode HarnessProbe} for `env` and `cwd` that remembers its answers. A choice
 * probes only what it needs: each probe looks the program up in every PATH folder, about a
 * millisecond for a harness that is not installed, and there are nine.
 */
export function harnessProbe(env: Env, cwd: string): HarnessProbe {
  const seen = new Map<HarnessKey, HarnessOption>();
  return (key) => {
    let option = seen.get(key);
    if (!option) seen.set(key, option = harnessOption(key, env, cwd));
    return option;
  };
}

/** One headless harness and whether it can run here (see {@linkcode harnessOptions}). */
export function harnessOption(key: HarnessKey, env: Env, cwd: string): HarnessOption {
  const facts = getHarness(key);
  const program = facts.headless.binary ?? key;
  const option: HarnessOption = { key, name: facts.display_name, program };
  const binary = findExecutable(program, { path: env.PATH, pathExt: env.PATHEXT });
  if (!binary) return { ...option, unavailable: `${program} is not on PATH` };
  if (key === "pi") {
    const trust = piTrust(cwd, env);
    if (!trust.trusted) {
      return {
        ...option,
        unavailable:
          `Pi does not trust ${cwd}, and a headless Pi run would execute its project extensions`,
        fix: piTrustFix(cwd, trust),
      };
    }
    return { ...option, binary, trustDir: trust.agentDir };
  }
  return { ...option, binary };
}

/** What {@linkcode chooseHarness} decides from. */
export interface HarnessChoiceInput {
  /** The agent's supported harnesses; empty means all. */
  supported: readonly string[];
  /** The caller's own harness, tried first. */
  preferred?: string;
  /** `--harness`: this one or a refusal. */
  required?: string;
  /** Whether a harness can run here; asked only about the harnesses the choice needs. */
  probe: HarnessProbe;
  /** Names the agent in messages. */
  agentName: string;
}

/** What to install, or for an installed harness refused here (Pi) how to unblock it. */
function installAdvice(options: readonly HarnessOption[], among?: readonly string[]): string {
  const wanted = options.filter((o) => !among || among.length === 0 || among.includes(o.key));
  const missing = wanted.filter((o) => !o.fix);
  const advice = missing.length
    ? [`Install one of: ${missing.map((o) => `${o.name} (${o.program})`).join(", ")}`]
    : [];
  for (const o of wanted) if (o.fix) advice.push(o.fix);
  return advice.map((a, i) => i === 0 ? a : `or ${a[0].toLowerCase()}${a.slice(1)}`).join("; ");
}

/**
 * Picks the harness and its binary.
 *
 * @throws {ObservalError} FAILED_PRECONDITION naming what is missing and what to install
 *   or choose instead; INVALID_ARGUMENT for an unknown `--harness`
 */
export function chooseHarness(
  input: HarnessChoiceInput,
): { key: HarnessKey; binary: string; trustDir?: string } {
  const { probe, agentName } = input;
  const supported = input.supported.filter((s) => s.trim() !== "");
  const supports = (key: string) => supported.length === 0 || supported.includes(key);
  // Every harness, for a refusal's advice only.
  const all = () => headlessHarnesses().map(probe);
  const usableNames = () => all().filter((o) => o.binary).map((o) => o.key).join(", ");

  if (input.required) {
    const key = normalizeHarness(input.required);
    headlessAdapter(key); // Goose and VS Code Copilot are refused here, with their reason.
    if (!supports(key)) {
      throw new ObservalError(
        "FAILED_PRECONDITION",
        `${agentName} supports ${supported.join(", ")}, not ${key}`,
        { remediation: `Choose one of its harnesses with --harness`, resource: key },
      );
    }
    const option = probe(key);
    if (!option.binary) {
      const others = usableNames();
      throw new ObservalError(
        "FAILED_PRECONDITION",
        `${option.name} cannot run an agent headless on this machine: ${option.unavailable}`,
        {
          remediation: [
            option.fix ?? `Install ${option.name} (${option.program})`,
            others ? `or use one that can run here: ${others}` : undefined,
          ].filter(Boolean).join(", "),
          resource: key,
        },
      );
    }
    return { key, binary: option.binary, trustDir: option.trustDir };
  }

  const keys = headlessHarnesses();
  const order = [
    ...keys.filter((k) => k === input.preferred),
    ...keys.filter((k) => k !== input.preferred),
  ];
  for (const key of order) {
    if (!supports(key)) continue;
    const option = probe(key);
    if (option.binary) return { key, binary: option.binary, trustDir: option.trustDir };
  }
  const usable = usableNames();
  if (!usable) {
    throw new ObservalError(
      "FAILED_PRECONDITION",
      "No harness on this machine can run an agent headless",
      { remediation: installAdvice(all(), supported) },
    );
  }
  throw new ObservalError(
    "FAILED_PRECONDITION",
    `${agentName} supports ${supported.join(", ")}, but only ${usable} can run headless here`,
    { remediation: installAdvice(all(), supported) },
  );
}

/**
 * For search results: whether a registry Agent with these supported harnesses can run on
 * this machine, and if not, what to install.
 */
export function runnableHere(
  supported: readonly string[],
  options: readonly HarnessOption[],
): { runnable: true } | { runnable: false; missing: string } {
  const wanted = supported.length === 0
    ? options
    : options.filter((o) => supported.includes(o.key));
  if (wanted.some((o) => o.binary)) return { runnable: true };
  if (wanted.length === 0) {
    return { runnable: false, missing: "none of its harnesses can run headless" };
  }
  return { runnable: false, missing: installAdvice(wanted) };
}
