/** `--harness`, read the same way by every command that takes it. */
import { HARNESS_KEYS, type HarnessKey, normalizeHarness } from "../../harness/keys/mod.ts";
import { choice, type Invocation, str } from "../command.ts";

/**
 * Reads `--harness` (or another flag naming a harness): any spelling the harness registry
 * accepts (`Claude_Code` is `claude-code`), else refused with every harness key and the
 * closest one.
 *
 * @param inv the invocation
 * @param name the flag's name
 * @returns the harness key, or undefined when the flag was not given
 */
export function harnessFlag(inv: Invocation, name = "harness"): HarnessKey | undefined {
  return choice(inv, name, HARNESS_KEYS, {
    normalize: (raw) => {
      try {
        return normalizeHarness(raw);
      } catch {
        return raw; // refused by choice(), with the keys it accepts
      }
    },
  });
}

/**
 * Reads `--harness` for a command that runs an Agent: one of the harnesses that run agents
 * headless, spelled as the registry spells harnesses (`Claude_Code` is `claude-code`). The
 * harness facts load only when the flag is given.
 *
 * @param inv the invocation
 * @returns the harness key, or undefined when the flag was not given
 */
export async function headlessHarnessFlag(inv: Invocation): Promise<string | undefined> {
  if (str(inv, "harness") === undefined) return undefined;
  return choice(inv, "harness", await headlessHarnessKeys(), {
    normalize: (raw) => raw.trim().toLowerCase().replaceAll("_", "-"),
  });
}

/** The harnesses that run agents headless; their facts load only when this is called. */
export async function headlessHarnessKeys(): Promise<readonly string[]> {
  const { headlessHarnesses } = await import("../../harness/facts/mod.ts");
  return headlessHarnesses();
}

/** The harness keys, for help text. */
export const HARNESS_LIST = HARNESS_KEYS.join(", ");
