/**
 * A hostile A2A agent for tests: its own node:http server on 127.0.0.1 that serves a card
 * and answers JSON-RPC (v1.0 by default, v0.3 on request) the way a broken or malicious
 * agent would. One mode per server:
 *
 * - `complete`: an honest agent that completes at once (a control case);
 * - `endless-json`: answers SendMessage with a JSON body that never ends;
 * - `huge-content-length`: declares a body of 10 TB, then sends a trickle;
 * - `endless-sse-line`: opens the stream with one `data:` line that never ends;
 * - `stream-past-deadline`: opens the stream with a working task, then sends keep-alive
 *   comments forever;
 * - `many-artifacts`: streams 10 000 artifacts, then completes;
 * - `huge-artifact`: the task completes with one artifact of 7.5 MiB (just under the
 *   default response limit, far over the artifact limit);
 * - `changing-task-id`: GetTask answers about another task than the one created;
 * - `unknown-state`: GetTask reports a state A2A does not define;
 * - `control-sequences`: completes with terminal control sequences in its messages;
 * - `flaky-polling`: GetTask answers HTTP 503 a few times, then the task completes;
 * - `silent-stream`: opens the stream with a working task, then says nothing; GetTask
 *   shows the task working a few times, then completed;
 * - `broken-stream`: sends one event, then drops the connection; GetTask completes;
 * - `chatty-input` / `chatty-complete`: like Gemini CLI's server, streams its answer in
 *   working status updates (text, and a tool call as a data part), then ends the turn
 *   with input-required (or completed) carrying no message and no artifact;
 * - `quiet-after-reply`: asks a question; once answered it completes without a word or an
 *   artifact, while its task history still holds the question;
 * - `drip`: answers SendMessage and GetTask with headers, then one byte of the body a
 *   second (at most `dripBytes`), then silence, never ending the body;
 * - `stall`: answers SendMessage and GetTask with headers, then nothing.
 *
 * CancelTask is answered honestly in every mode. `openBodies()` counts the answers still
 * connected (a client that gave up must have closed them).
 *
 * Every request is recorded, as are the cancels received and the streams still open.
 * @module
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** What the hostile agent does. */
export type HostileMode =
  | "complete"
  | "endless-json"
  | "huge-content-length"
  | "endless-sse-line"
  | "stream-past-deadline"
  | "many-artifacts"
  | "huge-artifact"
  | "changing-task-id"
  | "unknown-state"
  | "control-sequences"
  | "flaky-polling"
  | "silent-stream"
  | "broken-stream"
  | "chatty-input"
  | "chatty-complete"
  | "quiet-after-reply"
  | "drip"
  | "stall";

/** Modes that answer over a stream (their card declares streaming). */
const STREAMING: ReadonlySet<HostileMode> = new Set([
  "endless-sse-line",
  "stream-past-deadline",
  "many-artifacts",
  "silent-stream",
  "broken-stream",
  "chatty-input",
  "chatty-complete",
]);

/** The path of the JSON-RPC endpoint. */
export const HOSTILE_RPC_PATH = "/rpc";

/** Options for {@linkcode startHostileAgent}. */
export interface HostileOptions {
  /** Wire form of every answer. @default "1.0" */
  protocol?: "1.0" | "0.3";
  /** The endpoint the card lists. @default this server's `/rpc` */
  endpoint?: string;
  /** `flaky-polling`: how many GetTask calls fail first. @default 4 */
  failures?: number;
  /** `silent-stream`: how many GetTask calls still show the task working. @default 1 */
  workingChecks?: number;
  /** `many-artifacts`: how many artifacts are streamed. @default 10_000 */
  artifacts?: number;
  /** `huge-artifact`: the artifact's text length. @default 7.5 MiB */
  artifactBytes?: number;
  /** `drip`: how many bytes are dripped before the silence. @default 30 */
  dripBytes?: number;
}

/** One request the hostile agent received. */
export interface HostileRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  rpcMethod?: string;
  params?: Record<string, unknown>;
  /** Streams still open when this request arrived. */
  openStreams: number;
  /** Milliseconds since the server started. */
  at: number;
}

