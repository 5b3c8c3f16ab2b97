/**
 * One registry client for both transports: HTTP to an Observal server, or the embedded
 * registry in this process. Callers never know which.
 *
 * One module past 400 lines: each method is a short, parsed call over the same transport.
 * @module
 */
import { z } from "zod";
import { isErrorCode, ObservalError } from "../core/mod.ts";
import {
  type AgentDetail,
  AgentDetailSchema,
  type AgentsList,
  AgentsListSchema,
  type EntryDocument,
  EntryDocumentSchema,
  type ImportA2aRequest,
  type ImportsList,
  ImportsListSchema,
  type InstallRequest,
  type InstallResponse,
  InstallResponseSchema,
  type ListResponse,
  ListResponseSchema,
  type Me,
  MeSchema,
  type PublishAgentRequest,
  type Removed,
  RemovedSchema,
  type ReviewRequest,
  type SearchRequest,
  type SearchResponse,
  SearchResponseSchema,
  type SettingsResponse,
  SettingsResponseSchema,
  type TeamsResponse,
  TeamsResponseSchema,
  type UsersResponse,
  UsersResponseSchema,
} from "./schemas.ts";

/** The two kinds of agent an entry can be: a registry Agent, or a remote A2A agent's card. */
export type EntryKind = "agent" | "a2a";

/** `namespace/name`: how people and pulled configs name a registry Agent. */
const AGENT_REF = /^[a-z0-9][a-z0-9_-]*\/[a-z0-9][a-z0-9_-]*$/;

/** Which kind an entry (a document, or a search or list summary) is. */
export function entryKind(doc: Pick<EntryDocument, "obs:kind" | "type">): EntryKind {
  return doc["obs:kind"] === "agent" || doc.type === "application/vnd.observal.agent+json"
    ? "agent"
    : "a2a";
}

/** One registry call as the client makes it: the route, and its JSON body as text. */
export interface RegistryCall {
  method: string;
  /** The route and its query, from `/`. */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** How long the call may take, its answer included. */
  timeoutMs: number;
  /** Ends the call at once when it aborts: its connection is dropped, its answer unread. */
  signal?: AbortSignal;
}

/** A registry's answer: its HTTP status, headers and body (already bounded). */
export interface RegistryAnswer {
  status: number;
  headers: { get(name: string): string | null };
  text: string;
}

/**
 * Carries one call to a registry. Errors it throws that are not ObservalErrors are read as
 * "cannot reach the registry" (or, named `TimeoutError`, as a timeout).
 */
export type Transport = (call: RegistryCall) => Promise<RegistryAnswer>;

/**
 * A transport over HTTP: each call becomes a `Request` to `baseUrl` (redirects are not
 * followed), sent with `send`, and its answer is read up to {@linkcode MAX_RESPONSE_BYTES}.
 *
 * @param baseUrl the registry's origin, e.g. `https://observal.example.com`
 * @param send `fetch`, or a `fetch` with the SSRF gate, or an app's in-process `fetch`
 */
export function httpTransport(
  baseUrl: string,
  send: (request: Request) => Promise<Response>,
): Transport {
  return async (call) => {
    const response = await send(
      new Request(`${baseUrl}${call.path}`, {
        method: call.method,
        headers: call.headers,
        body: call.body,
        redirect: "manual",
        signal: call.signal
          ? AbortSignal.any([AbortSignal.timeout(call.timeoutMs), call.signal])
          : AbortSignal.timeout(call.timeoutMs),
      }),
    );
    const text = await readCapped(response, MAX_RESPONSE_BYTES, call.path);
    return { status: response.status, headers: response.headers, text };
  };
}

/** Options for {@linkcode RegistryClient}. */
export interface RegistryClientOptions {
  transport: Transport;
  apiKey?: string;
  /** Called once when the client is closed (the embedded registry closes its database). */
  onClose?: () => void;
  /** Describes where calls go, for messages. */
  label: string;
  /** How long one call may take, its answer included (default 60 s). */
  timeoutMs?: number;
  /**
   * Ends every call when it aborts, one under way included: the call rejects with the
   * signal's reason. See {@linkcode RegistryClient.withSignal}.
   */
  signal?: AbortSignal;
}

type Json = Record<string, unknown>;

/** Most bytes of one registry answer; a page of 500 entries or an install is far below it. */
const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;
/** How long one registry call may take, its answer included. */
const CALL_TIMEOUT_MS = 60_000;

