/** A per-request time limit joined with the caller's signal. */
export interface Deadline {
  /** Aborts when the time runs out or the caller aborts. */
  readonly signal: AbortSignal;
  /** True once the time limit (not the caller) aborted the request. */
  timedOut(): boolean;
  /** Starts the time limit again (a stream that delivered data is still alive). */
  restart(): void;
  /** Stops the timer and detaches from the caller's signal. */
  clear(): void;
}

/**
 * Starts a deadline of `ms` milliseconds. A timer is used rather than
 * `AbortSignal.timeout` so it can be restarted and is always cleared, leaving nothing
 * pending after the request.
 */
export function startDeadline(ms: number, outer: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  let expired = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      expired = true;
      controller.abort(new DOMException("The request timed out", "TimeoutError"));
    }, ms);
  };
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", onAbort, { once: true });
  if (!controller.signal.aborted) arm();
  return {
    signal: controller.signal,
    timedOut: () => expired,
    restart: () => {
      if (!controller.signal.aborted) arm();
    },
    clear: () => {
      clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    },
  };
}
