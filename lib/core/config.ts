/**
 * The user's client configuration: which Observal server to talk to, if any.
 * @module
 */
import { join } from "./paths.ts";
import { z } from "zod";
import type { Context } from "./context.ts";
import { readText } from "./host.ts";
import { ObservalError } from "./errors.ts";

/**
 * `$OBSERVAL_HOME/config.json`. Unknown keys are kept for other tools and ignored here.
 * Built when first used: most commands never read the configuration.
 */
export const ConfigSchema = z.lazy(() =>
  z.looseObject({
    server_url: z.string().url().optional(),
    api_key: z.string().min(1).optional(),
    /** Whether harness children run sandboxed: auto (default), on or off. */
    sandbox: z.enum(["auto", "on", "off"]).optional(),
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

/** Reads config.json; a missing file is an empty config, a broken one is an error. */
export function readConfig(ctx: Pick<Context, "home">): Config {
  const path = join(ctx.home, "config.json");
  let text: string;
  try {
    text = readText(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return {};
    throw new ObservalError("INVALID_ARGUMENT", `Cannot read ${path}`, { cause: err });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new ObservalError("INVALID_ARGUMENT", `${path} is not valid JSON`, {
      remediation: `Fix or remove ${path}`,
      resource: path,
    });
  }
  const parsed = ConfigSchema.safeParse(json);
  if (!parsed.success) {
    throw new ObservalError("INVALID_ARGUMENT", `${path} has invalid settings`, {
      remediation: "server_url must be an http(s) URL and api_key a non-empty string",
      resource: path,
    });
  }
  return parsed.data;
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
