import { ObservalError, type ObservalErrorOptions } from "../../core/mod.ts";

/** JSON-RPC code of A2A's TaskNotFoundError. */
export const RPC_TASK_NOT_FOUND = -32001;
/** JSON-RPC code of A2A's TaskNotCancelableError. */
export const RPC_TASK_NOT_CANCELABLE = -32002;

/** Options for {@linkcode RemoteRpcError}. */
export interface RemoteRpcErrorOptions extends ObservalErrorOptions {
  /** The error's `data` member as received. */
  data?: unknown;
}

/**
 * A JSON-RPC error answered by a remote agent. It is a `NETWORK` error like any other
 * remote failure, and keeps the JSON-RPC `code` so callers can tell, say, an unknown task
 * ({@linkcode RPC_TASK_NOT_FOUND}) from the rest.
 *
 * @example
 * ```ts
 * declare const client: { get(id: string): Promise<unknown> };
 * declare const id: string;
 * declare function forget(id: string): void;
 * try {
 *   await client.get(id);
 * } catch (err) {
 *   if (err instanceof RemoteRpcError && err.rpcCode === RPC_TASK_NOT_FOUND) forget(id);
 *   else throw err;
 * }
 * ```
 */
export class RemoteRpcError extends ObservalError {
  /** The JSON-RPC error code, e.g. -32001. */
  readonly rpcCode: number;
  /** The JSON-RPC error `data`, if any. */
  readonly rpcData?: unknown;

  constructor(rpcCode: number, message: string, options: RemoteRpcErrorOptions = {}) {
    super("NETWORK", message, options);
    this.name = "RemoteRpcError";
    this.rpcCode = rpcCode;
    if (options.data !== undefined) this.rpcData = options.data;
  }
}
