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

/** A security scheme reduced to what decides the header. */
type SchemeKind =
  | { kind: "apiKey"; location: string; name: string }
  | { kind: "bearer" }
  | { kind: "other" };

/**
 * The credential headers for one endpoint. A token is sent only when the variable for
 * the endpoint's own host is set and not blank, and the card declares a security scheme.
 *
 * The scheme is chosen from the card's security requirements first (v1.0
 * `securityRequirements`, v0.3 `security`, in order): the first requirement that names a
 * single API-key-in-header or bearer-style scheme (HTTP auth, OAuth 2.0, OpenID Connect)
 * decides. Without one, the declared schemes decide: the first API-key scheme located in a
 * header, else a bearer token. An API-key scheme sends the token in its header exactly as
 * named (`X-API-Key` when it names none); everything else sends `Authorization: Bearer`.
 * Schemes may be written in v1.0 ProtoJSON (`{apiKeySecurityScheme: {...}}`), in the
 * `{scheme: {$case, value}}` form @a2a-js/sdk 1.3.0 serves, or in the v0.3 `type` form.
 *
 * @param options The card, the endpoint URL and the environment.
 * @returns The headers (empty without a token) and the variable name.
 * @throws {ObservalError} `PERMISSION_DENIED` when a token would travel over plain http
 * to a host other than `localhost`, `127.0.0.1` or `::1`; `INVALID_AGENT_CARD` when the
 * chosen API-key scheme names a header that cannot be sent.
 *
 * @example
 * ```ts
 * const card = {
 *   name: "Echo",
 *   url: "https://agents.acme.com/a2a",
 *   securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
 * };
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
  const schemes = declaredSchemes(options.card);
  // A card that declares no security scheme asks for no credential, so none is sent.
  if (schemes.size === 0) return { headers: {}, variable };
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
  const scheme = requiredScheme(options.card, schemes) ?? fallbackScheme(schemes);
  if (scheme.kind === "apiKey") return { headers: { [headerName(scheme.name)]: token }, variable };
  return { headers: { Authorization: `Bearer ${token}` }, variable };
}

/** True when the card declares at least one security scheme. */
export function declaresSecurity(card: AgentCard): boolean {
  return declaredSchemes(card).size > 0;
}

/** The card's schemes by name, in declaration order, reduced to their kind. */
function declaredSchemes(card: AgentCard): Map<string, SchemeKind> {
  const out = new Map<string, SchemeKind>();
  for (const [name, scheme] of Object.entries(card.securitySchemes ?? {})) {
    out.set(name, schemeKind(scheme));
  }
  return out;
}

function schemeKind(raw: unknown): SchemeKind {
  if (!isRecord(raw)) return { kind: "other" };
  let record: Record<string, unknown> = raw;
  // @a2a-js/sdk 1.3.0 serialises its ts-proto objects as they are: {scheme: {$case, value}}.
  const wrapped = record.scheme;
  if (isRecord(wrapped) && typeof wrapped.$case === "string") {
    record = { [wrapped.$case]: wrapped.value };
  }
  const v1Key = record.apiKeySecurityScheme;
  if (isRecord(v1Key)) return apiKey(v1Key.location ?? v1Key.in, v1Key.name);
  if (isRecord(record.httpAuthSecurityScheme)) return { kind: "bearer" };
  if (isRecord(record.oauth2SecurityScheme)) return { kind: "bearer" };
  if (isRecord(record.openIdConnectSecurityScheme)) return { kind: "bearer" };
  const type = typeof record.type === "string" ? record.type.toLowerCase() : "";
  if (type === "apikey") return apiKey(record.in, record.name);
  if (type === "http" || type === "oauth2" || type === "openidconnect") return { kind: "bearer" };
  return { kind: "other" };
}

function apiKey(location: unknown, name: unknown): SchemeKind {
  return {
    kind: "apiKey",
    location: typeof location === "string" ? location.toLowerCase() : "",
    name: typeof name === "string" ? name.trim() : "",
  };
}

/** Usable here: a bearer-style scheme, or an API key that travels in a header. */
function usable(scheme: SchemeKind | undefined): scheme is SchemeKind {
  return scheme?.kind === "bearer" || (scheme?.kind === "apiKey" && scheme.location === "header");
}

/**
 * The scheme of the first security requirement that one token can satisfy: it names a
 * single declared scheme, and that scheme is usable. Requirements naming several schemes
 * at once need several credentials, which one variable cannot give.
 */
function requiredScheme(
  card: AgentCard,
  schemes: Map<string, SchemeKind>,
): SchemeKind | undefined {
  const v1 = "securityRequirements" in card && Array.isArray(card.securityRequirements)
    ? card.securityRequirements.map((r) => Object.keys(isRecord(r?.schemes) ? r.schemes : {}))
    : [];
  const v03 = Array.isArray(card.security)
    ? card.security.map((r) => Object.keys(isRecord(r) ? r : {}))
    : [];
  for (const names of [...v1, ...v03]) {
    if (names.length !== 1) continue;
    const scheme = schemes.get(names[0]);
    if (usable(scheme)) return scheme;
  }
  return undefined;
}

/** Without a usable requirement: the first API key in a header, else a bearer token. */
function fallbackScheme(schemes: Map<string, SchemeKind>): SchemeKind {
  for (const scheme of schemes.values()) {
    if (scheme.kind === "apiKey" && scheme.location === "header") return scheme;
  }
  return { kind: "bearer" };
}

function headerName(name: string): string {
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

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
