/**
 * The low-level HTTP seam under {@linkcode safeFetch} and the A2A client: one request,
 * connected to the address the SSRF check approved, with no redirects, retries or
 * decoding.
 * @module
 */

/** One request as {@linkcode safeFetch} or the A2A client asks for it. */
export interface PinnedRequest {
  /** What to ask for. Its host is sent as the `Host` header and used as TLS server name. */
  url: URL;
  /** @default "GET" */
  method?: "GET" | "POST";
  /** The request body (sent with a `Content-Length`); none for a GET. */
  body?: Uint8Array;
  /**
   * The checked IP address to connect to instead of resolving `url`'s host again.
   * Absent only for hosts an administrator allowed, which are resolved as usual.
   */
  address?: string;
  /** Request headers (without `Host`, which comes from `url`). */
  headers: Record<string, string>;
  /** Aborts the connection, the wait for headers and the body. */
  signal: AbortSignal;
}

/** The status line, headers and a body not yet read. */
export interface RawResponse {
  status: number;
  /** Header names lower-cased; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The body as it arrives; ending the iteration early must close the connection. */
  body: AsyncIterable<Uint8Array>;
  /**
   * Closes the connection without reading the body (a refused answer). Without it, the
   * reader ends an iteration it has not started, which some streams ignore.
   */
  abort?: () => void;
}

/** Performs one {@linkcode PinnedRequest}; {@linkcode hostRequest} is the real one. */
export type Requester = (request: PinnedRequest) => Promise<RawResponse>;
