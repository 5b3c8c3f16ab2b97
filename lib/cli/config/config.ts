/**
 * `observal config list|get|set|unset`: the settings in `$OBSERVAL_HOME/config.json`, with
 * the environment variables that win over them.
 * @module
 */
import {
  type Config,
  configPath,
  ConfigSchema,
  type Context,
  ObservalError,
  readConfig,
  updateConfig,
} from "../../core/mod.ts";
import type { Command, Group } from "../command.ts";
import { note, printJson, printList, printTable, say } from "../output.ts";
import { readSecret } from "../read_secret.ts";
import {
  CONFIG_KEYS,
  type ConfigKey,
  configKey,
  type Setting,
  setting,
  shownValue,
  sourceWords,
} from "./keys.ts";

const KEY_LIST = CONFIG_KEYS.map((k) => k.name).join(", ");

/** A setting under `--json`: the value masked when secret, and where it comes from. */
function settingJson(s: Setting, showSecret = false) {
  return {
    key: s.key.name,
    value: s.value === undefined ? null : shownValue(s, showSecret),
    source: s.source,
    ...(s.key.env ? { env: s.key.env } : {}),
  };
}

/** Says, on stderr, that a variable wins over what config.json now holds. */
function noteOverride(ctx: Context, key: ConfigKey): void {
  if (key.env && ctx.env[key.env]?.trim()) {
    note(ctx, `note: ${key.env} is set and wins over config.json while it is.`);
  }
}

/** The value `config set` stores, checked as config.json's schema checks it. */
function checkedValue(key: ConfigKey, raw: string, stored: Config): string {
  const value = key.name === "server_url" ? raw.trim().replace(/\/+$/, "") : raw.trim();
  const parsed = ConfigSchema.safeParse({ ...stored, [key.name]: value });
  if (!parsed.success) {
    const wanted = key.choices
      ? `one of: ${key.choices.join(", ")}`
      : key.name === "server_url"
      ? "an http:// or https:// URL, such as https://observal.example.com"
      : "not empty";
    throw new ObservalError("USAGE", `${key.name} cannot be "${raw}"`, {
      remediation: `It must be ${wanted}. Nothing was written`,
    });
  }
  return value;
}

const listCommand: Command = {
  name: "list",
  summary: "Show every setting, its value and where it comes from",
  details: `Sources: an environment variable (which wins), config.json, or the default.
The API key is shown masked, with --json too.`,
  run(inv, ctx) {
    const config = readConfig(ctx);
    const all = CONFIG_KEYS.map((k) => setting(k, ctx.env, config));
    if (inv.json) return printList(ctx, all.map((s) => settingJson(s)), all.length);
    printTable(
      ctx,
      ["KEY", "VALUE", "SOURCE"],
      all.map((s) => [s.key.name, shownValue(s) || "-", sourceWords(s)]),
    );
  },
};

const getCommand: Command = {
  name: "get",
  summary: "Print one setting's value",
  args: ["key"],
  flags: {
    "show-secret": { type: "boolean", description: "Print the API key whole (masked otherwise)" },
  },
  details: `Prints the value in force: the environment variable when it is set, else
config.json, else the default. An unset setting prints nothing and exits 0.
Settings: ${KEY_LIST}.`,
  run(inv, ctx) {
    const s = setting(configKey(inv.args.key), ctx.env, readConfig(ctx));
    const showSecret = inv.flags["show-secret"] === true;
    if (inv.json) return printJson(ctx, settingJson(s, showSecret));
    if (s.value !== undefined) say(ctx, shownValue(s, showSecret));
  },
};

const setCommand: Command = {
  name: "set",
  summary: "Store a setting in config.json",
  args: ["key", "value"],
  details: `Settings: server_url (http or https URL), api_key, sandbox (auto, on, off),
launcher (self, npx). The value is checked before anything is written; config.json is
replaced whole, keeps keys other tools put there, and is readable by you alone (0600).

A key on a command line lands in your shell's history: give - as VALUE to read it from
stdin (typed without echo at a terminal, or piped), or use \`observal auth login\`, which
also checks the key with the server. \`config set api_key\` does not check it.

Examples:
  observal config set server_url https://observal.example.com
  observal config set sandbox on
  printf %s "$KEY" | observal config set api_key -`,
  async run(inv, ctx) {
    const key = configKey(inv.args.key);
    let raw = inv.args.value;
    if (raw === "-") {
      raw = await readSecret(ctx, `${key.name}: `, { what: key.name.replace("_", " ") });
    }
    const value = checkedValue(key, raw, readConfig(ctx));
    updateConfig(ctx, (stored) => ({ ...stored, [key.name]: value }));
    const s: Setting = { key, value, source: "config" };
    if (inv.json) {
      printJson(ctx, { ...settingJson(s), path: configPath(ctx.home) });
    } else {
      say(ctx, `${key.name} = ${shownValue(s)} (in ${configPath(ctx.home)})`);
    }
    noteOverride(ctx, key);
  },
};

const unsetCommand: Command = {
  name: "unset",
  summary: "Remove a setting from config.json",
  args: ["key"],
  details: `Settings: ${KEY_LIST}. Removing one that is not set changes nothing and exits 0.`,
  run(inv, ctx) {
    const key = configKey(inv.args.key);
    let removed = false;
    if (readConfig(ctx)[key.name] !== undefined) {
      updateConfig(ctx, (stored) => {
        removed = stored[key.name] !== undefined;
        const { [key.name]: _gone, ...rest } = stored;
        return rest;
      });
    }
    if (inv.json) {
      printJson(ctx, { key: key.name, removed, path: configPath(ctx.home) });
    } else {
      say(
        ctx,
        removed ? `${key.name} removed from ${configPath(ctx.home)}` : `${key.name} was not set`,
      );
    }
    noteOverride(ctx, key);
  },
};

/** `observal config`, declared whole (the CLI's table names each command lazily). */
export const configGroup: Group = {
  name: "config",
  summary: "Show and change settings (server_url, api_key, sandbox, launcher)",
  commands: [listCommand, getCommand, setCommand, unsetCommand],
};
