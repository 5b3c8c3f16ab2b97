/**
 * Which credential observal sends to a remote agent: one environment variable per
 * endpoint host (`OBSERVAL_A2A_TOKEN_<HOST>`), no catch-all, and never over plain http
 * to anything but this machine.
 * @module
 */
import { type Env, ObservalError } from "../core/mod.ts";
import type { AgentCard } from "./card.ts";

/** Every token variable starts with this; the rest is derived from the host. */
export const TOKEN_VARIABLE_PREFIX = "OBSERVAL_A2A_TOKEN_";

/** The header an API-key scheme uses when its card names none. */
export const DEFAULT_API_KEY_HEADER = "X-API-Key";

const HOST_PATTERN = /^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/;
// RFC 9110 token characters: anything else would make fetch throw before sending.
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const LOOPBACK_HOSTS: ReadonlySet<string> = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/**
 * The environment variable holding the token for an endpoint host: lower-cased, each `-`
 * → `__`, then each `.` → `_`, upper-cased, prefixed with `OBSERVAL_A2A_TOKEN_`.
 *
 * Hosts that could make two names collide get no variable at all: anything outside
 * `[a-z0-9]([a-z0-9.-]*[a-z0-9])?` (IPv6 literals, brackets, ports, odd characters, empty),
 * `..`, and labels starting or ending with `-` (not valid DNS names anyway). With those
 * gone, a single `_` can only come from `.` and an even run only from `-`, so distinct
 * hosts always get distinct variables (`a-b.c`, `a.b-c` and `a.b.c` differ).
 *
 * @param host The host name of the endpoint URL.
 * @returns The variable name, or `undefined` when the host cannot have one.
 *
 * @example
 * ```ts
 * tokenVariable("agents.acme.com"); // "OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM"
 * tokenVariable("agents-acme.com"); // "OBSERVAL_A2A_TOKEN_AGENTS__ACME_COM"
 * tokenVariable("[::1]"); // undefined
 * ```
 */
export function tokenVariable(host: string): string | undefined {
  const lower = host.toLowerCase();
  if (!HOST_PATTERN.test(lower) || lower.includes("..")) return undefined;
  if (lower.includes("-.") || lower.includes(".-")) return undefined;
  return TOKEN_VARIABLE_PREFIX + lower.replaceAll("-", "__").replaceAll(".", "_").toUpperCase();
}

/** True for the host names that always mean this machine. */
export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_HOSTS.has(host.toLowerCase());
}

/** Input for {@linkcode credentialHeaders}. */
export interface CredentialOptions {
  /** The approved card; its `securitySchemes` decide which header carries the token. */
  card: AgentCard;
  /** The endpoint that will be called (the pinned interface URL). */
  url: string | URL;
  env: Env;
}

/** The headers to send, and the variable that names the endpoint's token, if any. */
export interface Credentials {
  headers: Record<string, string>;
  /** Set whenever the host can have a token variable, even if it is not set. */
  variable?: string;
}

/**
 * The credential headers for one endpoint. A token is sent only when the variable for
 * the endpoint's own host is set and not blank. It goes in the header of the card's
 * first API-key scheme located in a header (its `name`, else `X-API-Key`), and otherwise
 * as `Authorization: Bearer <token>`.
 *
 * @param options The card, the endpoint URL and the environment.
 * @returns The headers (empty without a token) and the variable name.
 * @throws {ObservalError} `PERMISSION_DENIED` when a token would travel over plain http
 * to a host other than `localhost`, `127.0.0.1` or `::1`.
 *
 * @example
 * ```ts
 * const card = { name: "Echo", url: "https://agents.acme.com/a2a" };
 * credentialHeaders({ card, url: card.url, env: { OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM: "t0k" } });
 * // {headers: {Authorization: "Bearer t0k"}, variable: "OBSERVAL_A2A_TOKEN_AGENTS_ACME_COM"}
 * ```
 */
export function credentialHeaders(options: CredentialOptions): Credentials {
  const url = new URL(options.url);
  const variable = tokenVariable(url.hostname);
  if (variable === undefined) return { headers: {} };
  const token = options.env[variable]?.trim();
  if (!token) return { headers: {}, variable };
  // A card that declares no security scheme asks for no credential, so none is sent.
  if (Object.keys(options.card.securitySchemes ?? {}).length === 0) {
    return { headers: {}, variable };
  }
  if (url.protocol !== "https:" && !isLoopbackHost(url.hostname)) {
    throw new ObservalError(
      "PERMISSION_DENIED",
      `Refusing to send the token from ${variable} to ${url.hostname} over plain http, ` +
        "where anyone on the path could read it",
      {
        remediation: "Ask the agent's owner to serve the agent over https and publish a card " +
          `with an https endpoint, or unset ${variable} to call it without a token`,
        resource: url.href,
      },
    );
  }
  const header = apiKeyHeader(options.card.securitySchemes);
  return {
    headers: header ? { [header]: token } : { Authorization: `Bearer ${token}` },
    variable,
  };
}

/** The header of the first API-key scheme that lives in a header, in card order. */
function apiKeyHeader(schemes: AgentCard["securitySchemes"]): string | undefined {
  for (const scheme of Object.values(schemes ?? {})) {
    const record = scheme as Record<string, unknown>;
    // v1.0 wraps the scheme in a oneof member; v0.3 flattens it with a `type` tag.
    const v1 = record.apiKeySecurityScheme;
    const fields = isRecord(v1)
      ? { location: v1.location ?? v1.in, name: v1.name }
      : typeof record.type === "string" && record.type.toLowerCase() === "apikey"
      ? { location: record.in, name: record.name }
      : undefined;
    if (!fields) continue;
    if (typeof fields.location !== "string" || fields.location.toLowerCase() !== "header") {
      continue;
    }
    const name = typeof fields.name === "string" ? fields.name.trim() : "";
    if (name === "") return DEFAULT_API_KEY_HEADER;
    if (!HEADER_NAME.test(name)) {
      throw new ObservalError(
        "INVALID_AGENT_CARD",
        `The approved Agent Card puts its API key in a header named "${name}", which is not a valid header name`,
        {
          remediation:
            "Ask the agent's owner to fix the card's security scheme, then import it again",
        },
      );
    }
    return name;
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
