import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { piAgentDir, piTrust, piTrustFix } from "../../lib/harness/mod.ts";

function setup() {
  const home = mkdtempSync(join(tmpdir(), "observal-pi-"));
  const agentDir = join(home, ".pi", "agent");
  mkdirSync(agentDir, { recursive: true });
  const repo = join(home, "work", "repo");
  mkdirSync(join(repo, "sub"), { recursive: true });
  return { home, agentDir, repo, env: { HOME: home } };
}

/** Runs `fn` on a fresh Pi home, removed afterwards. */
function withPi(fn: (s: ReturnType<typeof setup>) => void): () => void {
  return () => {
    const s = setup();
    try {
      fn(s);
    } finally {
      rmSync(s.home, { recursive: true, force: true });
    }
  };
}

Deno.test(
  "piTrust() refuses when Pi has no decision and no default",
  withPi((s) => {
    assert.deepEqual(piTrust(s.repo, s.env), {
      trusted: false,
      source: "none",
      agentDir: s.agentDir,
    });
  }),
);

Deno.test(
  "piTrust() takes the nearest decision: false on the repo beats true on a parent",
  withPi((s) => {
    writeFileSync(
      join(s.agentDir, "trust.json"),
      JSON.stringify({ [join(s.home, "work")]: true, [s.repo]: false }),
    );
    assert.equal(piTrust(join(s.repo, "sub"), s.env).trusted, false);
    assert.equal(piTrust(join(s.home, "work", "other"), s.env).trusted, true);
    writeFileSync(
      join(s.agentDir, "trust.json"),
      JSON.stringify({ [join(s.home, "work")]: false, [s.repo]: true }),
    );
    assert.deepEqual(piTrust(join(s.repo, "sub"), s.env), {
      trusted: true,
      source: s.repo,
      agentDir: s.agentDir,
    });
  }),
);

Deno.test(
  "piTrust() falls back to defaultProjectTrust only when no decision applies",
  withPi((s) => {
    writeFileSync(
      join(s.agentDir, "settings.json"),
      JSON.stringify({ defaultProjectTrust: "always" }),
    );
    assert.equal(piTrust(s.repo, s.env).source, "defaultProjectTrust");
    writeFileSync(join(s.agentDir, "trust.json"), JSON.stringify({ [s.repo]: false }));
    assert.equal(piTrust(s.repo, s.env).trusted, false);
    writeFileSync(
      join(s.agentDir, "settings.json"),
      JSON.stringify({ defaultProjectTrust: "ask" }),
    );
    rmSync(join(s.agentDir, "trust.json"));
    assert.equal(piTrust(s.repo, s.env).trusted, false);
  }),
);

Deno.test(
  "piTrust() counts a malformed trust file as no trust",
  withPi((s) => {
    writeFileSync(join(s.agentDir, "trust.json"), `{"${s.repo}": "yes"}`);
    assert.equal(piTrust(s.repo, s.env).trusted, false);
    writeFileSync(join(s.agentDir, "trust.json"), "not json");
    assert.equal(piTrust(s.repo, s.env).trusted, false);
    // A byte-order mark fails JSON.parse where Pi reads the file, so it fails here too.
    writeFileSync(join(s.agentDir, "trust.json"), `\ufeff{"${s.repo}": true}`);
    assert.equal(piTrust(s.repo, s.env).trusted, false);
  }),
);

Deno.test(
  "piTrust() reads a trust file up to 1 MiB and ignores a larger one",
  withPi((s) => {
    // The decision, padded with spaces to exactly the bound: still read.
    const decision = `{"${s.repo}": true}`;
    const file = join(s.agentDir, "trust.json");
    writeFileSync(file, decision + " ".repeat(1024 * 1024 - decision.length));
    assert.equal(piTrust(s.repo, s.env).trusted, true);
    // One byte more and it is not read at all: no trust.
    writeFileSync(file, decision + " ".repeat(1024 * 1024 - decision.length + 1));
    assert.deepEqual(piTrust(s.repo, s.env).source, "none");
  }),
);

Deno.test(
  "piTrustFix() for a tree `a2a serve` rebuilt names the incoming folder, which covers every run",
  withPi((s) => {
    const file = join(s.agentDir, "trust.json");
    const incoming = join(s.home, "observal", "delegations", "incoming");
    const tree = join(incoming, "serve-4242-aB3xYz", "t-1");
    assert.equal(
      piTrustFix(tree, piTrust(tree, s.env)),
      `If you trust ${incoming}, add "${incoming}": true to ${file} (a JSON object of folder ` +
        `paths; create it if it is missing)`,
    );
    // Only the folders `a2a serve` makes: a repository that happens to sit there is itself.
    const other = join(incoming, "mine");
    assert.match(piTrustFix(other, piTrust(other, s.env)), new RegExp(`trust ${other},`));
    // Following the advice trusts this run's tree and the next one's, named only later.
    writeFileSync(file, JSON.stringify({ [incoming]: true }));
    assert.equal(piTrust(tree, s.env).trusted, true);
    assert.equal(piTrust(join(incoming, "serve-4243-Q1w2e3"), s.env).trusted, true);
  }),
);

Deno.test("piAgentDir() honours PI_CODING_AGENT_DIR, with ~ expanded", () => {
  assert.equal(piAgentDir({ HOME: "/h" }), "/h/.pi/agent");
  assert.equal(piAgentDir({ HOME: "/h", PI_CODING_AGENT_DIR: "~/pi" }), "/h/pi");
  assert.equal(piAgentDir({ HOME: "/h", PI_CODING_AGENT_DIR: "/opt/pi" }), "/opt/pi");
});

Deno.test(
  "piTrustFix() names Pi's trust file and the entry that makes the repository trusted",
  withPi((s) => {
    const file = join(s.agentDir, "trust.json");
    const none = piTrustFix(s.repo, piTrust(s.repo, s.env));
    assert.equal(
      none,
      `If you trust ${s.repo}, add "${s.repo}": true to ${file} (a JSON object of folder ` +
        `paths; create it if it is missing)`,
    );
    // Following the advice is enough for Pi (and us) to trust it.
    writeFileSync(file, JSON.stringify({ [s.repo]: true }));
    assert.equal(piTrust(s.repo, s.env).trusted, true);
    // A false on the repository is named as the entry to change.
    writeFileSync(file, JSON.stringify({ [s.repo]: false, [s.home]: true }));
    assert.equal(
      piTrustFix(join(s.repo, "sub"), piTrust(join(s.repo, "sub"), s.env)),
      `If you trust ${join(s.repo, "sub")}, change "${s.repo}": false to true in ${file}`,
    );
  }),
);
