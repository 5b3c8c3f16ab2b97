/**
 * The official A2A TCK (a2aproject/a2a-tck, JSON-RPC) against `observal a2a serve`: its
 * mandatory and capabilities categories, each against its own served playground Agent
 * with a stand-in harness, at once. A failure passes only when the known-failures list
 * next to the runner classes it as a TCK bug; anything else fails the test.
 *
 * The TCK and its runner live outside this repository: `OBSERVAL_A2A_TCK_RUN` names the
 * runner script (default `../shared/a2a-tck-run.sh` next to the repository), which needs
 * Debian's python3 with the packages its header lists (.ci/run installs them). Without the
 * runner the test is skipped (and says so); without the packages it is skipped, except
 * under `CI=true`, where it fails saying what is missing.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { localPlayground } from "../support/local_delegation.ts";
import { serve } from "../support/served_agent.ts";

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const RUNNER = Deno.env.get("OBSERVAL_A2A_TCK_RUN") ?? join(REPO, "..", "shared", "a2a-tck-run.sh");
const KNOWN = Deno.env.get("KNOWN") ?? join(dirname(RUNNER), "a2a-tck-known-failures.txt");
const IN_CI = Deno.env.get("CI") === "true";

/** The modules the runner imports; the same check it makes before it starts. */
const PY_MODULES =
  "pytest, pytest_asyncio, httpx, requests, responses, deepdiff, jsonschema, yaml, dotenv, " +
  "aiohttp, OpenSSL, pytest_timeout";

/** What keeps the TCK from running here, or undefined when it can run. */
function missing(): string | undefined {
  if (!existsSync(RUNNER)) {
    return `the TCK runner ${RUNNER} is missing: set OBSERVAL_A2A_TCK_RUN to a2a-tck-run.sh ` +
      "(with its a2a-tck checkout beside it)";
  }
  const py = spawnSync("/usr/bin/python3", ["-c", `import ${PY_MODULES}`], { encoding: "utf8" });
  if (py.status !== 0) {
    return "Debian's python3 lacks the TCK's packages (see the apt-get line in the header of " +
      `${RUNNER}; .ci/run installs them): ${
        (py.stderr || String(py.error)).trim().split("\n").at(-1)
      }`;
  }
  return undefined;
}

/**
 * The stand-in harness works 10 s, then answers as `claude -p --output-format json` does.
 * The TCK wants tasks that stay WORKING long enough to be listed, filtered and canceled
 * after a blocking SendMessage; the server answers such a send after `--max-wait 1` with
 * the task still working (A2A v1.0 §3.1.1, §3.3.3), and 10 s keeps the first of three
 * tasks made in a row working until they are listed, on a busy machine too.
 */
const WORKS = `#!/bin/sh
cat > /dev/null
sleep 10
printf '{"type":"result","result":"Done.","is_error":false,"session_id":"s1"}\\n'
`;

/** One test's outcome, as the runner records it. */
interface Outcome {
  id: string;
  outcome: string;
  msg: string;
}

/** The known-failures list: node id -> class ("TCK bug: ...", "expected: ...", ...). */
function knownFailures(): Map<string, string> {
  const known = new Map<string, string>();
  if (!existsSync(KNOWN)) return known;
  for (const line of readFileSync(KNOWN, "utf8").split("\n")) {
    if (!line.trim() || line.startsWith("#")) continue;
    const [id, cls = "known"] = line.split("\t");
    known.set(id.trim(), cls.trim());
  }
  return known;
}

/** Runs one TCK category against a freshly served Agent; resolves with its outcomes. */
async function runCategory(category: string): Promise<{ outcomes: Outcome[]; log: string }> {
  const pg = await localPlayground();
  const out = mkdtempSync(join(tmpdir(), `observal-tck-${category}-`));
  try {
    pg.program("claude", WORKS);
    // The TCK's push webhook listens on localhost: allowed as agent endpoints are in tests.
    const allow = await pg.observal([
      "registry",
      "settings",
      "set",
      "discovery.a2a_private_hosts",
      "127.0.0.1,localhost",
    ]);
    assert.equal(allow.code, 0, allow.stderr);
    // localhost, not 127.0.0.1, in the card: the TCK flags IP literals as leaked internals.
    const served = await serve(pg, [
      "--host",
      "localhost",
      "--max-wait",
      "1",
      // Runs last 10 s and the TCK makes one a second: none waits in line.
      "--max-concurrent",
      "16",
    ]);
    try {
      const child = spawn("bash", [RUNNER], {
        env: {
          ...Deno.env.toObject(),
          SUT_URL: served.url,
          CATEGORY: category,
          OUT_DIR: out,
          KNOWN,
          PER_TEST_TIMEOUT: "120",
        },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let log = "";
      child.stdout!.on("data", (d) => log += d);
      child.stderr!.on("data", (d) => log += d);
      const code = await new Promise<number | null>((res) => child.on("exit", res));
      assert.notEqual(code, 2, `the TCK runner could not start:\n${log}`);
      const file = join(out, "outcomes.jsonl");
      assert.ok(existsSync(file), `no outcomes from the TCK:\n${log}`);
      const outcomes = readFileSync(file, "utf8").trim().split("\n").filter(Boolean)
        .map((line) => JSON.parse(line) as Outcome);
      return { outcomes, log };
    } finally {
      assert.equal(await served.stop(), 0, served.stderr());
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
    await pg.close();
  }
}

const why = missing();
if (!existsSync(RUNNER)) console.error(`a2a_tck_test: skipped: ${why}`);

Deno.test({
  name:
    "a2a serve passes the A2A TCK's mandatory and capabilities categories (only TCK bugs excused)",
  // The TCK lives outside this repository: a clone with no TCK beside it cannot run it
  // (said below). Where the runner is there, missing python packages fail under CI.
  ignore: !existsSync(RUNNER) || (why !== undefined && !IN_CI),
  async fn() {
    assert.equal(why, undefined, `CI=true and the A2A TCK cannot run: ${why}`);
    const known = knownFailures();
    const [mandatory, capabilities] = await Promise.all([
      runCategory("mandatory"),
      runCategory("capabilities"),
    ]);
    const problems: string[] = [];
    for (const [name, { outcomes, log }] of Object.entries({ mandatory, capabilities })) {
      const passed = outcomes.filter((o) => o.outcome === "passed").length;
      assert.ok(passed > 0, `no ${name} test passed:\n${log}`);
      // The runner's summary, for whoever reads the test output.
      console.log(`${name}: ${log.split("\n").find((l) => / passed, /.test(l)) ?? ""}`);
      for (const o of outcomes) {
        if (o.outcome !== "failed" && o.outcome !== "error") continue;
        const cls = known.get(o.id) ?? "new";
        if (cls.startsWith("TCK bug")) continue;
        problems.push(`${name}: ${o.id} [${cls.split(":")[0]}] ${o.msg.slice(0, 200)}`);
      }
    }
    assert.deepEqual(
      problems,
      [],
      `TCK failures the known-failures list does not class as TCK bugs:\n${problems.join("\n")}`,
    );
  },
});