/** Any JSON object: what routes without a schema of their own answer. */
const JsonObjectSchema = z.record(z.string(), z.unknown());

/** The registry API as methods. Every failure is an ObservalError from the envelope. */
export class RegistryClient {
  readonly label: string;
  readonly #options: RegistryClientOptions;

  constructor(options: RegistryClientOptions) {
    this.#options = options;
    this.label = options.label;
  }

  /**
   * This client with its calls bound to `signal` as well: when it aborts, a call under way
   * ends at once (its connection to the registry is dropped) and rejects with the signal's
   * reason, as does every later call. Closing the bound client closes nothing: the client
   * it came from still owns the connection to the registry.
   *
   * @example
   * ```ts ignore
   * const agents = await registry.withSignal(request.signal).search({ query: { text } });
   * ```
   */
  withSignal(signal: AbortSignal): RegistryClient {
    const own = this.#options.signal;
    return new RegistryClient({
      ...this.#options,
      signal: own ? AbortSignal.any([own, signal]) : signal,
      onClose: undefined,
    });
  }

  /**
   * This client sending `apiKey` instead of its own: the registry answers as the key's
   * user. Closing it closes nothing, as for {@linkcode withSignal}.
   *
   * @example
   * ```ts ignore
   * const me = await registry.withApiKey(callersKey).me();
   * ```
   */
  withApiKey(apiKey: string): RegistryClient {
    return new RegistryClient({ ...this.#options, apiKey, onClose: undefined });
  }

  /**
   * Calls one route and returns its JSON body, parsed with `schema` (by default: any JSON
   * object). An answer that does not fit is a NETWORK error, never passed on unchecked.
   */
  call(method: string, path: string, body?: unknown): Promise<Json>;
  call<T>(method: string, path: string, body: unknown, schema: z.ZodType<T>): Promise<T>;
  async call<T>(
    method: string,
    path: string,
    body?: unknown,
    schema: z.ZodType<T> = JsonObjectSchema as unknown as z.ZodType<T>,
  ): Promise<T> {
    return (await this.#exchange(method, path, body, schema)).data;
  }

  /** {@linkcode call}, also answering the response's headers. */
  async #exchange<T>(
    method: string,
    path: string,
    body: unknown,
    schema: z.ZodType<T>,
  ): Promise<{ data: T; headers: RegistryAnswer["headers"] }> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.#options.apiKey) headers.authorization = `Bearer ${this.#options.apiKey}`;
    const signal = this.#options.signal;
    signal?.throwIfAborted();
    let answer: RegistryAnswer;
    try {
      answer = await this.#options.transport({
        method,
        path,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        timeoutMs: this.#options.timeoutMs ?? CALL_TIMEOUT_MS,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      // Stopped by the caller: not the registry's fault, so not a NETWORK error.
      signal?.throwIfAborted();
      if (err instanceof ObservalError) throw err;
      const late = err instanceof Error && err.name === "TimeoutError";
      throw new ObservalError(
        "NETWORK",
        late
          ? `The registry at ${this.label} did not answer within ${
            (this.#options.timeoutMs ?? CALL_TIMEOUT_MS) / 1000
          } s`
          : `Cannot reach the registry at ${this.label}`,
        {
          cause: err,
          remediation:
            "Check OBSERVAL_SERVER_URL (or server_url in config.json) and that the server runs",
        },
      );
    }
    const { status, text } = answer;
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      throw new ObservalError(
        "NETWORK",
        `The registry answered HTTP ${status} without JSON`,
        { remediation: `Check that ${this.label} is an Observal registry` },
      );
    }
    if (status < 200 || status > 299) throw errorFromEnvelope(status, json);
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new ObservalError("NETWORK", `The registry sent an unexpected ${path} response`, {
        remediation: "Check that client and server versions match",
      });
    }
    return { data: parsed.data, headers: answer.headers };
  }

  /** `POST /api/v1/ard/search`. */
  async search(request: SearchRequest): Promise<SearchResponse> {
    return (await this.searchCounted(request)).response;
  }

  /**
   * {@linkcode search}, with how many entries match in all pages when the registry says:
   * the ARD answer has no count, so a registry that counts sends `X-Total-Count`.
   */
  async searchCounted(
    request: SearchRequest,
  ): Promise<{ response: SearchResponse; total?: number }> {
    const { data, headers } = await this.#exchange(
      "POST",
      "/api/v1/ard/search",
      request,
      SearchResponseSchema,
    );
    const total = Number(headers.get("x-total-count") ?? Number.NaN);
    return Number.isSafeInteger(total) && total >= 0
      ? { response: data, total }
      : { response: data };
  }

  /** `GET /api/v1/ard/agents`: one page of the entries this caller may see. */
  listAgents(
    params: { pageSize?: number; pageToken?: string; filter?: string } = {},
  ): Promise<ListResponse> {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
    const qs = q.size ? `?${q}` : "";
    return this.call("GET", `/api/v1/ard/agents${qs}`, undefined, ListResponseSchema);
  }

  /** One entry document with the registry's current verdict on it. */
  entry(identifier: string): Promise<EntryDocument> {
    return this.call(
      "GET",
      `/api/v1/ard/entries/${encodeURIComponent(identifier)}`,
      undefined,
      EntryDocumentSchema,
    );
  }

  /**
   * The entry a person or an agent named, however they named it: its identifier
   * (`urn:air:...`), its UUID, a unique prefix of at least 4 characters of either the
   * identifier or its last part (as copied from a list), or a registry Agent's
   * `namespace/name`. The registry resolves prefixes with an indexed lookup among the
   * entries the caller may see, and refuses one that is too short or names more than one
   * entry (listing up to five).
   *
   * @param ref what the caller typed
   * @param options `kind` refuses an entry of the other kind, naming the command for it
   * @returns the entry document, whose `identifier` is the whole identifier
   * @throws {ObservalError} NOT_FOUND when nothing matches, INVALID_ARGUMENT when the
   *   prefix is too short or ambiguous, or the entry is of the other kind
   *
   * @example
   * ```ts ignore
   * const doc = await client.resolveEntry("5f2c", { kind: "agent" });
   * await client.reviewAgent(doc.identifier, { action: "approve", digest });
   * ```
   */
  async resolveEntry(ref: string, options: { kind?: EntryKind } = {}): Promise<EntryDocument> {
    const viaAgent = () =>
      this.agent(ref).then((detail) => this.entry(detail.identifier ?? detail.id));
    let doc: EntryDocument;
    if (AGENT_REF.test(ref)) doc = await viaAgent();
    else {
      try {
        doc = await this.entry(ref);
      } catch (err) {
        // A registry that names entries only by identifier may still know an Agent's UUID.
        if (!(err instanceof ObservalError) || err.code !== "NOT_FOUND" || /^urn:/i.test(ref)) {
          throw err;
        }
        doc = await viaAgent().catch(() => Promise.reject(err));
      }
    }
    const kind = entryKind(doc);
    if (options.kind && kind !== options.kind) {
      const what = kind === "agent" ? "a registry Agent" : "a remote A2A agent";
      const wanted = options.kind === "agent" ? "a registry Agent" : "a remote A2A agent";
      throw new ObservalError("INVALID_ARGUMENT", `${doc.identifier} is ${what}, not ${wanted}`, {
        remediation: `Use \`observal registry ${kind}\` commands for it`,
        resource: doc.identifier,
      });
    }
    return doc;
  }

  manifest(): Promise<Json> {
    return this.call("GET", "/.well-known/ard.json");
  }

  /** The imported cards this caller may see. */
  listImports(): Promise<ImportsList> {
    return this.call("GET", "/api/v1/ard/imports", undefined, ImportsListSchema);
  }

  /** Imports a remote agent's card for review; answers its entry document. */
  submitCard(request: ImportA2aRequest): Promise<EntryDocument> {
    return this.call("POST", "/api/v1/ard/imports/a2a", request, EntryDocumentSchema);
  }

  /** Approves or rejects an imported card; answers its entry document. */
  reviewImport(identifier: string, request: ReviewRequest): Promise<EntryDocument> {
    return this.call(
      "POST",
      `/api/v1/ard/imports/${encodeURIComponent(identifier)}/review`,
      request,
      EntryDocumentSchema,
    );
  }

  /** Removes an imported card (its owner or an admin). */
  removeImport(identifier: string): Promise<Removed> {
    return this.call(
      "DELETE",
      `/api/v1/ard/imports/${encodeURIComponent(identifier)}`,
      undefined,
      RemovedSchema,
    );
  }

  /** `GET /api/v1/agents`: the registry Agents this caller may see, in any state. */
  agents(): Promise<AgentsList> {
    return this.call("GET", "/api/v1/agents", undefined, AgentsListSchema);
  }

  /** Removes a registry Agent with every version (its owner or an admin). */
  removeAgent(id: string): Promise<Removed> {
    return this.call(
      "DELETE",
      `/api/v1/agents/${encodeURIComponent(id)}`,
      undefined,
      RemovedSchema,
    );
  }

  /** Publishes an agent definition for review; answers its entry document. */
  publishAgent(request: PublishAgentRequest): Promise<EntryDocument> {
    return this.call("POST", "/api/v1/agents", request, EntryDocumentSchema);
  }

  /** A registry Agent by UUID, identifier or namespace/name. */
  agent(id: string): Promise<AgentDetail> {
    return this.call(
      "GET",
      `/api/v1/agents/${encodeURIComponent(id)}`,
      undefined,
      AgentDetailSchema,
    );
  }

  /** Approves or rejects a published agent version; answers its entry document. */
  reviewAgent(id: string, request: ReviewRequest): Promise<EntryDocument> {
    return this.call(
      "POST",
      `/api/v1/agents/${encodeURIComponent(id)}/review`,
      request,
      EntryDocumentSchema,
    );
  }

  /** What installing an approved agent for one harness writes. */
  installAgent(id: string, request: InstallRequest): Promise<InstallResponse> {
    return this.call(
      "POST",
      `/api/v1/agents/${encodeURIComponent(id)}/install`,
      request,
      InstallResponseSchema,
    );
  }

  /** The signed-in caller and their teams. */
  me(): Promise<Me> {
    return this.call("GET", "/api/v1/me", undefined, MeSchema);
  }

  /** Every team (admins only). */
  teams(): Promise<TeamsResponse> {
    return this.call("GET", "/api/v1/admin/teams", undefined, TeamsResponseSchema);
  }

  /** Every user (admins only). */
  users(): Promise<UsersResponse> {
    return this.call("GET", "/api/v1/admin/users", undefined, UsersResponseSchema);
  }

  /** The registry's settings (admins, and the embedded registry's local admin). */
  settings(): Promise<SettingsResponse> {
    return this.call("GET", "/api/v1/admin/settings", undefined, SettingsResponseSchema);
  }

  admin(method: string, path: string, body?: unknown): Promise<Json> {
    return this.call(method, `/api/v1/admin${path}`, body);
  }

  close(): void {
    this.#options.onClose?.();
  }
}

