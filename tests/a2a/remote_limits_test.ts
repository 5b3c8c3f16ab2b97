import assert from "node:assert/strict";
import {
  checkCollected,
  DEFAULT_REMOTE_LIMITS,
  limitExceeded,
  REMOTE_LIMIT_VARIABLES,
  remoteLimits,
  RemoteRefusalError,
} from "../../lib/a2a/mod.ts";
import { ObservalError } from "../../lib/core/mod.ts";

Deno.test("remoteLimits() reads every OBSERVAL_A2A_MAX_* variable over its default", () => {
  assert.deepEqual(remoteLimits({}), DEFAULT_REMOTE_LIMITS);
  const env = Object.fromEntries(
    Object.values(REMOTE_LIMIT_VARIABLES).map((name, i) => [name, ` ${i + 10} `]),
  );
  assert.deepEqual(Object.values(remoteLimits(env)), [10, 11, 12, 13, 14, 15]);
});

Deno.test("remoteLimits() refuses a value that is not a whole number from 1", () => {
  for (const value of ["0", "-5", "1e6", "12MB", "1.5", String(2 ** 41)]) {
    assert.throws(
      () => remoteLimits({ OBSERVAL_A2A_MAX_ARTIFACTS: value }),
      (err: unknown) => {
        assert.ok(err instanceof ObservalError);
        assert.equal(err.code, "INVALID_ARGUMENT");
        assert.match(err.message, /OBSERVAL_A2A_MAX_ARTIFACTS must be a whole number/);
        return true;
      },
      value,
    );
  }
});

Deno.test("limitExceeded() names the limit, its value and how to raise it", () => {
  const err = limitExceeded(
    { ...DEFAULT_REMOTE_LIMITS, maxEventBytes: 512 * 1024 },
    "maxEventBytes",
  );
  assert.ok(err instanceof RemoteRefusalError);
  assert.equal(err.reason, "limit");
  assert.equal(err.code, "RESOURCE_EXHAUSTED");
  assert.equal(err.variable, "OBSERVAL_A2A_MAX_EVENT_BYTES");
  assert.equal(
    err.message,
    "The remote agent sent a stream event or line larger than 512 KiB, past the " +
      "OBSERVAL_A2A_MAX_EVENT_BYTES limit",
  );
  assert.match(
    err.remediation ?? "",
    /set OBSERVAL_A2A_MAX_EVENT_BYTES to a larger value \(now 524288\)/,
  );
});

Deno.test("checkCollected() counts artifacts and messages and their bytes", () => {
  const limits = {
    ...DEFAULT_REMOTE_LIMITS,
    maxArtifacts: 2,
    maxArtifactBytes: 1000,
    maxMessages: 2,
    maxMessageBytes: 500,
  };
  const artifact = (id: string, text: string) => ({ artifactId: id, parts: [{ text }] });
  const message = (id: string, text: string) => ({
    messageId: id,
    role: "ROLE_AGENT" as const,
    parts: [{ text }],
  });
  checkCollected({ artifacts: [artifact("a", "x"), artifact("b", "y")], messages: [] }, limits);
  const cases = [
    [{ artifacts: [artifact("a", "x"), artifact("b", "y"), artifact("c", "z")] }, "maxArtifacts"],
    [{ artifacts: [artifact("a", "é".repeat(600))] }, "maxArtifactBytes"],
    [{ messages: [message("1", ""), message("2", ""), message("3", "")] }, "maxMessages"],
    [{ messages: [message("1", "x".repeat(501))] }, "maxMessageBytes"],
  ] as const;
  for (const [collected, key] of cases) {
    assert.throws(() => checkCollected(collected, limits), (err: unknown) => {
      assert.ok(err instanceof RemoteRefusalError);
      assert.equal(err.variable, REMOTE_LIMIT_VARIABLES[key]);
      return true;
    }, key);
  }
});
