/**
 * An example remote agent: a "release notes writer" speaking A2A v1.0 over JSON-RPC,
 * built on @a2a-js/sdk with a plain `node:http` server (no web framework).
 *
 * Send it a brief (one change per line or per sentence) and it answers with a
 * completed task whose artifact is a bullet list. It is deterministic: no model.
 *
 * Run it on its own and import its card into a registry:
 *
 * ```sh
 * deno run -A examples/remote_agent.ts --port 8790
 * # listening http://127.0.0.1:8790/.well-known/agent-card.json
 * ```
 *
 * or start it in-process with {@linkcode startExampleAgent}.
 * @module
 */
import { Buffer } from "node:buffer";
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { parseArgs } from "node:util";
import { AgentCard, Message, Task, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  DefaultRequestHandler,
  defaultServerCallContextBuilder,
  InMemoryTaskStore,
  JsonRpcTransportHandler,
  UnauthenticatedUser,
  validateVersion,
} from "@a2a-js/sdk/server";

const CARD_PATH = "/.well-known/agent-card.json";
const RPC_PATH = "/a2a/jsonrpc";
const MAX_BODY = 1024 * 1024;

/** Options for {@linkcode startExampleAgent}. */
export interface ExampleAgentOptions {
  /** Port on 127.0.0.1; 0 picks a free one. @default 0 */
  port?: number;
}

/** A running example agent. */
export interface ExampleAgent {
  /** The JSON-RPC endpoint. */
  url: string;
  /** Where the Agent Card is served; import this URL into a registry. */
  cardUrl: string;
  close(): Promise<void>;
}

/**
 * Turns a brief into release-note bullets: one bullet per non-empty line, or per
 * sentence when the brief is a single line; each starts with a capital letter and has
 * no trailing period.
 *
 * @param brief Free text describing the changes.
 * @returns Markdown bullet lines.
 *
 * @example
 * ```ts
 * releaseNotes("fixed login. added dark mode");
 * // "## Release notes\n\n- Fixed login\n- Added dark mode"
 * ```
 */
export function releaseNotes(brief: string): string {
  const lines = brief.split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
  const items = lines.length > 1 ? lines : (lines[0] ?? "").split(/(?<=[.!?;])\s+/);
  const bullets = items
    .map((item) => item.replace(/^[-*•\d.)\s]+/, "").replace(/[.;\s]+$/, "").trim())
    .filter(Boolean)
    .map((item) => `- ${item[0].toUpperCase()}${item.slice(1)}`);
  if (bullets.length === 0) return "## Release notes\n\n- No changes were described";
  return `## Release notes\n\n${bullets.join("\n")}`;
}

/**
 * Starts the example agent on 127.0.0.1.
 *
 * @param options The port to listen on.
 * @returns Its endpoint, card URL and a `close()`.
 */
