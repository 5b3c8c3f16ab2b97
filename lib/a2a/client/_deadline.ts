import { startTimer } from "../../core/system/mod.ts";

/** A per-request time limit joined with the caller's signal. */
export interface Deadline {
  /** Aborts when the time runs out or the caller aborts. */
  readonly signal: AbortSignal;
  /** True once the time limit (not the caller) aborted the request. */
  timedOut(): boolean;
  /** Stops the time limit, leaving only the caller's signal (a stream that has begun). */
  stop(): void;
  /** Stops the timer and detaches from the caller's signal. */
  clear(): void;
}

/**
 * Starts a deadline of `ms` milliseconds. The request gets its own signal, aborted by a
 * {@linkcode startTimer} timer rather than by an `AbortSignal.timeout` of its own, so the
 * limit can be stopped and is always cleared, leaving nothing pending after the request.
 */
export function startDeadline(ms: number, outer: AbortSignal | undefined): Deadline {
  const controller = new AbortController();
  let expired = false;
  let cancel = () => {};
  const onAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) controller.abort(outer.reason);
  else outer?.addEventListener("abort", onAbort, { once: true });
  if (!controller.signal.aborted) {
    cancel = startTimer(ms, () => {
      expired = true;
      controller.abort(new DOMException("The request timed out", "TimeoutError"));
    });
  }
  return {
    signal: controller.signal,
    timedOut: () => expired,
    stop: () => cancel(),
    clear: () => {
      cancel();
      outer?.removeEventListener("abort", onAbort);
    },
  };
}
