/**
 * Registry settings: a fixed set of keys, each with a schema and a default. Unknown keys
 * are refused so a typo never silently does nothing, and every refusal names the setting,
 * what was wrong and the values it accepts.
 * @module
 */
import { z } from "zod";
import { ObservalError } from "../core/mod.ts";
import { isMetadataHost, parseIpAddress, parseIpRange } from "../net/addresses/mod.ts";
import type { DatabaseSync } from "../sqlite/mod.ts";

/** A list given as comma-separated text or as a JSON array of strings. */
function textList() {
  return z.union([
    z.array(z.string(), { error: "must be text or a list of strings" }).transform((a) =>
      a.join(",")
    ),
    z.string({ error: "must be text or a list of strings" }),
  ]).transform((s) => s.split(",").map((item) => item.trim()).filter(Boolean));
}

/** Each entry checked by `problem`; the first problem is the refusal. */
function checkedList(
  problem: (entry: string) => string | undefined,
  normalise: (e: string) => string,
) {
  return textList().transform((entries, ctx) => {
    for (const entry of entries) {
      const why = problem(entry);
      if (why) {
        ctx.addIssue({ code: "custom", message: why });
        return z.NEVER;
      }
    }
    return [...new Set(entries.map(normalise))];
  });
}

/** Exactly `true` or `false`, as JSON booleans or text; `on`, `1`, `yes`... are refused. */
function strictBoolean() {
  return z.unknown().transform((value, ctx) => {
    if (value === true || value === "true") return true;
    if (value === false || value === "false") return false;
    ctx.addIssue({ code: "custom", message: `${shown(value)} is not accepted; use true or false` });
    return z.NEVER;
  });
}

const HOST_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** Why `entry` is not a bare host name or IP literal, or undefined when it is one. */
export function privateHostProblem(entry: string): string | undefined {
  const e = entry.toLowerCase();
  const q = JSON.stringify(entry);
  if (/\s/.test(e)) return `${q} contains a space; separate hosts with commas`;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//.exec(e);
  if (scheme) {
    return `${q} has a scheme (${scheme[1]}://); give the host alone, e.g. ${
      hostOf(entry) ?? "agents.corp.example"
    }`;
  }
  if (e.includes("*")) return `${q} is a wildcard; list each host by name`;
  if (e.includes("@")) return `${q} has a user name; give the host alone`;
  if (e.includes("/")) {
    if (parseIpRange(e) !== null) return `${q} is an address range; list each address`;
    return `${q} has a path; give the host alone, e.g. ${e.split("/")[0] || "agents.corp.example"}`;
  }
  const bare = e.startsWith("[") && e.endsWith("]") ? e.slice(1, -1) : e;
  const port = /^(\[[^\]]*\]|[^:]+):(\d*)$/.exec(e);
  if (port) {
    return `${q} has a port (:${port[2]}); hosts are matched without ports, give ${port[1]}`;
  }
  if (bare.includes(":")) {
    return parseIpAddress(bare) === null ? `${q} is not a valid IPv6 address` : metadata(q, bare);
  }
  if (/^[0-9.]+$/.test(bare)) {
    return parseIpAddress(bare) === null
      ? `${q} is not a valid IPv4 address (write all four parts, e.g. 10.1.2.3)`
      : metadata(q, bare);
  }
  const name = bare.replace(/\.$/, "");
  if (name.length > 253 || !name.split(".").every((label) => HOST_LABEL.test(label))) {
    return `${q} is not a host name (letters, digits, '-' and '_' in dot-separated labels) ` +
      "or an IP address";
  }
  return metadata(q, name);
}

function metadata(quoted: string, host: string): string | undefined {
  return isMetadataHost(host)
    ? `${quoted} is a cloud metadata service, which is never allowed`
    : undefined;
}

function hostOf(text: string): string | undefined {
  return URL.canParse(text) ? new URL(text).hostname || undefined : undefined;
}

/** Why `entry` is not an IP literal or CIDR block, or undefined when it is one. */
export function trustedProxyProblem(entry: string): string | undefined {
  const q = JSON.stringify(entry);
  if (parseIpRange(entry.toLowerCase()) !== null) return undefined;
  if (/\s/.test(entry)) return `${q} contains a space; separate entries with commas`;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(entry)) return `${q} has a scheme; give the address alone`;
  if (/^(\d{1,3}(\.\d{1,3}){3}|\[[^\]]*\]):\d+$/.test(entry)) {
    return `${q} has a port; give the address alone`;
  }
  if (/[a-z]/i.test(entry) && !entry.includes(":")) {
    return `${q} is a host name; proxies are matched by the address they connect from`;
  }
  return `${q} is not an IP address or CIDR block`;
}

