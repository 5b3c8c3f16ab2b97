import { ObservalError } from "../core/mod.ts";
import { canonicalHost, isIpHost } from "./_host.ts";
import { systemResolve } from "./_resolve.ts";
import { parseIpAddress } from "./ip_range.ts";
import type { Resolve } from "./pin_address.ts";

/**
 * A resolver that answers some host names from a fixed table, as curl's `--resolve`
 * does, and asks `fallback` for every other name. The table is text:
 * `host=address[,host=address...]`; a host listed twice gets both addresses.
 *
 * It only replaces DNS: whoever uses the answers still checks them ({@linkcode pinAddress}
 * refuses private and reserved addresses whatever resolved them), so the table cannot
 * open a way to an address DNS could not have given.
 *
 * @param spec The table, e.g. the value of `OBSERVAL_A2A_RESOLVE`; blank means none.
 * @param label Where the table came from, for messages.
 * @param fallback Resolves names the table does not list. @default the system resolver
 * @returns The resolver, or `undefined` when the table is blank.
 * @throws {ObservalError} `INVALID_ARGUMENT` naming the first entry that is not
 *   `host=address` with an IP literal address.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { resolveWithOverrides } from "./mod.ts";
 * const resolve = resolveWithOverrides("agents.example.com=203.0.113.7", "OBSERVAL_A2A_RESOLVE");
 * assert.deepEqual(await resolve!("agents.example.com"), ["203.0.113.7"]);
 * ```
 */
export function resolveWithOverrides(
  spec: string | undefined,
  label: string,
  fallback: Resolve = systemResolve,
): Resolve | undefined {
  const entries = (spec ?? "").split(",").map((entry) => entry.trim()).filter(Boolean);
  if (entries.length === 0) return undefined;
  const table = new Map<string, string[]>();
  for (const entry of entries) {
    const eq = entry.indexOf("=");
    const host = eq > 0 ? canonicalHost(entry.slice(0, eq).trim()) : null;
    const address = eq > 0 ? entry.slice(eq + 1).trim().replace(/^\[(.*)\]$/, "$1") : "";
    if (host === null || isIpHost(host) || parseIpAddress(address) === null) {
      throw new ObservalError(
        "INVALID_ARGUMENT",
        `${label} has an entry that is not host=address: ${JSON.stringify(entry.slice(0, 100))}`,
        {
          remediation: `Write ${label} as comma-separated host=address pairs, e.g. ` +
            "agents.example.com=203.0.113.7, or unset it",
        },
      );
    }
    table.set(host, [...(table.get(host) ?? []), address]);
  }
  return (hostname) => {
    const listed = table.get(canonicalHost(hostname) ?? hostname.toLowerCase());
    return listed ? Promise.resolve([...listed]) : fallback(hostname);
  };
}
