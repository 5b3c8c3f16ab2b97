import { ObservalError } from "../../core/mod.ts";
import { TransientRemoteError } from "./remote_errors.ts";
import { RemoteRpcError, RPC_TASK_NOT_FOUND } from "./remote_rpc_error.ts";

/** What the error messages say about the endpoint being called. */
export interface Endpoint {
  url: string;
  host: string;
  /** The token variable for the host, when it can have one. */
  variable?: string;
  /** A token was sent with the request. */
  tokenSent: boolean;
  /** The approved card declares at least one security scheme. */
  schemeDeclared: boolean;
}

const RETRY_LATER =
  "Try again later; if it keeps failing, ask the agent's owner to check the agent";

/** The request never got an HTTP answer. */
export function unreachable(to: Endpoint, cause: unknown): ObservalError {
  return new TransientRemoteError(`The remote agent at ${to.host} could not be reached`, {
    remediation: `Check that the agent is running and that ${to.url} is reachable from here`,
    resource: to.url,
    cause,
  });
}

/** The per-request time limit ran out. */
export function timedOut(to: Endpoint, ms: number): ObservalError {
  const seconds = Math.round(ms / 100) / 10;
  return new TransientRemoteError(
    `The remote agent at ${to.host} did not answer within ${seconds} seconds`,
    { remediation: RETRY_LATER, resource: to.url },
  );
}

/** A 3xx answer: redirects are never followed, since only the pinned URL was approved. */
export function redirected(to: Endpoint, status: number): ObservalError {
  return new ObservalError(
    "NETWORK",
    `The remote agent at ${to.host} answered with a redirect (HTTP ${status}), which is not followed`,
    {
      remediation: "Ask the agent's owner to list the final endpoint URL in the card, then " +
        "import and approve the card again",
      resource: to.url,
    },
  );
}

/**
 * HTTP 401 or 403: the credential was missing or refused. The message says whether a
 * token was sent and from which variable; it suggests setting a token only when the card
 * declares a security scheme (a token is never sent otherwise).
 */
export function unauthenticated(to: Endpoint, status: number): ObservalError {
  const { host, variable } = to;
  if (!to.schemeDeclared) {
    return new ObservalError(
      "UNAUTHENTICATED",
      `The remote agent at ${host} refused the call (HTTP ${status}), but its approved ` +
        "Agent Card declares no security scheme, so no credential was sent",
      {
        remediation: "Ask the agent's owner to declare how to authenticate in the card's " +
          "securitySchemes, then import and approve the card again",
        resource: to.url,
      },
    );
  }
  if (variable === undefined) {
    return new ObservalError(
      "UNAUTHENTICATED",
      `The remote agent at ${host} requires a credential (HTTP ${status}), but its host ` +
        "cannot be given a token variable, so no token was sent",
      {
        remediation: "Ask the agent's owner for an endpoint with a DNS host name: tokens are " +
          "read only from OBSERVAL_A2A_TOKEN_<HOST> variables",
        resource: to.url,
      },
    );
  }
  const message = to.tokenSent
    ? `The remote agent at ${host} refused the token from ${variable} (HTTP ${status})`
    : `The remote agent at ${host} requires a credential (HTTP ${status}), and ${variable} is ` +
      "not set, so no token was sent";
  return new ObservalError("UNAUTHENTICATED", message, {
    remediation: `Set ${variable} to a valid token for ${host}, then try again`,
    resource: to.url,
  });
}

/** Any other non-2xx answer. */
export function httpStatus(to: Endpoint, status: number): ObservalError {
  const message = `The remote agent at ${to.host} answered HTTP ${status}`;
  const options = { remediation: RETRY_LATER, resource: to.url };
  // Server trouble and rate limits pass; other statuses are the request's fault.
  return status >= 500 || status === 429
    ? new TransientRemoteError(message, options)
    : new ObservalError("NETWORK", message, options);
}

/** A body that does not parse as JSON. */
export function notJson(to: Endpoint, status: number, cause?: unknown): ObservalError {
  return new ObservalError(
    "NETWORK",
    `The remote agent at ${to.host} answered HTTP ${status} without JSON`,
    { remediation: RETRY_LATER, resource: to.url, cause },
  );
}

/** JSON that is not a JSON-RPC 2.0 response to our request. */
export function malformed(to: Endpoint, what = "a malformed JSON-RPC response"): ObservalError {
  return new ObservalError("NETWORK", `The remote agent at ${to.host} sent ${what}`, {
    remediation: "Ask the agent's owner to check that the endpoint speaks A2A over JSON-RPC",
    resource: to.url,
  });
}

/** Longest part of a remote error message repeated in ours. */
const MAX_REMOTE_MESSAGE = 300;

/** A JSON-RPC error object answered by the agent. */
export function rpcError(
  to: Endpoint,
  error: { code: number; message?: string; data?: unknown },
): RemoteRpcError {
  const text = (error.message ?? "").trim();
  const shown = text === ""
    ? "no message"
    : text.length > MAX_REMOTE_MESSAGE
    ? `${text.slice(0, MAX_REMOTE_MESSAGE)}…`
    : text;
  return new RemoteRpcError(
    error.code,
    `The remote agent returned an error (${error.code}): ${shown}`,
    {
      remediation: error.code === RPC_TASK_NOT_FOUND
        ? "The remote agent no longer knows this task; start a new delegation"
        : "Check the request, or ask the agent's owner what the error means",
      resource: to.url,
      data: error.data,
    },
  );
}
