import { startTimer } from "../../core/system/mod.ts";
import type { RawResponse } from "../../net/mod.ts";
import { RATE_WINDOW_MS } from "../remote_pace.ts";

/**
 * The body of `response`, chunk by chunk, where every read races `signal`: a read the
 * signal beats rejects with its reason at once, however the stream underneath behaves
 * (some never wake a pending read on abort). With `minRate` above 0, once the first
 * bytes have come, a window of {@linkcode RATE_WINDOW_MS} that brings fewer than `minRate`
 * bytes a second rejects with `tooSlow()`, a silent one included. The wait for the first
 * bytes is the request limit's alone: a server may send its headers early and then work. Whenever the body is left unfinished (lost
 * race, the reader stopping or throwing), the connection is closed, not drained.
 */
export async function* pacedBody(
  response: RawResponse,
  signal: AbortSignal,
  minRate: number,
  tooSlow: () => Error,
): AsyncGenerator<Uint8Array> {
  const iterator = response.body[Symbol.asyncIterator]();
  const slow = new AbortController();
  let bytes = 0;
  let started = false;
  let stopTimer = () => {};
  const measure = () => {
    stopTimer = startTimer(RATE_WINDOW_MS, () => {
      if (bytes < minRate * RATE_WINDOW_MS / 1000) return slow.abort(tooSlow());
      bytes = 0;
      measure();
    });
  };
  const stop = AbortSignal.any([signal, slow.signal]);
  let finished = false;
  try {
    for (;;) {
      const step = await race(iterator.next(), stop);
      if (step.done) break;
      if (minRate > 0 && !started) {
        started = true;
        measure();
      }
      bytes += step.value.byteLength;
      yield step.value;
    }
    finished = true;
  } finally {
    stopTimer();
    if (!finished) {
      if (response.abort) response.abort();
      else iterator.return?.()?.catch(() => {});
    }
  }
}

/** Settles with `promise`, or rejects with the signal's reason as soon as it aborts. */
function race<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  promise.catch(() => {/* a read left behind may fail once the connection closes */});
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
