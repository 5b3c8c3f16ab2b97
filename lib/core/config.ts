/**
 * The user's client configuration: which Observal server to talk to, if any.
 * @module
 */
import { join } from "./paths.ts";
import { z } from "zod";
import type { Context } from "./context.ts";
import { makeDir, readText, replaceFile } from "./host.ts";
import { type ErrorCode, ObservalError } from "./errors.ts";
import { LAUNCHER_KINDS } from "./runtime.ts";

/** How harness children run: sandboxed where it works (auto), always (on), or never (off). */
export const SANDBOX_MODES = ["auto", "on", "off"] as const;

/**
 * `$OBSERVAL_HOME/config.json`. Unknown keys are kept for other tools and ignored here.
 * Built when first used: most commands never read the configuration.
 */
export const ConfigSchema = z.lazy(() =>
  z.looseObject({
    server_url: z.url({ protocol: /^https?$/ }).optional(),
    api_key: z.string().min(1).optional(),
    /** Whether harness children run sandboxed: auto (default), on or off. */
    sandbox: z.enum(SANDBOX_MODES).optional(),
    /** How `observal mcp install` starts observal when `--launcher` is not given. */
    launcher: z.enum(LAUNCHER_KINDS).optional(),
    /** The agent Pi runs as, set by `observal agent pull --harness pi` (read for attribution). */
    active_agent: z.looseObject({
      id: z.string().min(1),
      name: z.string().min(1),
      version: z.string().min(1),
    }).optional(),
  })
);
export type Config = z.infer<typeof ConfigSchema>;

/** Where the client sends registry calls: a server over HTTP, or the embedded registry. */
export type ServerTarget =
  | { kind: "remote"; url: string; apiKey?: string }
  | { kind: "embedded" };

/** `$OBSERVAL_HOME/config.json`. */
export function configPath(home: string): string {
  return join(home, "config.json");
}

/** What is wrong with a config, one `key: problem` per issue, for a message. */
function configIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join(".") || "(the file)"}: ${i.message}`).join("; ");
}

/**
 * config.json as stored, every key kept (unknown ones too), once it fits the schema; a
 * missing file is `{}`. `code` is the failure's code when it is unreadable or invalid.
 */
function readStoredConfig(home: string, code: ErrorCode, remediation?: string): Config {
  const path = configPath(home);
  let text: string;
  try {
    text = readText(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new ObservalError(code, `Cannot read ${path}`, { cause: err, resource: path });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ObservalError(code, `${path} is not valid JSON`, {
      remediation: remediation ?? `Fix or remove ${path}`,
      resource: path,
    });
  }
  const parsed = ConfigSchema.safeParse(json);
  if (!parsed.success) {
    throw new ObservalError(code, `${path} has invalid settings: ${configIssues(parsed.error)}`, {
      remediation: remediation ??
        `Fix ${path}, or change a setting with \`observal config set KEY VALUE\``,
      resource: path,
    });
  }
  return parsed.data;
}

/** Reads config.json; a missing file is an empty config, a broken one is an error. */
export function readConfig(ctx: Pick<Context, "home">): Config {
  return readStoredConfig(ctx.home, "INVALID_ARGUMENT");
}

/**
 * Changes config.json, the one writer of it: `change` receives every key stored (unknown
 * ones too, kept for other tools) and returns the next content, which must fit the schema.
 * The file is replaced whole (written under a fresh name, then renamed over it) and private
 * to the user, 0600 in a new home folder made 0700, since it may hold an API key.
 *
 * @param ctx where config.json is
 * @param change the next content from the current one
 * @returns what was written
 * @throws {ObservalError} FAILED_PRECONDITION when the file is unreadable or invalid now
 * (nothing is written); INVALID_ARGUMENT when the next content does not fit the schema
 */
export function updateConfig(
  ctx: Pick<Context, "home">,
  change: (stored: Config) => Config,
): Config {
  const path = configPath(ctx.home);
  const stored = readStoredConfig(
    ctx.home,
    "FAILED_PRECONDITION",
    `Nothing was written. Fix ${path} or move it aside, then try again`,
  );
  const next = change(stored);
  const parsed = ConfigSchema.safeParse(next);
  if (!parsed.success) {
    throw new ObservalError("INVALID_ARGUMENT", `Invalid setting: ${configIssues(parsed.error)}`, {
      remediation: `Nothing was written to ${path}`,
      resource: path,
    });
  }
  makeDir(ctx.home, 0o700);
  const nonce = [...crypto.getRandomValues(new Uint8Array(6))]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  replaceFile(path, join(ctx.home, `.config.json.${nonce}.tmp`), toJson(next), 0o600);
  return parsed.data;
}

function toJson(config: Config): string {
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** `OBSERVAL_SERVER_URL` (with `OBSERVAL_API_KEY`) wins over config.json; neither = embedded. */
export function serverTarget(ctx: Pick<Context, "home" | "env">): ServerTarget {
  const envUrl = ctx.env.OBSERVAL_SERVER_URL?.trim();
  const config = readConfig(ctx);
  const url = envUrl || config.server_url;
  if (!url) return { kind: "embedded" };
  if (!/^https?:\/\//i.test(url)) {
    throw new ObservalError("INVALID_ARGUMENT", `The server URL "${url}" is not http(s)`, {
      remediation:
        "Set OBSERVAL_SERVER_URL to an http(s) URL, or unset it to use the embedded registry",
    });
  }
  const apiKey = ctx.env.OBSERVAL_API_KEY?.trim() || config.api_key;
  return { kind: "remote", url: url.replace(/\/+$/, ""), apiKey: apiKey || undefined };
}

/**
 * What a server we configure a harness to start needs to use the same store and registry
 * as this process: OBSERVAL_HOME, and the server URL when one is configured. Never a key's
 * value: a key stays in config.json or in the user's environment.
 */
export function serverEnv(ctx: Pick<Context, "home" | "env">): Record<string, string> {
  const env: Record<string, string> = { OBSERVAL_HOME: ctx.home };
  const target = serverTarget(ctx);
  if (target.kind === "remote") env.OBSERVAL_SERVER_URL = target.url;
  return env;
}
