/** A stream that breaks after the first event: the worker falls back to polling. */
import assert from "node:assert/strict";
import type { Task } from "../../lib/a2a/mod.ts";
import { playground } from "../support/delegation.ts";

/** Forwards to the agent, but cuts every event stream right after its first event. */
function cuttingProxy(upstream: string) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    const url = new URL(req.url);
    const body = req.method === "GET" ? undefined : await req.arrayBuffer();
    const headers = new Headers(req.headers);
    headers.delete("host");
    const res = await fetch(`${upstream}${url.pathname}${url.search}`, {
      method: req.method,
      headers,
      body,
    });
    if (!res.headers.get("content-type")?.includes("text/event-stream")) {
      return new Response(res.body, { status: res.status, headers: res.headers });
    }
    const reader = res.body!.getReader();
    let text = "";
    while (!text.includes("\n\n")) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    await reader.cancel();
    const first = text.slice(0, text.indexOf("\n\n") + 2);
    const cut = new ReadableStream({
      start(c) {
        c.enqueue(new TextEncoder().encode(first));
        setTimeout(() => c.error(new Error("connection cut")), 20);
      },
    });
    return new Response(cut, { status: res.status, headers: res.headers });
  });
  return server;
}

Deno.test("delegate run: a stream that breaks falls back to polling the task", async () => {
  const pg = await playground({ behaviour: "input", streaming: true, approve: false });
  const proxy = cuttingProxy(pg.agent.url);
  const admin = pg.registry();
  try {
    const proxyUrl = `http://127.0.0.1:${proxy.addr.port}`;
    pg.agent.setCardOverride((card) =>
      JSON.parse(JSON.stringify(card).replaceAll(pg.agent.url, proxyUrl))
    );
    const doc = await admin.submitCard({ cardUrl: pg.agent.cardUrl, visibility: "public" });
    await admin.reviewImport(pg.identifier, {
      action: "approve",
      digest: String(doc["obs:artifactDigest"]),
    });
    const r = await pg.json(["delegate", "run", pg.identifier, "Notes please", "--wait", "60"]);
    const task = r.body as unknown as Task;
    assert.equal(task.status.state, "TASK_STATE_INPUT_REQUIRED", JSON.stringify(task.status));
    const methods = pg.agent.requests.map((q) => q.rpcMethod).filter(Boolean);
    assert.equal(methods[0], "SendStreamingMessage");
    assert.ok(methods.slice(1).every((m) => m === "GetTask") && methods.length >= 2, `${methods}`);
  } finally {
    admin.close();
    await proxy.shutdown();
    await pg.close();
  }
});
