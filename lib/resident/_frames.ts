/**
 * The wire between a command and the resident runner that runs it: one JSON object per
 * line, each way. The command sends its request, then `{"interrupt":true}` for each
 * Ctrl-C (or terminal close, or SIGTERM) it gets. The runner answers first `{"taken":true}`,
 * then `{"out":…}` and `{"err":…}` as the command writes, and `{"exit":N}` once it ends; or
 * `{"busy":…}` instead, when it cannot take the command, which then runs in its caller.
 * @module
 */

export type { ResidentRequest } from "./_request.ts";

/** What a runner sends back. */
export type ResidentFrame =
  | { taken: true }
  | { out: string }
  | { err: string }
  | { exit: number }
  | { busy: string };

const encoder = new TextEncoder();

/** `value` as one line of the wire. */
export function frameBytes(value: unknown): Uint8Array {
  return encoder.encode(`${JSON.stringify(value)}\n`);
}

/**
 * The lines of `readable`, each without its newline; a line longer than `maxChars` characters ends
 * the stream with an error (the other side is then not one of ours).
 */
export async function* frameLines(
  readable: ReadableStream<Uint8Array>,
  maxChars: number,
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of readable) {
    pending += decoder.decode(chunk, { stream: true });
    let at: number;
    while ((at = pending.indexOf("\n")) >= 0) {
      yield pending.slice(0, at);
      pending = pending.slice(at + 1);
    }
    if (pending.length > maxChars) throw new Error(`a line past ${maxChars} characters`);
  }
}
