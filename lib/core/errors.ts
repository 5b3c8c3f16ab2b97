/**
 * One error type for everything observal refuses or fails at. Each code maps to a
 * category, and each category to one exit code and one HTTP status, so the CLI, the
 * registry server and (later) MCP tools all report a failure the same way.
 * @module
 */

/** Broad classes of failure; each has one exit code (see `observal help exit-codes`). */
export const CATEGORIES = {
  usage: { exit: 2, http: 400 },
  validation: { exit: 2, http: 400 },
  auth: { exit: 4, http: 401 },
  permission: { exit: 4, http: 403 },
  not_found: { exit: 5, http: 404 },
  conflict: { exit: 6, http: 409 },
  precondition: { exit: 6, http: 409 },
  /** Someone else's answer or cancel got there first; nothing of this call took effect. */
  superseded: { exit: 11, http: 409 },
  unprocessable: { exit: 7, http: 422 },
  network: { exit: 8, http: 502 },
  unavailable: { exit: 9, http: 503 },
  not_implemented: { exit: 9, http: 501 },
  rate_limited: { exit: 9, http: 429 },
  internal: { exit: 1, http: 500 },
} as const;

export type Category = keyof typeof CATEGORIES;

/** Wire error codes (the registry's `errorCode`) and the category each belongs to. */
export const CODES = {
  INVALID_ARGUMENT: "validation",
  USAGE: "usage",
  UNAUTHENTICATED: "auth",
  PERMISSION_DENIED: "permission",
  NOT_FOUND: "not_found",
  ALREADY_EXISTS: "conflict",
  FAILED_PRECONDITION: "precondition",
  REPLY_REFUSED: "superseded",
  INVALID_AGENT_CARD: "unprocessable",
  INVALID_AGENT: "unprocessable",
  UNSAFE_URL: "unprocessable",
  NETWORK: "network",
  UNAVAILABLE: "unavailable",
  NOT_IMPLEMENTED: "not_implemented",
  RESOURCE_EXHAUSTED: "rate_limited",
  INTERNAL: "internal",
} as const satisfies Record<string, Category>;

export type ErrorCode = keyof typeof CODES;

/** Options for {@linkcode ObservalError}. */
export interface ObservalErrorOptions {
  /** What to do next, as a sentence or a command to run. */
  remediation?: string;
  /** The thing the error is about (an identifier, a path, a URL). */
  resource?: string;
  cause?: unknown;
  /**
   * The exit code, where a command gives this failure one of its own (`delegate apply`
   * refusing a second apply); otherwise the category's.
   */
  exitCode?: number;
}

/**
 * A failure with a stable code, a message that says what happened and, where there is
 * one, the next step.
 *
 * @example
 * ```ts
 * throw new ObservalError("NOT_FOUND", "Entry not found", {
 *   remediation: "Search again with `observal registry search`",
 * });
 * ```
 */
export class ObservalError extends Error {
  readonly code: ErrorCode;
  readonly remediation?: string;
  readonly resource?: string;
  readonly #exitCode?: number;

  constructor(code: ErrorCode, message: string, options: ObservalErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "ObservalError";
    this.code = code;
    this.remediation = options.remediation;
    this.resource = options.resource;
    this.#exitCode = options.exitCode;
  }

  get category(): Category {
    return CODES[this.code];
  }

  get exitCode(): number {
    return this.#exitCode ?? CATEGORIES[this.category].exit;
  }

  get httpStatus(): number {
    return CATEGORIES[this.category].http;
  }

  /** The JSON error object printed under `--json` and sent by the registry. */
  toJSON(): ErrorObject {
    const out: ErrorObject = { errorCode: this.code, message: this.message };
    if (this.remediation) out.remediation = this.remediation;
    if (this.resource) out.resource = this.resource;
    return out;
  }
}

/** The error envelope shared by the registry API and `--json` CLI output. */
export interface ErrorObject {
  errorCode: string;
  message: string;
  remediation?: string;
  resource?: string;
}

/** True when `code` is one of ours (used when reading an error envelope off the wire). */
export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(CODES, code);
}

/**
 * What was thrown, as text: an error's message, anything else as a string.
 *
 * @example
 * ```ts
 * errorMessage(new Error("disk full")); // "disk full"
 * errorMessage("gone"); // "gone"
 * ```
 */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Wraps anything thrown into an {@linkcode ObservalError}, keeping ours as they are. */
export function toObservalError(err: unknown): ObservalError {
  if (err instanceof ObservalError) return err;
  const message = errorMessage(err);
  return new ObservalError("INTERNAL", `Unexpected failure: ${message}`, { cause: err });
}