const STATUS_CODES: Record<number, ConstructorParameters<typeof ObservalError>[0]> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  409: "FAILED_PRECONDITION",
  422: "INVALID_AGENT_CARD",
  429: "RESOURCE_EXHAUSTED",
  501: "NOT_IMPLEMENTED",
};

/** An error envelope read field by field: one broken field never hides the others. */
const LenientEnvelopeSchema = z.object({
  errorCode: z.unknown(),
  message: z.string().optional().catch(undefined),
  remediation: z.string().optional().catch(undefined),
  resource: z.string().optional().catch(undefined),
}).catch({ errorCode: undefined });

function errorFromEnvelope(status: number, json: unknown): ObservalError {
  const env = LenientEnvelopeSchema.parse(json);
  const code = isErrorCode(env.errorCode) ? env.errorCode : STATUS_CODES[status] ?? "UNAVAILABLE";
  const message = env.message || `The registry answered HTTP ${status}`;
  return new ObservalError(code, message, { remediation: env.remediation, resource: env.resource });
}

/**
 * A registry answer as text, refused once it passes `max` bytes (by its declared length, or
 * while it streams), so a broken or hostile server cannot make the client hold it whole.
 */
async function readCapped(response: Response, max: number, path: string): Promise<string> {
  const tooLarge = () =>
    new ObservalError(
      "NETWORK",
      `The registry's answer to ${path} is larger than ${max / (1024 * 1024)} MiB`,
      { remediation: "Check that OBSERVAL_SERVER_URL names an Observal registry" },
    );
  if (Number(response.headers.get("content-length")) > max) {
    await response.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  if (!response.body) return "";
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let size = 0;
  for await (const chunk of response.body) {
    size += chunk.byteLength;
    if (size > max) throw tooLarge();
    parts.push(decoder.decode(chunk, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join("");
}
