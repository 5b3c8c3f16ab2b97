/**
 * ARD identifiers for imported Agent Cards.
 * @module
 */

/** Options for {@linkcode cardIdentifier}. */
export interface CardIdentifierOptions {
  /** The registry's publisher domain, used when the card host is not a real domain. */
  registryDomain: string;
  /** The registry entry's UUID, used as the last segment in that case. */
  entryUuid: string;
}

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * True when `host` can name a publisher: a dotted DNS name whose labels follow label
 * syntax, not an IP address (all-numeric labels), not `localhost` or `0.0.0.0`.
 *
 * @param host A hostname (no port).
 * @returns Whether the host is a real domain.
 *
 * @example
 * ```ts
 * isRealDomain("agents.acme.com"); // true
 * isRealDomain("127.0.0.1"); // false
 * ```
 */
export function isRealDomain(host: string): boolean {
  const name = host.toLowerCase();
  if (name === "localhost" || name === "0.0.0.0" || !name.includes(".")) return false;
  if (name.length > 253) return false;
  const labels = name.split(".");
  if (!labels.every((label) => LABEL.test(label))) return false;
  return !labels.every((label) => /^[0-9]+$/.test(label));
}

/**
 * Turns a display name into an identifier segment: lower-case, each run of characters
 * outside `[a-z0-9]` becomes `-`, trimmed of `-`, at most 64 characters; `agent` when
 * nothing is left.
 *
 * @param name Any text.
 * @returns The slug.
 *
 * @example
 * ```ts
 * slugify("Release Notes Writer!"); // "release-notes-writer"
 * ```
 */
export function slugify(name: string): string {
  const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "")
    .slice(0, 64).replace(/-+$/, "");
  return slug || "agent";
}

/**
 * The ARD identifier of an imported card. A card served from a real domain is published
 * by that domain: `urn:air:<host>:a2a:<slug of name>`. Otherwise (IP addresses,
 * `localhost`, single-label hosts) the registry stands as publisher:
 * `urn:air:<registryDomain>:a2a:<entryUuid>`.
 *
 * @param cardUrl The URL the card was fetched from.
 * @param cardName The card's `name`.
 * @param options The registry domain and the entry UUID for the fallback.
 * @returns The identifier.
 *
 * @example
 * ```ts
 * cardIdentifier("https://agents.acme.com/.well-known/agent-card.json", "Notes", {
 *   registryDomain: "observal.local",
 *   entryUuid: "2f1c0b8e-0000-4000-8000-000000000000",
 * }); // "urn:air:agents.acme.com:a2a:notes"
 * ```
 */
export function cardIdentifier(
  cardUrl: string,
  cardName: string,
  options: CardIdentifierOptions,
): string {
  const host = URL.canParse(cardUrl) ? new URL(cardUrl).hostname.toLowerCase() : "";
  if (isRealDomain(host)) return `urn:air:${host}:a2a:${slugify(cardName)}`;
  return `urn:air:${options.registryDomain}:a2a:${options.entryUuid}`;
}

/**
 * One spelling of an identifier or agent id, for telling whether two name the same agent:
 * trimmed, case-folded, and `urn:ai:` (which older clients wrote) read as `urn:air:`. Two
 * identifiers that differ only in case are taken as one: for a cycle check, refusing a
 * distinct agent is the safe mistake.
 *
 * @param id An identifier (`urn:air:...` or `urn:ai:...`) or an agent UUID.
 * @returns The comparable form.
 *
 * @example
 * ```ts
 * identifierKey("URN:AI:Acme.com:agent:X"); // "urn:air:acme.com:agent:x"
 * ```
 */
export function identifierKey(id: string): string {
  const folded = id.trim().toLowerCase();
  return folded.startsWith("urn:ai:") ? `urn:air:${folded.slice("urn:ai:".length)}` : folded;
}