export async function startExampleAgent(options: ExampleAgentOptions = {}): Promise<ExampleAgent> {
  // The card names the endpoint, so the port must be known before the card exists.
  const ready: { endpoint?: Endpoint } = {};
  const server = createServer((req, res) => {
    serve(req, res, ready.endpoint).catch((err) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: String(err) }));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  const json = exampleCard(`${base}${RPC_PATH}`);
  const card = AgentCard.fromJSON(json);
  ready.endpoint = {
    cardJson: JSON.stringify(json),
    card,
    handler: new JsonRpcTransportHandler(
      new DefaultRequestHandler(card, new InMemoryTaskStore(), executor),
    ),
  };
  return {
    url: `${base}${RPC_PATH}`,
    cardUrl: `${base}${CARD_PATH}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The card in ProtoJSON, the form A2A v1.0 clients read. */
function exampleCard(rpcUrl: string): Record<string, unknown> {
  return {
    name: "Release Notes Writer",
    description:
      "Turns a short brief of changes into release-note bullet points. Deterministic, no model.",
    version: "1.0.0",
    supportedInterfaces: [{ url: rpcUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    provider: { organization: "Observal examples", url: "https://observal.example" },
    capabilities: { streaming: true, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/markdown"],
    skills: [{
      id: "release-notes",
      name: "Release notes",
      description: "Writes release-note bullets from a list of changes.",
      tags: ["release-notes", "changelog", "docs"],
      examples: ["Write release notes: fixed login; added dark mode", "Summarise these changes"],
    }],
  };
}

const executor: AgentExecutor = {
  execute: (ctx, bus) => {
    const { taskId, contextId } = ctx;
    const brief = ctx.userMessage.parts
      .map((p) => p.content?.$case === "text" ? p.content.value : "")
      .join("\n");
    const now = () => new Date().toISOString();
    bus.publish(AgentEvent.task(
      ctx.task ?? Task.fromJSON({
        id: taskId,
        contextId,
        status: { state: "TASK_STATE_WORKING", timestamp: now() },
        history: [Message.toJSON(ctx.userMessage)],
      }),
    ));
    const notes = Message.fromJSON({
      messageId: randomUUID(),
      role: "ROLE_AGENT",
      parts: [{ text: releaseNotes(brief), mediaType: "text/markdown" }],
    });
    bus.publish(AgentEvent.artifactUpdate({
      taskId,
      contextId,
      artifact: {
        artifactId: "release-notes",
        name: "release-notes.md",
        description: "Release notes written from the brief",
        parts: notes.parts,
        metadata: undefined,
        extensions: [],
      },
      append: false,
      lastChunk: true,
      metadata: undefined,
    }));
    bus.publish(AgentEvent.statusUpdate({
      taskId,
      contextId,
      status: { state: TaskState.TASK_STATE_COMPLETED, message: undefined, timestamp: now() },
      metadata: undefined,
    }));
    bus.finished();
    return Promise.resolve();
  },
  // Work finishes synchronously, so there is never anything left to cancel.
  cancelTask: () => Promise.resolve(),
};

/** What the server needs once the port, and so the card, is known. */
interface Endpoint {
  cardJson: string;
  card: AgentCard;
  handler: JsonRpcTransportHandler;
}

async function serve(
  req: IncomingMessage,
  res: ServerResponse,
  endpoint: Endpoint | undefined,
): Promise<void> {
  const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
  if (endpoint && req.method === "GET" && path === CARD_PATH) {
    res.writeHead(200, { "content-type": "application/json" }).end(endpoint.cardJson);
    return;
  }
  if (!endpoint || req.method !== "POST" || path !== RPC_PATH) {
    res.writeHead(404, { "content-type": "application/json" })
      .end(JSON.stringify({ error: "Not found" }));
    return;
  }
  const body = await readBody(req);
  const header = req.headers["a2a-version"];
  const context = defaultServerCallContextBuilder({
    extensions: undefined,
    user: new UnauthenticatedUser(),
    headers: req.headers,
    requestedVersion: typeof header === "string" ? header : undefined,
  });
  try {
    // The framework-free handler does not check A2A-Version itself.
    validateVersion(context.requestedVersion ?? "0.3", endpoint.card, "JSONRPC");
  } catch (err) {
    const error = JsonRpcTransportHandler.mapToJSONRPCError(err);
    res.writeHead(200, { "content-type": "application/json" })
      .end(JSON.stringify({ jsonrpc: "2.0", id: requestId(body), error }));
    return;
  }
  const result = await endpoint.handler.handle(body, context);
  if (Symbol.asyncIterator in result) {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for await (const event of result) res.write(`data: ${JSON.stringify(event)}\n\n`);
    res.end();
    return;
  }
  res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(result));
}

function requestId(body: string): unknown {
  try {
    return (JSON.parse(body) as { id?: unknown }).id ?? null;
  } catch {
    return null;
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error("Request body is larger than 1 MiB");
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { port: { type: "string", default: "0" } },
  });
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    process.stderr.write(`--port must be a number from 0 to 65535, got "${values.port}"\n`);
    process.exit(2);
  }
  const agent = await startExampleAgent({ port });
  process.stdout.write(`listening ${agent.cardUrl}\n`);
  const stop = () => agent.close().then(() => process.exit(0));
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
}