function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 60)}…` : text;
}

/**
 * Every setting: how a value is parsed from text or JSON, its default and what it accepts.
 * Each schema is built on first use (`z.lazy`): a registry with no stored settings parses
 * none, and building all six cost every search about 1.2 ms at start.
 */
export const SETTINGS = {
  "deployment.public_url": {
    schema: z.lazy(() =>
      z.string({ error: "must be text" }).transform((value, ctx) => {
        if (value === "") return value;
        if (!URL.canParse(value) || !/^https?:\/\/[^/]/i.test(value)) {
          ctx.addIssue({ code: "custom", message: `${shown(value)} is not an http(s) URL` });
          return z.NEVER;
        }
        return value;
      })
    ),
    default: "",
    allowed: "an http(s) URL such as https://registry.example.com, or an empty value to unset it",
    help: "Public base URL of this registry; its host becomes the publisher domain",
  },
  "deployment.public_registry_enabled": {
    schema: z.lazy(strictBoolean),
    default: false,
    allowed: "true or false",
    help: "Let anonymous callers see public approved entries",
  },
  "deployment.trusted_proxies": {
    schema: z.lazy(() => checkedList(trustedProxyProblem, (e) => e.toLowerCase())),
    default: [] as string[],
    allowed:
      "comma-separated IP addresses or CIDR blocks of your reverse proxies, e.g. 10.0.0.0/8,192.0.2.10 (empty: trust none)",
    help:
      "Reverse proxies whose X-Forwarded-For header names the client, for per-client rate limits",
  },
  "discovery.a2a_private_hosts": {
    schema: z.lazy(() =>
      checkedList(
        privateHostProblem,
        (e) => e.toLowerCase().replace(/^\[(.*)\]$/, "$1").replace(/\.$/, ""),
      )
    ),
    default: [] as string[],
    allowed:
      "comma-separated host names or IP addresses without scheme, port or path, e.g. agents.corp.example,10.1.2.3",
    help: "Comma-separated hosts whose Agent Cards and endpoints may use http or private addresses",
  },
  "discovery.delegation_enabled": {
    schema: z.lazy(strictBoolean),
    default: true,
    allowed: "true or false",
    help: "Add the observal-agents MCP server to every installed agent",
  },
  "signing.trusted_keys": {
    schema: z.lazy(() =>
      z.union([
        z.string().transform((s, ctx) => {
          try {
            return JSON.parse(s);
          } catch {
            ctx.addIssue({ code: "custom", message: "it is not valid JSON" });
            return z.NEVER;
          }
        }),
        z.array(z.any()),
      ]).pipe(
        z.array(z.looseObject({ kty: z.string(), kid: z.string() }), {
          error: "it is not a list of keys",
        }),
      )
    ),
    default: [] as Array<Record<string, unknown>>,
    allowed: 'a JSON array of public JWKs, each with "kty" and "kid"',
    help: "JSON array of public JWKs (with kid) trusted to sign Agent Cards",
  },
} as const;

export type SettingKey = keyof typeof SETTINGS;

/** The parsed value of every setting. */
export interface Settings {
  "deployment.public_url": string;
  "deployment.public_registry_enabled": boolean;
  "deployment.trusted_proxies": string[];
  "discovery.a2a_private_hosts": string[];
  "discovery.delegation_enabled": boolean;
  "signing.trusted_keys": Array<Record<string, unknown>>;
}

/** True when `key` names a setting. */
export function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTINGS, key);
}

function parseSetting(key: SettingKey, raw: unknown): unknown {
  const parsed = SETTINGS[key].schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? ` (entry ${issue.path.join(".")})` : "";
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `Invalid value for ${key}: ${issue?.message ?? "not accepted"}${where}`,
      {
        remediation: `${key} accepts ${SETTINGS[key].allowed}`,
        resource: key,
      },
    );
  }
  return parsed.data;
}

/**
 * All settings, stored values over defaults. A stored value that no longer passes
 * validation (written before a rule existed) reads as the default, which for the lists
 * that widen trust (private hosts, proxies) means trusting nothing.
 */
export function readSettings(db: DatabaseSync): Settings {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(SETTINGS) as SettingKey[]) out[key] = SETTINGS[key].default;
  const rows = db.prepare("SELECT key, value FROM settings").all() as Array<
    { key: string; value: string }
  >;
  for (const row of rows) {
    if (!isSettingKey(row.key)) continue;
    const parsed = SETTINGS[row.key].schema.safeParse(JSON.parse(row.value));
    if (parsed.success) out[row.key] = parsed.data;
  }
  return out as unknown as Settings;
}

/** Stores one setting after validating it; returns the parsed value. */
export function writeSetting(db: DatabaseSync, key: string, raw: unknown): unknown {
  if (!isSettingKey(key)) {
    throw new ObservalError("INVALID_ARGUMENT", `Unknown setting "${key}"`, {
      remediation: `Known settings: ${Object.keys(SETTINGS).join(", ")}`,
    });
  }
  const value = parseSetting(key, raw);
  db.prepare(
    "INSERT INTO settings(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
  ).run(key, JSON.stringify(value));
  return value;
}

/** The publisher domain: the host of deployment.public_url, else a placeholder. */
export function publisherDomain(settings: Settings): string {
  const url = settings["deployment.public_url"];
  if (url) {
    try {
      const host = new URL(url).hostname.toLowerCase();
      if (/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/.test(host)) return host;
    } catch { /* fall through */ }
  }
  return "observal.local";
}

/**
 * Where this registry's links point: deployment.public_url when set, else the origin the
 * request arrived at. No trailing slash.
 */
export function publicBaseUrl(settings: Settings, origin: string): string {
  return (settings["deployment.public_url"] || origin).replace(/\/+$/, "");
}
