/**
 * The low-level HTTP seam under {@linkcode safeFetch}: one GET, connected where
 * safeFetch says, with no redirects, retries or decoding.
 * @module
 */

/** One GET as {@linkcode safeFetch} asks for it. */
export interface PinnedRequest {
  /** What to ask for. Its host is sent as the `Host` header and used as TLS server name. */
  url: URL;
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
}

/** Performs one {@linkcode PinnedRequest}; {@linkcode nodeRequest} is the real one. */
export type Requester = (request: PinnedRequest) => Promise<RawResponse>;
