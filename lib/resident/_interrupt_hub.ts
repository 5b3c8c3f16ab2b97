/** The Ctrl-Cs a resident runner passes to the command it runs. */
import type { Interrupts } from "../core/mod.ts";
import { startTimer } from "../core/system/mod.ts";

/**
 * The Ctrl-Cs of one command. One that comes before the command listens would end a
 * command run in its caller's process; here it is kept for the first listener, which
 * then handles it as it would one just after it began listening.
 */
export function interruptHub(): Pick<Interrupts, "on"> & { interrupt(): void } {
  const listeners = new Set<() => void>();
  let pending = 0;
  return {
    on(listener) {
      listeners.add(listener);
      if (pending) {
        const n = Math.min(pending, 2);
        pending = 0;
        startTimer(0, () => {
          for (let i = 0; i < n && listeners.has(listener); i++) listener();
        });
      }
      return () => void listeners.delete(listener);
    },
    interrupt() {
      if (listeners.size) listeners.forEach((l) => l());
      else pending++;
    },
  };
}
