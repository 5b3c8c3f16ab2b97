/**
 * One registry client for both transports: HTTP to an Observal server, or `app.fetch` of
 * the embedded registry in this process. Callers never know which.
 * @module
 */
import type { z } from "zod";
import { isErrorCode, ObservalError } from "../core/mod.ts";
import {
  type ImportA2aRequest,
  type InstallRequest,
  type ListResponse,
  ListResponseSchema,
  type PublishAgentRequest,
  type ReviewRequest,
  type SearchRequest,
  type SearchResponse,
  SearchResponseSchema,
} from "./schemas.ts";

/** Sends one request; `fetch` semantics. */
export type Transport = (request: Request) => Promise<Response>;

/** Options for {@linkcode RegistryClient}. */
export interface RegistryClientOptions {
  baseUrl: string;
  transport: Transport;
  apiKey?: string;
  /** Called once when the client is closed (the embedded registry closes its database). */
  onClose?: () => void;
  /** Describes where calls go, for messages. */
  label: string;
}

type Json = Record<string, unknown>;

/** The registry API as methods. Every failure is an ObservalError from the envelope. */
export class RegistryClient {
  readonly label: string;
  readonly #options: RegistryClientOptions;

  constructor(options: RegistryClientOptions) {
    this.#options = options;
    this.label = options.label;
  }

  /** Calls one route and returns the parsed JSON body. */
  async call<T = Json>(
    method: string,
    path: string,
    body?: unknown,
    schema?: z.ZodType<T>,
  ): Promise<T> {
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (this.#options.apiKey) headers.authorization = `Bearer ${this.#options.apiKey}`;
    const request = new Request(`${this.#options.baseUrl}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: "manual",
    });
    let response: Response;
    try {
      response = await this.#options.transport(request);
    } catch (err) {
      if (err instanceof ObservalError) throw err;
      throw new ObservalError("NETWORK", `Cannot reach the registry at ${this.label}`, {
        cause: err,
        remediation:
          "Check OBSERVAL_SERVER_URL (or server_url in config.json) and that the server runs",
      });
    }
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : {};
    } catch {
      throw new ObservalError(
        "NETWORK",
        `The registry answered HTTP ${response.status} without JSON`,
        { remediation: `Check that ${this.label} is an Observal registry` },
      );
    }
    if (!response.ok) throw errorFromEnvelope(response.status, json);
    if (!schema) return json as T;
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new ObservalError("NETWORK", `The registry sent an unexpected ${path} response`, {
        remediation: "Check that client and server versions match",
      });
    }
    return parsed.data;
  }

  search(request: SearchRequest): Promise<SearchResponse> {
    return this.call("POST", "/api/v1/ard/search", request, SearchResponseSchema);
  }

  listAgents(params: { pageSize?: number; pageToken?: string; filter?: string } = {}) {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
    const qs = q.size ? `?${q}` : "";
    return this.call<ListResponse>("GET", `/api/v1/ard/agents${qs}`, undefined, ListResponseSchema);
  }

  entry(identifier: string): Promise<Json> {
    return this.call("GET", `/api/v1/ard/entries/${encodeURIComponent(identifier)}`);
  }

  manifest(): Promise<Json> {
    return this.call("GET", "/.well-known/ard.json");
  }

  listImports(): Promise<{ items: Json[]; total: number }> {
    return this.call("GET", "/api/v1/ard/imports");
  }

  submitCard(request: ImportA2aRequest): Promise<Json> {
    return this.call("POST", "/api/v1/ard/imports/a2a", request);
  }

  reviewImport(identifier: string, request: ReviewRequest): Promise<Json> {
    return this.call(
      "POST",
      `/api/v1/ard/imports/${encodeURIComponent(identifier)}/review`,
      request,
    );
  }

  removeImport(identifier: string): Promise<Json> {
    return this.call("DELETE", `/api/v1/ard/imports/${encodeURIComponent(identifier)}`);
  }

  publishAgent(request: PublishAgentRequest): Promise<Json> {
    return this.call("POST", "/api/v1/agents", request);
  }

  agent(id: string): Promise<Json> {
    return this.call("GET", `/api/v1/agents/${encodeURIComponent(id)}`);
  }

  reviewAgent(id: string, request: ReviewRequest): Promise<Json> {
    return this.call("POST", `/api/v1/agents/${encodeURIComponent(id)}/review`, request);
  }

  installAgent(id: string, request: InstallRequest): Promise<Json> {
    return this.call("POST", `/api/v1/agents/${encodeURIComponent(id)}/install`, request);
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

function errorFromEnvelope(status: number, json: unknown): ObservalError {
  const env = (json && typeof json === "object" ? json : {}) as Record<string, unknown>;
  const code = isErrorCode(env.errorCode) ? env.errorCode : STATUS_CODES[status] ?? "UNAVAILABLE";
  const message = typeof env.message === "string" && env.message
    ? env.message
    : `The registry answered HTTP ${status}`;
  return new ObservalError(code, message, {
    remediation: typeof env.remediation === "string" ? env.remediation : undefined,
    resource: typeof env.resource === "string" ? env.resource : undefined,
  });
}
