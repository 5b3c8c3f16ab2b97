/**
 * The embedded registry as a client transport, acting as the local admin.
 *
 * The calls agents and people make over and over are answered directly: searching and
 * reading one entry (which every delegation does, in the CLI and again in its worker), and
 * an Agent's detail and install (which every local run's worker makes). They call the same
 * functions the HTTP routes call (lib/server/answers.ts, agents.ts), after the checks the
 * app makes on the way (body size, JSON, the body's schema, who is asking). No `Request`,
 * `Response` or router is built, so such a process never loads hono or the other routes
 * (nor, under Node, the fetch implementation). Every other call goes through the registry
 * app's own `fetch`, built on first use.
 * @module
 */
import { isoSeconds, toObservalError, utf8Length } from "../core/mod.ts";
import {
  httpTransport,
  type RegistryAnswer,
  type RegistryCall,
  type Transport,
} from "../registry/client.ts";
import { InstallRequestSchema } from "../registry/schemas.ts";
import { invalid, MAX_BODY_BYTES, notJson, tooLargeBody } from "./_body.ts";
import { answerEntry, answerSearch } from "./answers.ts";
import { localAdmin, type Viewer } from "./identity.ts";
import { agentsModule } from "./registry_env.ts";
import type { RegistryState } from "./state.ts";

/** The origin embedded calls arrive at; result links use it unless a public URL is set. */
const EMBEDDED_ORIGIN = "http://observal.local";

/** `GET /api/v1/ard/entries/{identifier}`: one path segment, no query. */
const ENTRY_PATH = /^\/api\/v1\/ard\/entries\/([^/?#]+)$/;

/** `/api/v1/agents/{id}` and `/api/v1/agents/{id}/install`: one segment, no query. */
const AGENT_PATH = /^\/api\/v1\/agents\/([^/?#]+)(\/install)?$/;

/** What a direct route answers: the body, and headers beyond the defaults. */
type DirectAnswer = { body: unknown; headers?: Record<string, string> };

/** A route answered in process. */
type DirectRoute = (state: RegistryState, viewer: Viewer) => DirectAnswer | Promise<DirectAnswer>;

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
    return route ? answerDirect(state, route) : viaApp(call);
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
  const agent = AGENT_PATH.exec(call.path);
  const id = agent ? decodeSegment(agent[1]) : undefined;
  if (id === undefined) return undefined;
  if (call.method === "GET" && !agent![2]) {
    return async (state, viewer) => ({
      body: (await agentsModule()).agentDetail(state, viewer, id),
    });
  }
  if (call.method === "POST" && agent![2]) {
    return async (state, viewer) => {
      const parsed = InstallRequestSchema.safeParse(jsonBody(call));
      if (!parsed.success) throw invalid(parsed.error);
      return { body: (await agentsModule()).installAgent(state, viewer, id, parsed.data) };
    };
  }
  return undefined;
}

/** Runs a direct route as the app would: as the local admin, failures as the app's errors. */
async function answerDirect(state: RegistryState, route: DirectRoute): Promise<RegistryAnswer> {
  try {
    const viewer = localAdmin(state.db, isoSeconds(state.clock.now()));
    const { body, headers = {} } = await route(state, viewer);
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