/** A running hostile agent. */
export interface HostileAgent {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  cardUrl: string;
  /** The JSON-RPC endpoint of this server (the card may list another). */
  rpcUrl: string;
  requests: HostileRequest[];
  /** Task ids whose CancelTask arrived. */
  canceled: string[];
  /** JSON-RPC method names received, in order. */
  rpcMethods(): string[];
  /** Milliseconds since start at which each stream closed. */
  streamsClosedAt: number[];
  /** `drip` and `stall`: answers whose body was begun and whose connection is still open. */
  openBodies(): number;
  close(): Promise<void>;
}

/** The escapes `control-sequences` sends: title, clear screen, colour, CSI in C1, OSC 52. */
export const CONTROL_TEXT = "done\x1b]0;owned\x07\x1b[2J\x1b[31mred\x1b[0m\x9b6n" +
  "\x1b]52;c;Y2xpcGJvYXJk\x07\r\n";

/** What the chatty modes say, in order; the last text is their answer. */
export const CHATTY_TEXTS = ["Looking at the code.", "The answer is 42."];
/** The question `quiet-after-reply` asks. */
export const QUIET_QUESTION = "Which branch?";

/** The tool call the chatty modes send as a data part, between the two texts. */
export const CHATTY_TOOL_CALL = {
  callId: "call-1",
  name: "read_file",
  args: { path: "src/main.ts" },
  status: "awaiting_approval",
};

