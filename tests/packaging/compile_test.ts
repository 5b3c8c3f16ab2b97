/**
 * compile.sh when Deno's runtime cannot be downloaded: deno's own error without a Rust
 * backtrace, then what works instead. The download is sent to a closed port on 127.0.0.1
 * through HTTPS_PROXY, so nothing leaves the machine.
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** A port on 127.0.0.1 that nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

Deno.test("compile.sh names --sea and COMPILE_VERIFY=1, without a backtrace, when the runtime cannot be fetched", async () => {
  const denoDir = mkdtempSync(join(tmpdir(), "observal-compile-"));
  try {
    const proxy = `http://127.0.0.1:${await closedPort()}`;
    const out = await new Deno.Command("bash", {
      args: ["compile.sh", "x86_64-unknown-linux-gnu"],
      cwd: REPO,
      env: {
        DENO_DIR: denoDir,
        HTTPS_PROXY: proxy,
        HTTP_PROXY: proxy,
        NO_PROXY: "",
        // What this machine exports; the script must not pass it on to deno.
        RUST_BACKTRACE: "1",
        NO_COLOR: "1",
      },
    }).output();
    const stderr = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 3, stderr);
    assert.match(stderr, /denort-x86_64-unknown-linux-gnu\.zip/);
    assert.doesNotMatch(stderr, /backtrace/i);
    assert.match(stderr, /\.\/compile\.sh --sea/);
    assert.match(stderr, /COMPILE_VERIFY=1 \.\/compile\.sh/);
    assert.match(stderr, /\$DENO_DIR\/dl\/release\/v[\d.]+\/denort-<target>\.zip/);
  } finally {
    rmSync(denoDir, { recursive: true, force: true });
  }
});
