/** `--harness`, read the same way by every command that takes it. */
import { HARNESS_KEYS, type HarnessKey, normalizeHarness } from "../../harness/keys/mod.ts";
import { choice, type Invocation } from "../command.ts";

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

/** The harness keys, for help text. */
export const HARNESS_LIST = HARNESS_KEYS.join(", ");
