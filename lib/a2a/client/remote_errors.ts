import { ObservalError, type ObservalErrorOptions } from "../../core/mod.ts";

/**
 * A failure to get an answer that may pass on its own: the agent could not be reached,
 * did not answer in time, or answered HTTP 5xx or 429. Following a task retries these
 * for a while; sending a message does not (the agent may have taken it).
 *
 * @example
 * ```ts ignore
 * if (err instanceof TransientRemoteError) await retryLater();
 * ```
 */
export class TransientRemoteError extends ObservalError {
  constructor(message: string, options: ObservalErrorOptions = {}) {
    super("NETWORK", message, options);
    this.name = "TransientRemoteError";
  }
}

/** Why observal stopped following an agent that may still be working. */
export type RefusalReason = "limit" | "deadline" | "identity" | "state";

/**
 * Observal stops following a task for a reason of its own, while the agent itself may
 * well go on working: what it sent went past one of observal's limits (`limit`, naming the
 * variable that raises it), the task ran past its deadline (`deadline`), an answer named
 * another task than the one being followed (`identity`), or reported a task state A2A
 * does not define (`state`). A task that fails this way is a local decision, so the agent
 * is asked to cancel it.
 *
 * @example
 * ```ts ignore
 * if (err instanceof RemoteRefusalError) await client.cancel(taskId).catch(() => {});
 * ```
 */
export class RemoteRefusalError extends ObservalError {
  /** What kind of refusal this is. */
  readonly reason: RefusalReason;
  /** For `limit`: the environment variable that sets the limit. */
  readonly variable?: string;

  constructor(
    reason: RefusalReason,
    message: string,
    options: ObservalErrorOptions & { variable?: string } = {},
  ) {
    const local = reason === "limit" || reason === "deadline";
    super(local ? "RESOURCE_EXHAUSTED" : "INVALID_AGENT", message, options);
    this.name = "RemoteRefusalError";
    this.reason = reason;
    if (options.variable !== undefined) this.variable = options.variable;
  }
}
