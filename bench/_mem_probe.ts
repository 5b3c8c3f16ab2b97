/**
 * Loaded before observal by bench/soak.ts with --probe (`node --import`, `deno --preload`):
 * on SIGUSR2 it collects garbage when the runtime exposes `gc` (`--expose-gc`, a bench-only
 * flag) and writes one `soak-probe {json}` line of memory figures to stderr.
 * @module
 */
import process from "node:process";

process.on("SIGUSR2", () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const m = process.memoryUsage();
  process.stderr.write(`soak-probe ${JSON.stringify({ ...m, collected: gc !== undefined })}\n`);
});
