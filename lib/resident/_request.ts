/**
 * What a command asks a resident runner to do: run `argv` as its caller would. The runner
 * parses it with this schema; the command, which loads before zod, uses only its type.
 * @module
 */
import { z } from "zod";

/** The most a request may hold: an environment and a command line, generously. */
export const MAX_REQUEST = 4 * 1024 * 1024;

export const ResidentRequestSchema = z.strictObject({
  argv: z.array(z.string().max(1024 * 1024)).max(4096),
  cwd: z.string().min(1).max(4096).startsWith("/"),
  env: z.record(z.string().max(32 * 1024), z.string().max(1024 * 1024)),
  /** Whether the caller's stdout is a terminal. */
  isTTY: z.boolean(),
  /** When the caller's process began (ms since the epoch). */
  startedAt: z.number().finite().nonnegative(),
  /** The caller's pid: the runner compares its process facts with its own. */
  pid: z.number().int().positive(),
});

/** See {@linkcode ResidentRequestSchema}. */
export type ResidentRequest = z.infer<typeof ResidentRequestSchema>;
