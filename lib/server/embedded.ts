/**
 * The embedded registry as a client transport, acting as the local admin.
 *
 * The calls agents and people make over and over, searching and reading one entry (which
 * every delegation does, in the CLI and again in its worker), are answered directly: the
 * same functions the HTTP routes call (lib/server/answers.ts), after the checks the app
 * makes on the way (body size, JSON, who is asking). No `Request`, `Response` or router is
 * built, so such a process never loads hono or the other routes (nor, under Node, the
 * fetch implementation). Every other call goes through the registry app's own `fetch`,
 * built on first use.
 * @module
 */
import { isoSeconds, toObservalError, utf8Length } from "../core/mod.ts";
import {
  httpTransport,
  type RegistryAnswer,
  type RegistryCall,
  type Transport,
} from "../registry/client.ts";
import { MAX_BODY_BYTES, notJson, tooLargeBody } from "./_body.ts";
import { answerEntry, answerSearch } from "./answers.ts";
import { localAdmin, type Viewer } from "./identity.ts";
import type { RegistryState } from "./state.ts";

/** The origin embedded calls arrive at; result links use it unless a public URL is set. */
const EMBEDDED_ORIGIN = "http://observal.local";

/** `GET /api/v1/ard/entries/{identifier}`: one path segment, no query. */
const ENTRY_PATH = /^\/api\/v1\/ard\/entries\/([^/?#]+)$/;

/** A route answered in process: the body, and headers beyond the defaults. */
type DirectRoute = (
  state: RegistryState,
  viewer: Viewer,
) => { body: unknown; headers?: Record<string, string> };

/**
 * A transport into `state`, acting as its local admin (created on first use).
 *
 * @param state an open registry; the caller closes it
 */
export function embeddedTransport(state: RegistryState): Transport {
  let app: Promise<Transport> | undefined;
  const viaApp = async (call: RegistryCall) => {
    app ??= import("./app.ts").then(({ createRegistryApp }) => {
      const registry = createRegistryApp(state, { localAdmin: true, rateLimit: false });
      return httpTransport(EMBEDDED_ORIGIN, async (req) => await registry.fetch(req));
    });
    return await (await app)(call);
  };
  return (call) => {
    const route = directRoute(call);
    return route ? Promise.resolve().then(() => answerDirect(state, route)) : viaApp(call);
  };
}

/** The in-process answer to `call`, or undefined when the app must answer it. */
function directRoute(call: RegistryCall): DirectRoute | undefined {
  // A call with an API key is the app's to authenticate; the direct path is the local admin.
  if (call.headers.authorization) return undefined;
  if (call.method === "POST" && call.path === "/api/v1/ard/search") {
    return (state, viewer) => {
      const answer = answerSearch(state, viewer, jsonBody(call), EMBEDDED_ORIGIN);
      return { body: answer.body, headers: { "x-total-count": String(answer.total) } };
    };
  }
  const entry = call.method === "GET" ? ENTRY_PATH.exec(call.path) : null;
  const identifier = entry ? decodeSegment(entry[1]) : undefined;
  if (identifier !== undefined) {
    return (state, viewer) => ({ body: answerEntry(state, viewer, identifier) });
  }
  return undefined;
}

/** Runs a direct route as the app would: as the local admin, failures as the app's errors. */
function answerDirect(state: RegistryState, route: DirectRoute): RegistryAnswer {
  try {
    const viewer = localAdmin(state.db, isoSeconds(state.clock.now()));
    const { body, headers = {} } = route(state, viewer);
    return { status: 200, headers: plainHeaders(headers), text: JSON.stringify(body) };
  } catch (err) {
    // As the app's error handler: anything unexpected is INTERNAL, never "unreachable".
    throw toObservalError(err);
  }
}

/** The call's body as JSON, bounded as the app bounds it. */
function jsonBody(call: RegistryCall): unknown {
  const body = call.body ?? "";
  const bytes = utf8Length(body);
  if (bytes > MAX_BODY_BYTES) throw tooLargeBody(bytes);
  try {
    return JSON.parse(body);
  } catch {
    throw notJson();
  }
}

/** A path segment decoded as the router decodes its parameters; undefined if malformed. */
function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Read-only headers from a plain record (the `Headers` class would load fetch under Node). */
function plainHeaders(values: Record<string, string>): RegistryAnswer["headers"] {
  return { get: (name) => values[name.toLowerCase()] ?? null };
}