/** Starts a hostile agent in `mode`. */
export async function startHostileAgent(
  mode: HostileMode,
  options: HostileOptions = {},
): Promise<HostileAgent> {
  const started = Date.now();
  const v03 = options.protocol === "0.3";
  const requests: HostileRequest[] = [];
  const canceled: string[] = [];
  const streamsClosedAt: number[] = [];
  const open = new Set<ServerResponse>();
  const hanging = new Set<ServerResponse>();
  /** Answers whose connection has closed, seen from the moment each request came in. */
  const closedAnswers = new WeakSet<ServerResponse>();
  const taskId = `task-${randomUUID()}`;
  const contextId = `ctx-${randomUUID()}`;
  let gets = 0;
  let sends = 0;
  let base = "";
  /** The question `quiet-after-reply` asks, kept in the task history it reports. */
  const question = () => message([{ text: QUIET_QUESTION }]);
  let asked: ReturnType<typeof question> | undefined;

  const state = (s: string) =>
    v03 ? s.toLowerCase().replace(/_/g, "-") : `TASK_STATE_${s.toUpperCase().replace(/-/g, "_")}`;
  const part = (p: Record<string, unknown>) =>
    v03 ? { kind: typeof p.text === "string" ? "text" : "data", ...p } : p;
  const message = (parts: Record<string, unknown>[]) => ({
    ...(v03 ? { kind: "message" } : {}),
    messageId: randomUUID(),
    role: v03 ? "agent" : "ROLE_AGENT",
    parts: parts.map(part),
    taskId,
    contextId,
  });
  const artifact = (id: string, text: string) => ({
    artifactId: id,
    name: id,
    parts: [part({ text })],
  });
  const task = (
    s: string,
    extra: { id?: string; message?: unknown; artifacts?: unknown[] } = {},
  ) => {
    const body = {
      id: extra.id ?? taskId,
      contextId,
      status: {
        state: state(s),
        timestamp: new Date().toISOString(),
        ...(extra.message ? { message: extra.message } : {}),
      },
      ...(extra.artifacts ? { artifacts: extra.artifacts } : {}),
    };
    return v03 ? { kind: "task", ...body } : body;
  };
  /** A task as a SendMessage or stream result: wrapped in v1.0, tagged in v0.3. */
  const wrapTask = (t: Record<string, unknown>) => v03 ? t : { task: t };
  const status = (s: string, msg?: unknown) => {
    const body = {
      taskId,
      contextId,
      status: {
        state: state(s),
        timestamp: new Date().toISOString(),
        ...(msg ? { message: msg } : {}),
      },
    };
    return v03
      ? { kind: "status-update", ...body, final: s !== "working" && s !== "submitted" }
      : { statusUpdate: body };
  };
  const artifactUpdate = (a: unknown) =>
    v03
      ? { kind: "artifact-update", taskId, contextId, artifact: a, lastChunk: true }
      : { artifactUpdate: { taskId, contextId, artifact: a, lastChunk: true } };

  const card = () => {
    const endpoint = options.endpoint ?? `${base}${HOSTILE_RPC_PATH}`;
    const common = {
      name: `Hostile ${mode}`,
      description: "Answers the way a hostile agent would. Test use only.",
      version: "1.0.0",
      capabilities: { streaming: STREAMING.has(mode), pushNotifications: false },
      defaultInputModes: ["text/plain"],
      defaultOutputModes: ["text/plain"],
      skills: [{ id: "hostile", name: "Hostile", description: "Misbehaves", tags: ["test"] }],
    };
    return v03 ? { ...common, protocolVersion: "0.3.0", url: endpoint } : {
      ...common,
      supportedInterfaces: [{ url: endpoint, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    };
  };

  const json = (res: ServerResponse, id: unknown, result: unknown, status = 200) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id, result }));
  };
  /**
   * Counts `res` in `set` until its connection closes. The client may hang up before the
   * request's body has even been read (its time limit can fire first on a busy machine):
   * that answer closed already and never counts.
   */
  const track = (set: Set<ServerResponse>, res: ServerResponse, onClose = () => {}) => {
    if (closedAnswers.has(res) || res.destroyed) return onClose();
    set.add(res);
    res.once("close", () => {
      set.delete(res);
      onClose();
    });
  };
  const sse = (res: ServerResponse) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    track(open, res, () => streamsClosedAt.push(Date.now() - started));
  };
  const event = (res: ServerResponse, id: unknown, result: unknown) =>
    res.write(`data: ${JSON.stringify({ jsonrpc: "2.0", id, result })}\n\n`);
  /** Writes `chunk` for as long as the client reads, never ending the body. */
  const endless = (res: ServerResponse, chunk: string) => {
    const pump = () => {
      while (!res.destroyed && res.write(chunk)) { /* until the socket pushes back */ }
      if (!res.destroyed) res.once("drain", pump);
    };
    res.on("error", () => {});
    pump();
  };

  /** `drip` and `stall`: headers, then a byte a second (`drip`) or nothing, never the end. */
  const hang = (res: ServerResponse, id: unknown) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.flushHeaders();
    track(hanging, res);
    res.on("error", () => {});
    const body = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"task":{"id":"`;
    let sent = 0;
    const timer = setInterval(() => {
      if (
        mode !== "drip" || sent >= (options.dripBytes ?? 30) || res.destroyed ||
        closedAnswers.has(res)
      ) {
        return clearInterval(timer);
      }
      res.write(body[sent % body.length]);
      sent++;
    }, 1000);
    res.once("close", () => clearInterval(timer));
  };

  const onSend = (res: ServerResponse, id: unknown) => {
    sends++;
    switch (mode) {
      case "drip":
      case "stall":
        return hang(res, id);
      case "quiet-after-reply":
        if (sends === 1) {
          asked = question();
          return json(res, id, wrapTask(task("input-required", { message: asked })));
        }
        return json(res, id, wrapTask(task("working")));
      case "complete":
        return json(res, id, wrapTask(task("completed", { artifacts: [artifact("echo", "ok")] })));
      case "endless-json":
        res.writeHead(200, { "content-type": "application/json" });
        res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"task":{"id":"`);
        return endless(res, "x".repeat(64 * 1024));
      case "huge-content-length":
        res.writeHead(200, {
          "content-type": "application/json",
          "content-length": "10000000000000",
        });
        res.write(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`);
        return; // and never more
      case "control-sequences":
        return json(
          res,
          id,
          wrapTask(task("completed", {
            message: message([{ text: CONTROL_TEXT }]),
            artifacts: [artifact("report", CONTROL_TEXT)],
          })),
        );
      default:
        return json(res, id, wrapTask(task("working")));
    }
  };

  const onStream = (res: ServerResponse, id: unknown) => {
    sse(res);
    switch (mode) {
      case "endless-sse-line":
        res.write("data: ");
        return endless(res, "y".repeat(64 * 1024));
      case "stream-past-deadline": {
        event(res, id, wrapTask(task("working")));
        const timer = setInterval(() => res.write(": still here\n\n"), 200);
        res.on("close", () => clearInterval(timer));
        return;
      }
      case "many-artifacts": {
        event(res, id, wrapTask(task("working")));
        let i = 0;
        const count = options.artifacts ?? 10_000;
        const more = () => {
          while (i < count && !res.destroyed) {
            const ok = event(res, id, artifactUpdate(artifact(`a${i}`, `artifact ${i}`)));
            i++;
            if (!ok) return res.once("drain", more);
          }
          if (!res.destroyed) {
            event(res, id, status("completed"));
            res.end();
          }
        };
        res.on("error", () => {});
        return more();
      }
      case "silent-stream":
        event(res, id, wrapTask(task("working")));
        return; // and then nothing, for as long as the client listens
      case "broken-stream":
        event(res, id, wrapTask(task("working")));
        return void setTimeout(() => res.socket?.destroy(), 20);
      case "chatty-input":
      case "chatty-complete":
        event(res, id, wrapTask(task("submitted")));
        event(res, id, status("working", message([{ text: CHATTY_TEXTS[0] }])));
        event(res, id, status("working", message([{ data: CHATTY_TOOL_CALL }])));
        event(res, id, status("working", message([{ text: CHATTY_TEXTS[1] }])));
        event(res, id, status(mode === "chatty-input" ? "input-required" : "completed"));
        return void res.end();
      default:
        event(res, id, wrapTask(task("completed", { artifacts: [artifact("echo", "ok")] })));
        return void res.end();
    }
  };

  const onGet = (res: ServerResponse, id: unknown) => {
    gets++;
    switch (mode) {
      case "drip":
      case "stall":
        return hang(res, id);
      case "huge-artifact":
        return json(
          res,
          id,
          task("completed", {
            artifacts: [artifact("big", "z".repeat(options.artifactBytes ?? 7.5 * 1024 * 1024))],
          }),
        );
      case "changing-task-id":
        return json(res, id, task("completed", { id: `other-${randomUUID()}` }));
      case "unknown-state":
        return json(res, id, task("paused"));
      case "flaky-polling":
        if (gets <= (options.failures ?? 4)) {
          res.writeHead(503, { "content-type": "text/plain" });
          return void res.end("overloaded, try again");
        }
        return json(res, id, task("completed", { artifacts: [artifact("echo", "recovered")] }));
      case "silent-stream":
        if (gets <= (options.workingChecks ?? 1)) return json(res, id, task("working"));
        return json(
          res,
          id,
          task("completed", {
            artifacts: [artifact("echo", "done after silence")],
          }),
        );
      case "stream-past-deadline":
      case "endless-sse-line":
        return json(res, id, task("working"));
      case "quiet-after-reply":
        return json(res, id, { ...task("completed"), history: asked ? [asked] : [] });
      default:
        return json(res, id, task("completed", { artifacts: [artifact("echo", "ok")] }));
    }
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    res.once("close", () => closedAnswers.add(res));
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    let raw = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      if (raw.length < 1024 * 1024) raw += chunk;
    });
    req.on("end", () => {
      const entry: HostileRequest = {
        method: req.method ?? "GET",
        path,
        headers: req.headers,
        openStreams: open.size,
        at: Date.now() - started,
      };
      requests.push(entry);
      if (req.method === "GET" && path === "/.well-known/agent-card.json") {
        res.writeHead(200, { "content-type": "application/json" });
        return void res.end(JSON.stringify(card()));
      }
      let body: { id?: unknown; method?: unknown; params?: Record<string, unknown> } = {};
      try {
        body = JSON.parse(raw);
      } catch { /* answered below */ }
      if (typeof body.method !== "string") {
        res.writeHead(400).end();
        return;
      }
      entry.rpcMethod = body.method;
      entry.params = body.params;
      switch (body.method) {
        case "SendMessage":
        case "message/send":
          return onSend(res, body.id);
        case "SendStreamingMessage":
        case "message/stream":
          return onStream(res, body.id);
        case "GetTask":
        case "tasks/get":
          return onGet(res, body.id);
        case "CancelTask":
        case "tasks/cancel":
          canceled.push(String(body.params?.id));
          return json(res, body.id, task("canceled", { id: String(body.params?.id) }));
        default:
          res.writeHead(200, { "content-type": "application/json" });
          res.end(JSON.stringify({
            jsonrpc: "2.0",
            id: body.id,
            error: { code: -32601, message: `Method not found: ${body.method}` },
          }));
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    cardUrl: `${base}/.well-known/agent-card.json`,
    rpcUrl: `${base}${HOSTILE_RPC_PATH}`,
    requests,
    canceled,
    rpcMethods: () => requests.flatMap((r) => r.rpcMethod ? [r.rpcMethod] : []),
    streamsClosedAt,
    openBodies: () => hanging.size,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
