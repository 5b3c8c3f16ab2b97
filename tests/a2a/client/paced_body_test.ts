/**
 * A JSON answer whose body drips or stalls after its headers: the request limit, the
 * caller's signal and the minimum rate each end the read, and the connection is closed.
 * The agent is the hostile test agent on 127.0.0.1.
 */
import assert from "node:assert/strict";
import { createRemoteClient, type RemoteClient } from "../../../lib/a2a/client/mod.ts";
import { RemoteRefusalError } from "../../../lib/a2a/mod.ts";
import { remotePace } from "../../../lib/a2a/remote_pace.ts";
import { ObservalError } from "../../../lib/core/mod.ts";
import { until } from "../../support/gated_agent.ts";
import {
  type HostileAgent,
  type HostileMode,
  startHostileAgent,
} from "../../support/hostile_agent.ts";

async function agentClient(
  mode: HostileMode,
  options: { requestTimeoutMs?: number; minBodyRate?: number },
): Promise<{ agent: HostileAgent; client: RemoteClient }> {
  const agent = await startHostileAgent(mode);
  const card = await (await fetch(agent.cardUrl)).json();
  const client = createRemoteClient({
    iface: card.supportedInterfaces[0],
    card,
    env: {},
    allowPrivateHosts: ["127.0.0.1"],
    ...options,
  });
  return { agent, client };
}

/** The agent's answers all closed (the client hung up). */
const closed = (agent: HostileAgent) =>
  until(
    "the answer's connection to close",
    () => Promise.resolve(agent.openBodies() === 0 || undefined),
  );

for (const mode of ["drip", "stall"] as const) {
  Deno.test(`${mode}: the request limit ends the body read and closes the connection`, async () => {
    const { agent, client } = await agentClient(mode, { requestTimeoutMs: 500, minBodyRate: 0 });
    try {
      await assert.rejects(
        client.send({ text: "hi" }),
        (err: unknown) =>
          err instanceof ObservalError && /did not answer within 0\.5 seconds/.test(err.message),
      );
      await closed(agent);
    } finally {
      await agent.close();
    }
  });

  Deno.test(`${mode}: the caller's signal ends the body read at once`, async () => {
    const { agent, client } = await agentClient(mode, { minBodyRate: 0 });
    try {
      const stop = new AbortController();
      const reason = new Error("stopped by the test");
      const pending = client.get("task-1", stop.signal);
      await until("the answer to begin", () => Promise.resolve(agent.openBodies() || undefined));
      stop.abort(reason);
      await assert.rejects(pending, (err: unknown) => err === reason);
      await closed(agent);
    } finally {
      await agent.close();
    }
  });
}

Deno.test("a body slower than the minimum rate fails naming OBSERVAL_A2A_MIN_BODY_RATE", async () => {
  const { agent, client } = await agentClient("drip", { minBodyRate: 64 });
  try {
    await assert.rejects(
      client.send({ text: "hi" }),
      (err: unknown) =>
        err instanceof RemoteRefusalError && err.variable === "OBSERVAL_A2A_MIN_BODY_RATE" &&
        /slower than 64 bytes a second/.test(err.message),
    );
    await closed(agent);
  } finally {
    await agent.close();
  }
});

Deno.test("headers sent early and then silence: the request limit applies, not the rate", async () => {
  // The rate is measured from the first body bytes: a server may flush its headers and
  // then work; only the request limit bounds how long it may take to start the body.
  const { agent, client } = await agentClient("stall", {
    requestTimeoutMs: 3500,
    minBodyRate: 64,
  });
  try {
    await assert.rejects(
      client.send({ text: "hi" }),
      (err: unknown) =>
        err instanceof ObservalError && !(err instanceof RemoteRefusalError) &&
        /did not answer within 3\.5 seconds/.test(err.message),
    );
    await closed(agent);
  } finally {
    await agent.close();
  }
});

Deno.test("remotePace() reads its variables and refuses bad values", () => {
  assert.deepEqual(remotePace({}), { requestTimeoutMs: 60_000, minBodyRate: 1024 });
  assert.deepEqual(
    remotePace({ OBSERVAL_A2A_REQUEST_TIMEOUT_MS: "2500", OBSERVAL_A2A_MIN_BODY_RATE: "0" }),
    { requestTimeoutMs: 2500, minBodyRate: 0 },
  );
  for (const bad of ["-1", "fast", "1.5", "10"]) {
    assert.throws(
      () => remotePace({ OBSERVAL_A2A_REQUEST_TIMEOUT_MS: bad }),
      (err: unknown) =>
        err instanceof ObservalError && err.code === "INVALID_ARGUMENT" &&
        /OBSERVAL_A2A_REQUEST_TIMEOUT_MS/.test(err.message),
    );
  }
});
