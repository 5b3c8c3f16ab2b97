/**
 * Registry settings: a fixed set of keys, each with a schema and a default. Unknown keys
 * are refused so a typo never silently does nothing.
 * @module
 */
import { z } from "zod";
import { ObservalError } from "../core/mod.ts";
import type { DatabaseSync } from "../sqlite/mod.ts";

const hostList = z.string().transform((s) =>
  s.split(",").map((h) => h.trim().toLowerCase()).filter(Boolean)
);

const boolText = z.union([z.boolean(), z.enum(["true", "false", "on", "off", "1", "0"])])
  .transform((v) => v === true || v === "true" || v === "on" || v === "1");

/** Every setting: how a value is parsed from text or JSON, and its default. */
export const SETTINGS = {
  "deployment.public_url": {
    schema: z.string().url().refine((u) => /^https?:\/\//.test(u), "must be http(s)").or(
      z.literal(""),
    ),
    default: "",
    help: "Public base URL of this registry; its host becomes the publisher domain",
  },
  "deployment.public_registry_enabled": {
    schema: boolText,
    default: false,
    help: "Let anonymous callers see public approved entries",
  },
  "discovery.a2a_private_hosts": {
    schema: z.union([z.array(z.string()).transform((a) => a.join(",")), z.string()]).pipe(
      hostList,
    ),
    default: [] as string[],
    help:
      "Comma-separated hosts whose Agent Cards may be fetched over http or from private addresses",
  },
  "discovery.delegation_enabled": {
    schema: boolText,
    default: true,
    help: "Add the observal-agents MCP server to every installed agent",
  },
  "signing.trusted_keys": {
    schema: z.union([
      z.string().transform((s, ctx) => {
        try {
          return JSON.parse(s);
        } catch {
          ctx.addIssue({ code: "custom", message: "must be a JSON array of JWKs" });
          return z.NEVER;
        }
      }),
      z.array(z.any()),
    ]).pipe(z.array(z.looseObject({ kty: z.string(), kid: z.string() }))),
    default: [] as Array<Record<string, unknown>>,
    help: "JSON array of public JWKs (with kid) trusted to sign Agent Cards",
  },
} as const;

export type SettingKey = keyof typeof SETTINGS;

/** The parsed value of every setting. */
export interface Settings {
  "deployment.public_url": string;
  "deployment.public_registry_enabled": boolean;
  "discovery.a2a_private_hosts": string[];
  "discovery.delegation_enabled": boolean;
  "signing.trusted_keys": Array<Record<string, unknown>>;
}

export function isSettingKey(key: string): key is SettingKey {
  return Object.hasOwn(SETTINGS, key);
}

function parseSetting(key: SettingKey, raw: unknown): unknown {
  const parsed = SETTINGS[key].schema.safeParse(raw);
  if (!parsed.success) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `Invalid value for ${key}: ${parsed.error.issues[0]?.message ?? "not accepted"}`,
      { remediation: SETTINGS[key].help },
    );
  }
  return parsed.data;
}

/** All settings, stored values over defaults. */
export function readSettings(db: DatabaseSync): Settings {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(SETTINGS) as SettingKey[]) out[key] = SETTINGS[key].default;
  const rows = db.prepare("SELECT key, value FROM settings").all() as Array<
    { key: string; value: string }
  >;
  for (const row of rows) {
    if (isSettingKey(row.key)) out[row.key] = parseSetting(row.key, JSON.parse(row.value));
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
