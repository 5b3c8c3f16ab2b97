/**
 * Reading an ARD manifest (`/.well-known/ard.json`) for the Agent Cards it lists, so that
 * `registry a2a submit` imports a whole server's agents (as `observal a2a serve` lists
 * them) in one go. Each card is then fetched and checked by the registry as any other.
 * @module
 */
import { z } from "zod";
import { A2A_AGENT_CARD_MEDIA_TYPE } from "../../a2a/cards/mod.ts";
import { ObservalError } from "../../core/mod.ts";
import { safeFetchJson } from "../../net/mod.ts";
import type { RegistryClient } from "../../registry/mod.ts";

/** Most cards one manifest may list for import. */
export const MAX_MANIFEST_CARDS = 50;
/** Largest manifest read. */
const MAX_MANIFEST_BYTES = 1024 * 1024;

const MANIFEST_PATH = /\/\.well-known\/(ard|ai-catalog)\.json$/;

const Manifest = z.looseObject({
  entries: z.array(z.looseObject({ type: z.string().optional(), url: z.string().optional() })),
});

/** Whether `url` names an ARD manifest rather than a card. */
export function isManifestUrl(url: string): boolean {
  return URL.canParse(url) && MANIFEST_PATH.test(new URL(url).pathname);
}

/**
 * The Agent Card URLs an ARD manifest lists on its own origin. It is fetched under the
 * same rules as a card (https and a public address, unless the registry's
 * `discovery.a2a_private_hosts` allows the host; no redirects; 1 MiB at most); cards on
 * other origins are refused, so a manifest cannot send the registry elsewhere.
 */
export async function cardUrlsIn(client: RegistryClient, url: string): Promise<string[]> {
  // Who may not read the settings gets no private hosts (fail closed).
  const settings = await client.settings().catch(() => ({ items: [] }));
  const allowed = settings.items.find((i) => i.key === "discovery.a2a_private_hosts")?.value;
  const allowPrivateHosts = Array.isArray(allowed)
    ? allowed.filter((h): h is string => typeof h === "string")
    : [];
  const { json } = await safeFetchJson(url, {
    allowPrivateHosts,
    label: "ARD manifest",
    maxBytes: MAX_MANIFEST_BYTES,
  });
  const parsed = Manifest.safeParse(json);
  if (!parsed.success) {
    throw new ObservalError("INVALID_ARGUMENT", `${url} is not an ARD manifest (no entries)`, {
      remediation: "Pass the manifest's URL (…/.well-known/ard.json) or one Agent Card URL",
    });
  }
  const origin = new URL(url).origin;
  const cards = parsed.data.entries
    .filter((e) => e.type === A2A_AGENT_CARD_MEDIA_TYPE && typeof e.url === "string")
    .map((e) => e.url!);
  const elsewhere = cards.filter((c) => !URL.canParse(c) || new URL(c).origin !== origin);
  if (elsewhere.length > 0) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `The manifest lists Agent Cards on other origins than ${origin}: ${elsewhere[0]}`,
      { remediation: "Submit those cards by their own URLs" },
    );
  }
  if (cards.length === 0) {
    throw new ObservalError("NOT_FOUND", `The manifest at ${url} lists no Agent Cards`, {
      remediation: "Check the URL, or submit a card by its own URL",
    });
  }
  if (cards.length > MAX_MANIFEST_CARDS) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `The manifest lists ${cards.length} Agent Cards; at most ${MAX_MANIFEST_CARDS} are imported at once`,
      { remediation: "Submit the cards by their own URLs" },
    );
  }
  return [...new Set(cards)];
}
