/**
 * The run slots a served Agent's messages wait for: a fixed number run at once, the rest
 * queue in order up to a limit.
 * @module
 */

/**
 * Slots for runs, and the line of messages waiting for one: `size` run at once, later
 * messages wait in SUBMITTED, and past `maxQueued` waiting one more is rejected.
 */
export class RunSlots {
  #free: number;
  #closed = false;
  /** Each waiter's wake-up: true hands it a slot, false turns it away. */
  readonly #line: Array<(granted: boolean) => void> = [];

  constructor(size: number, readonly maxQueued: number) {
    this.#free = size;
  }

  /** A newcomer's place: 0 runs at once, n is n-th in line; undefined when the line is full. */
  place(): number | undefined {
    if (this.#free > 0) return 0;
    return this.#line.length < this.maxQueued ? this.#line.length + 1 : undefined;
  }

  /** Turns away everyone in line (their take resolves undefined), and every later newcomer. */
  close(): void {
    this.#closed = true;
    for (const turnAway of this.#line.splice(0)) turnAway(false);
  }

  /** Resolves with a slot (and its release), or with undefined when `signal` aborts. */
  take(signal: AbortSignal): Promise<(() => void) | undefined> {
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const next = this.#line.shift();
      if (next) next(true);
      else this.#free++;
    };
    if (this.#closed) return Promise.resolve(undefined);
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(release);
    }
    return new Promise((resolve) => {
      const go = (granted: boolean) => {
        signal.removeEventListener("abort", stop);
        resolve(granted ? release : undefined);
      };
      const stop = () => {
        const at = this.#line.indexOf(go);
        if (at >= 0) this.#line.splice(at, 1);
        resolve(undefined);
      };
      if (signal.aborted) return resolve(undefined);
      signal.addEventListener("abort", stop, { once: true });
      this.#line.push(go);
    });
  }
}
