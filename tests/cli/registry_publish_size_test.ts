/** `registry agent publish` refuses a file too large for an agent definition by its size. */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_AGENT_YAML_BYTES } from "../../lib/harness/mod.ts";
import { cli } from "../support/cli.ts";

Deno.test("registry agent publish says a too large file's size and the limit, before sending it", async () => {
  const home = mkdtempSync(join(tmpdir(), "observal-publish-size-"));
  try {
    const file = join(home, "observal-agent.yaml");
    writeFileSync(file, "name: big\n");
    truncateSync(file, 600 * 1024);
    // No registry is set up: the refusal comes before any request.
    const r = await cli(["registry", "agent", "publish", file, "--json"], {
      env: { OBSERVAL_HOME: home, HOME: home, NO_COLOR: "1" },
      cwd: home,
    });
    assert.equal(r.code, 2, r.stderr);
    const { error } = JSON.parse(r.stderr);
    assert.equal(
      error.message,
      `${file} is ${
        600 * 1024
      } bytes; an agent definition may hold at most ${MAX_AGENT_YAML_BYTES} bytes (256 KiB)`,
    );
    assert.match(error.remediation, /shorten the prompt/);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});
