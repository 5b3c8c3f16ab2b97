/**
 * `observal auth login|status|logout`: sign in to an Observal server with an API key, which
 * is checked with the server before it is saved in config.json.
 * @module
 */
import {
  CATEGORIES,
  configPath,
  ConfigSchema,
  type Context,
  ObservalError,
  readConfig,
  serverTarget,
  updateConfig,
} from "../../core/mod.ts";
import type { Me } from "../../registry/mod.ts";
import { type Command, type Group, str } from "../command.ts";
import { maskSecret } from "../config/keys.ts";
import { openRegistryClient } from "../open_registry_client.ts";
import { note, printJson, say } from "../output.ts";
import { readSecret } from "../read_secret.ts";

/** Who the server says the key belongs to; its refusal or silence said plainly. */
async function whoAmI(ctx: Context, url: string, apiKey: string, saving: boolean): Promise<Me> {
  const client = openRegistryClient(ctx, { target: { kind: "remote", url, apiKey } });
  const nothing = saving ? " Nothing was saved." : "";
  try {
    return await client.me();
  } catch (err) {
    if (!(err instanceof ObservalError)) throw err;
    if (err.category === "auth") {
      throw new ObservalError("UNAUTHENTICATED", `${url} refused the API key: ${err.message}`, {
        cause: err,
        remediation:
          `Check the key (an admin issues one with \`observal registry user key HANDLE\`).${nothing}`,
      });
    }
    if (err.code === "NETWORK" || err.code === "UNAVAILABLE") {
      throw new ObservalError(err.code, `${err.message}.${nothing}`, {
        cause: err,
        remediation: `Check the URL and that the server runs there${
          saving ? ", then sign in again" : ""
        }`,
      });
    }
    throw err;
  } finally {
    client.close();
  }
}

/** The server's URL as config.json stores it: checked as its schema checks it. */
function serverUrl(raw: string): string {
  const url = raw.trim().replace(/\/+$/, "");
  if (!ConfigSchema.safeParse({ server_url: url }).success) {
    throw new ObservalError("USAGE", `--server must be an http:// or https:// URL, not "${raw}"`, {
      remediation: "Pass the server's address, such as https://observal.example.com",
    });
  }
  return url;
}

function teamsWords(me: Me): string {
  return me.teams.length ? me.teams.map((t) => `${t.handle} (${t.role})`).join(", ") : "none";
}

const loginCommand: Command = {
  name: "login",
  summary: "Sign in to an Observal server with an API key",
  flags: {
    server: {
      type: "string",
      value: "URL",
      description: "The server (default: the one configured, OBSERVAL_SERVER_URL or server_url)",
    },
    "with-token": {
      type: "boolean",
      description: "Read the key from stdin even at a terminal",
    },
  },
  details: `At a terminal the key is typed without echo; piped, it is read from stdin
(as with --with-token). It is sent to GET /api/v1/me first: saved only when the server
accepts it, with the server's URL, in $OBSERVAL_HOME/config.json (readable by you alone).
A refused key exits 4, an unreachable server 8; either way nothing is saved.

Examples:
  observal auth login --server https://observal.example.com
  printf %s "$OBSERVAL_KEY" | observal auth login --server https://observal.example.com`,
  async run(inv, ctx) {
    const flag = str(inv, "server");
    const target = flag === undefined ? serverTarget(ctx) : undefined;
    if (target?.kind === "embedded") {
      throw new ObservalError("USAGE", "No server to sign in to", {
        remediation: "Name it: observal auth login --server https://observal.example.com",
      });
    }
    const url = serverUrl(flag ?? (target as { url: string }).url);
    const apiKey = await readSecret(ctx, `API key for ${url}: `, {
      piped: inv.flags["with-token"] === true,
      what: "API key",
    });
    const me = await whoAmI(ctx, url, apiKey, true);
    updateConfig(ctx, (stored) => ({ ...stored, server_url: url, api_key: apiKey }));
    if (inv.json) {
      printJson(ctx, { server: url, user: me, saved: configPath(ctx.home) });
    } else {
      say(ctx, `Signed in to ${url} as ${me.handle} (${me.role}).`);
      say(ctx, `Saved the server and key in ${configPath(ctx.home)}.`);
    }
    const envUrl = ctx.env.OBSERVAL_SERVER_URL?.trim();
    if (envUrl && envUrl.replace(/\/+$/, "") !== url) {
      note(ctx, `note: OBSERVAL_SERVER_URL (${envUrl}) is set and wins over config.json.`);
    }
    if (ctx.env.OBSERVAL_API_KEY?.trim()) {
      note(ctx, "note: OBSERVAL_API_KEY is set and wins over the key saved.");
    }
  },
};

