/**
 * The `data` of each server-sent event in `body`, multi-line data joined with `\n`.
 * Comments and the `event`, `id` and `retry` fields are ignored: A2A puts everything in
 * `data`. `onData` is called for every chunk received, so the caller can keep an idle
 * timer alive. Stopping early cancels the body.
 */
export async function* readSseData(
  body: ReadableStream<Uint8Array>,
  onData: () => void,
): AsyncGenerator<string> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let data: string[] = [];
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) break;
      onData();
      buffer += value;
      // A trailing "\r" may be half of "\r\n": keep it until the next chunk.
      const lines = buffer.split(/\r\n|\r(?!$)|\n/);
      buffer = lines.pop() ?? "";
      for (const line of lines) {
        if (line === "") {
          if (data.length) yield data.join("\n");
          data = [];
        } else if (line === "data" || line.startsWith("data:")) {
          const value = line.slice(5);
          data.push(value.startsWith(" ") ? value.slice(1) : value);
        }
      }
    }
    const last = buffer.replace(/\r$/, "");
    if (last.startsWith("data:")) data.push(last.slice(5).replace(/^ /, ""));
    // Be lenient with a server that closes without the final blank line.
    if (data.length) yield data.join("\n");
  } finally {
    await reader.cancel().catch(() => {});
    reader.releaseLock();
  }
}
