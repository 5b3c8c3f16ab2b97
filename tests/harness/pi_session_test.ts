import assert from "node:assert/strict";
import { piSessionFile, piSessionRoot, planHeadlessRun } from "../../lib/harness/mod.ts";

const AT = new Date("2026-12-04T16:42:39.910Z");
const ID = "6f1c2d4e-1111-4222-8333-944455556666";

Deno.test("piSessionFile() names the file as Pi does: a folder per cwd, start time and id", () => {
  assert.equal(
    piSessionFile({ HOME: "/home/u" }, "/home/u/.observal/delegations/ws/x/repo", ID, AT),
    `/home/u/.pi/agent/sessions/--home-u-.observal-delegations-ws-x-repo--/2026-12-04T16-42-39-910Z_${ID}.jsonl`,
  );
});

Deno.test("piSessionFile() follows PI_CODING_AGENT_DIR, and PI_CODING_AGENT_SESSION_DIR flat", () => {
  const env = { HOME: "/home/u", PI_CODING_AGENT_DIR: "~/pi" };
  assert.equal(piSessionRoot(env), "/home/u/pi/sessions");
  assert.equal(
    piSessionFile(env, "/w/repo", ID, AT),
    `/home/u/pi/sessions/--w-repo--/2026-12-04T16-42-39-910Z_${ID}.jsonl`,
  );
  const flat = { ...env, PI_CODING_AGENT_SESSION_DIR: "/srv/pi-sessions" };
  assert.equal(piSessionRoot(flat), "/srv/pi-sessions");
  assert.equal(
    piSessionFile(flat, "/w/repo", ID, AT),
    `/srv/pi-sessions/2026-12-04T16-42-39-910Z_${ID}.jsonl`,
  );
});

Deno.test("planHeadlessRun() starts Pi on a session file in Pi's sessions folder, with our id", () => {
  const plan = planHeadlessRun({
    harness: "pi",
    binary: "/bin/pi",
    agentName: "fixer",
    instructions: "Fix.",
    message: "task",
    workdir: "/ws/repo",
    scratch: "/ws/scratch",
    sessionId: ID,
    mcpServers: {},
    env: { HOME: "/home/u" },
    now: AT,
    platform: "linux",
  });
  const path = `/home/u/.pi/agent/sessions/--ws-repo--/2026-12-04T16-42-39-910Z_${ID}.jsonl`;
  assert.equal(plan.argv[plan.argv.indexOf("--session") + 1], path);
  assert.equal(plan.sessionId, ID);
  assert.equal(plan.files.length, 1);
  assert.equal(plan.files[0].path, path);
  const header = JSON.parse(plan.files[0].content);
  assert.deepEqual(header, {
    type: "session",
    version: 3,
    id: ID,
    timestamp: AT.toISOString(),
    cwd: "/ws/repo",
  });
});
