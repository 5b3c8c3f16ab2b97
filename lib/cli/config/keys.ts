/**
 * The settings `observal config` reads and writes: each key of config.json a person sets,
 * the variable that wins over it, and what holds when neither is set.
 * @module
 */
import {
  type Config,
  type Env,
  LAUNCHER_KINDS,
  ObservalError,
  SANDBOX_MODES,
} from "../../core/mod.ts";
import { closest } from "../command.ts";

/** One setting. */
export interface ConfigKey {
  name: "server_url" | "api_key" | "sandbox" | "launcher";
  description: string;
  /** The environment variable that wins over config.json. */
  env?: string;
  /** What holds when neither the variable nor config.json sets it (as shown). */
  fallback?: string;
  /** The values it takes, when they are a fixed set. */
  choices?: readonly string[];
  /** Never printed whole unless asked for. */
  secret?: boolean;
}

/** Every setting, in the order `config list` shows them. */
export const CONFIG_KEYS: readonly ConfigKey[] = [
  {
    name: "server_url",
    description: "The Observal server (http or https URL); unset, the embedded registry",
    env: "OBSERVAL_SERVER_URL",
  },
  {
    name: "api_key",
    description: "Your API key for that server (set it with `observal auth login`)",
    env: "OBSERVAL_API_KEY",
    secret: true,
  },
  {
    name: "sandbox",
    description: "Whether harness children run sandboxed",
    env: "OBSERVAL_SANDBOX",
    fallback: "auto",
    choices: SANDBOX_MODES,
  },
  {
    name: "launcher",
    description: "How `mcp install` starts observal when --launcher is not given",
    fallback: "self",
    choices: LAUNCHER_KINDS,
  },
];

/** The key named `name`; an unknown one is a usage error listing every key. */
export function configKey(name: string): ConfigKey {
  const key = CONFIG_KEYS.find((k) => k.name === name);
  if (key) return key;
  const names = CONFIG_KEYS.map((k) => k.name);
  const near = closest(name, names);
  throw new ObservalError("USAGE", `Unknown setting "${name}"`, {
    remediation: `${near ? `Did you mean ${near}? ` : ""}Known settings: ${names.join(", ")}`,
  });
}

/** Where a setting's value comes from. */
export type ConfigSource = "env" | "config" | "default" | "unset";

/** A setting as it stands: its value (undefined when unset) and where that comes from. */
export interface Setting {
  key: ConfigKey;
  value: string | undefined;
  source: ConfigSource;
}

/** The setting in force: the variable, else config.json, else the fallback. */
export function setting(key: ConfigKey, env: Env, config: Config): Setting {
  const fromEnv = key.env ? env[key.env]?.trim() : undefined;
  if (fromEnv) return { key, value: fromEnv, source: "env" };
  const stored = config[key.name];
  if (stored !== undefined) return { key, value: stored, source: "config" };
  if (key.fallback !== undefined) return { key, value: key.fallback, source: "default" };
  return { key, value: undefined, source: "unset" };
}

/**
 * A secret as it may be shown: its first four and last four characters when it is long
 * enough that they give little away, else only that it is set.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { maskSecret } from "./keys.ts";
 *
 * assert.equal(maskSecret("obs_0123456789abcdefghij"), "obs_…ghij");
 * assert.equal(maskSecret("short"), "(set)");
 * ```
 */
export function maskSecret(secret: string): string {
  return secret.length >= 16 ? `${secret.slice(0, 4)}…${secret.slice(-4)}` : "(set)";
}

/** A setting's value as printed: a secret masked unless `showSecret`; "" when unset. */
export function shownValue(s: Setting, showSecret = false): string {
  if (s.value === undefined) return "";
  return s.key.secret && !showSecret ? maskSecret(s.value) : s.value;
}

/** Where a setting comes from, in words: `OBSERVAL_API_KEY`, `config.json`, `default`. */
export function sourceWords(s: Setting): string {
  if (s.source === "env") return s.key.env!;
  if (s.source === "config") return "config.json";
  if (s.source === "default") return "default";
  return s.key.name === "server_url" ? "unset (the embedded registry)" : "unset";
}
