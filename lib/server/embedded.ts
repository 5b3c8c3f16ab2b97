/**
 * The embedded registry as a client transport, acting as the local admin.
 *
 * Searches, which agents and people run over and over, are answered directly: the same
 * {@linkcode answerSearch} the HTTP route calls, after the checks the app makes on the way
 * (body size, JSON, who is asking). No `Request`, `Response` or router is built, so a
 * search process never loads hono or the other routes (and, under Node, the fetch
 * implementation). Every other call goes through the registry app's own `fetch`, built on
 * first use.
 * @module
 */
import { isoSeconds, toObservalError } from "../core/mod.ts";
import {
  httpTransport,
  type RegistryAnswer,
  type RegistryCall,
  type Transport,
} from "../registry/client.ts";
import { MAX_BODY_BYTES, notJson, tooLargeBody } from "./_body.ts";
import { localAdmin } from "./identity.ts";
import { answerSearch } from "./search_answer.ts";
import type { RegistryState } from "./state.ts";

/** The origin embedded calls arrive at; result links use it unless a public URL is set. */
const EMBEDDED_ORIGIN = "http://observal.local";

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
  return (call) =>
    call.method === "POST" && call.path === "/api/v1/ard/search" && !call.headers.authorization
      ? Promise.resolve().then(() => search(state, call))
      : viaApp(call);
}

/** `POST /api/v1/ard/search` without HTTP: what the app's middleware and route do. */
function search(state: RegistryState, call: RegistryCall): RegistryAnswer {
  try {
    const body = call.body ?? "";
    if (new TextEncoder().encode(body).byteLength > MAX_BODY_BYTES) throw tooLargeBody();
    let json: unknown;
    try {
      json = JSON.parse(body);
    } catch {
      throw notJson();
    }
    const viewer = localAdmin(state.db, isoSeconds(state.clock.now()));
    const answer = answerSearch(state, viewer, json, EMBEDDED_ORIGIN);
    return {
      status: 200,
      headers: plainHeaders({ "x-total-count": String(answer.total) }),
      text: JSON.stringify(answer.body),
    };
  } catch (err) {
    // As the app's error handler: anything unexpected is INTERNAL, never "unreachable".
    throw toObservalError(err);
  }
}

/** Read-only headers from a plain record (the `Headers` class would load fetch under Node). */
function plainHeaders(values: Record<string, string>): RegistryAnswer["headers"] {
  return { get: (name) => values[name.toLowerCase()] ?? null };
}