const statusCommand: Command = {
  name: "status",
  summary: "Show which server you use and who you are signed in as",
  details: `Asks the server who the key belongs to. Exits 0 when signed in, 4 when no key is
set or the server refuses it (or no server is configured: the embedded registry needs no
sign-in), 8 when the server cannot be reached.`,
  async run(inv, ctx) {
    const target = serverTarget(ctx);
    const config = readConfig(ctx);
    const fromEnv = (name: string) => Boolean(ctx.env[name]?.trim());
    if (target.kind === "embedded") {
      if (inv.json) {
        printJson(ctx, { server: null, signed_in: false, home: ctx.home });
      } else {
        say(ctx, `No server configured: commands use the embedded registry in ${ctx.home}.`);
        say(ctx, "Sign in to a server with `observal auth login --server URL`.");
      }
      return CATEGORIES.auth.exit;
    }
    const server = {
      url: target.url,
      source: fromEnv("OBSERVAL_SERVER_URL") ? "OBSERVAL_SERVER_URL" : "config.json",
    };
    if (!target.apiKey) {
      if (inv.json) {
        printJson(ctx, { server, signed_in: false });
      } else {
        say(ctx, `Server: ${server.url} (from ${server.source})`);
        say(ctx, "Not signed in: no API key. Run `observal auth login`.");
      }
      return CATEGORIES.auth.exit;
    }
    const key = {
      shown: maskSecret(target.apiKey),
      source: fromEnv("OBSERVAL_API_KEY") ? "OBSERVAL_API_KEY" : "config.json",
    };
    const me = await whoAmI(ctx, target.url, target.apiKey, false);
    if (inv.json) return printJson(ctx, { server, signed_in: true, user: me, key });
    say(ctx, `Server: ${server.url} (from ${server.source})`);
    say(ctx, `Signed in as ${me.handle} (${me.role}); teams: ${teamsWords(me)}`);
    say(ctx, `API key: ${key.shown} (from ${key.source})`);
    if (key.source === "OBSERVAL_API_KEY" && config.api_key) {
      say(ctx, "config.json holds another key, unused while OBSERVAL_API_KEY is set.");
    }
  },
};

const logoutCommand: Command = {
  name: "logout",
  summary: "Remove the saved API key",
  flags: {
    "forget-server": {
      type: "boolean",
      description: "Remove server_url too (commands then use the embedded registry)",
    },
  },
  details: `Removes api_key from $OBSERVAL_HOME/config.json and keeps server_url, so
\`observal auth login\` asks only for a key next time. The key itself stays valid on the
server until an admin revokes it. OBSERVAL_API_KEY, when set, is not touched.`,
  run(inv, ctx) {
    const forget = inv.flags["forget-server"] === true;
    const before = readConfig(ctx);
    const removed = [
      ...(before.api_key !== undefined ? ["api_key"] : []),
      ...(forget && before.server_url !== undefined ? ["server_url"] : []),
    ];
    if (removed.length) {
      updateConfig(ctx, (stored) => {
        const { api_key: _key, server_url, ...rest } = stored;
        return forget ? rest : { ...rest, ...(server_url ? { server_url } : {}) };
      });
    }
    if (inv.json) {
      printJson(ctx, { removed, path: configPath(ctx.home) });
    } else if (removed.length) {
      say(ctx, `Removed ${removed.join(" and ")} from ${configPath(ctx.home)}.`);
    } else {
      say(ctx, `No API key saved in ${configPath(ctx.home)}; nothing to remove.`);
    }
    if (ctx.env.OBSERVAL_API_KEY?.trim()) {
      note(ctx, "note: OBSERVAL_API_KEY is still set in your environment; unset it too.");
    }
  },
};

/** `observal auth`, declared whole (the CLI's table names each command lazily). */
export const authGroup: Group = {
  name: "auth",
  summary: "Sign in to an Observal server, and see who you are signed in as",
  commands: [loginCommand, statusCommand, logoutCommand],
};
