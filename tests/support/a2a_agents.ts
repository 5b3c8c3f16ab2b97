/**
 * Real A2A agents for tests: an @a2a-js/sdk 1.3.0 server speaking A2A v1.0 and an
 * @a2a-js/sdk 0.3.14 server speaking v0.3, both on express 5, bound to 127.0.0.1 on a
 * free port. Each records every HTTP request it receives, can demand a credential, can
 * serve a signed or altered card, and runs one scripted behaviour:
 *
 * - `complete`: echoes the text into an artifact (`echo:<text>`) and completes;
 * - `input`: asks a question (INPUT_REQUIRED), then completes with both texts
 *   (`echo:<first> + <reply>`);
 * - `fail`: fails with a status message;
 * - `slow`: stays WORKING until canceled (cancellations are recorded in `canceled`);
 * - `message`: answers with a direct Message (`echo:<text>`), no task.
 * @module
 */
import { randomUUID } from "node:crypto";
import {
  createServer,
  type IncomingHttpHeaders,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import {
  AgentCard as V1AgentCard,
  generateAgentCardSignature,
  Message as V1Message,
  Task as V1Task,
  TaskState,
} from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor as V1AgentExecutor,
  DefaultRequestHandler as V1RequestHandler,
  type ExecutionEventBus as V1EventBus,
  InMemoryTaskStore as V1TaskStore,
  type RequestContext as V1RequestContext,
} from "@a2a-js/sdk/server";
import {
  agentCardHandler as v1AgentCardHandler,
  jsonRpcHandler as v1JsonRpcHandler,
  UserBuilder,
} from "@a2a-js/sdk/server/express";
import type { AgentCard as V03AgentCard, Message as V03Message } from "a2a-sdk-v03";
import {
  type AgentExecutor as V03AgentExecutor,
  DefaultRequestHandler as V03RequestHandler,
  type ExecutionEventBus as V03EventBus,
  InMemoryTaskStore as V03TaskStore,
  type RequestContext as V03RequestContext,
} from "a2a-sdk-v03/server";
import {
  agentCardHandler as v03AgentCardHandler,
  jsonRpcHandler as v03JsonRpcHandler,
  UserBuilder as V03UserBuilder,
} from "a2a-sdk-v03/server/express";
import type { JWK } from "jose";

/** The path every test agent serves its card at. */
export const AGENT_CARD_PATH = "/.well-known/agent-card.json";
/** The path of the JSON-RPC endpoint. */
export const JSONRPC_PATH = "/a2a/jsonrpc";

/** What a test agent does with a message. */
export type AgentBehaviour = "complete" | "input" | "fail" | "slow" | "message";

/**
 * The credential a test agent demands on its JSON-RPC endpoint (the card stays public).
 * With `decoy`, the card also declares the other kind of scheme, listed first, while its
 * security requirement names only the one demanded: a client must follow the requirement.
 */
export type TestSecurityScheme =
  | { type: "bearer"; token: string; decoy?: boolean }
  | { type: "apiKey"; name: string; token: string; decoy?: boolean };

/** The header name of the decoy API-key scheme. */
export const DECOY_API_KEY_HEADER = "X-API-Key";

/** A skill to advertise. */
export interface TestSkill {
  id: string;
  name: string;
  description?: string;
  tags?: string[];
  examples?: string[];
}

/** Signs the served v1.0 card with @a2a-js/sdk's `generateAgentCardSignature`. */
export interface SignWith {
  privateKey: Parameters<typeof generateAgentCardSignature>[0];
  kid: string;
  /** @default "ES256" */
  alg?: string;
  jku?: string;
}

/** Options for {@linkcode startV1Agent} and {@linkcode startV03Agent}. */
export interface TestAgentOptions {
  /** @default "Echo Agent" */
  name?: string;
  /** @default "Echoes what it is told. Useful in tests." */
  description?: string;
  /** @default "1.0.0" */
  version?: string;
  /** @default one `echo` skill */
  skills?: TestSkill[];
  /** Advertise and serve streaming. @default false */
  streaming?: boolean;
  securitySchemes?: TestSecurityScheme;
  /** @default "complete" */
  behaviour?: AgentBehaviour;
  /** v1.0 only: serve a signed card. */
  signWith?: SignWith;
  /** Changes the served card (after signing); see also `setCardOverride`. */
  cardOverride?: (card: Record<string, unknown>) => unknown;
  /**
   * Serve the card through the SDK's own `agentCardHandler`, as a real agent built on it
   * does: @a2a-js/sdk 1.3.0 then writes its ts-proto objects as they are, so oneofs come
   * out as `{scheme: {$case, value}}`; 0.3.14 writes the card as typed. `card` is then
   * what the handler serves; overrides do not apply.
   */
  sdkCard?: boolean;
}

/** One HTTP request an agent received. */
export interface RecordedRequest {
  method: string;
  path: string;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** The JSON-RPC method, when the body was a JSON-RPC request. */
  rpcMethod?: string;
  body?: unknown;
  /** The response status, once sent. */
  status?: number;
}

/** A running test agent. */
export interface TestAgent {
  /** Base URL, `http://127.0.0.1:<port>`. */
  url: string;
  /** The JSON-RPC endpoint listed in the card. */
  rpcUrl: string;
  cardUrl: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Ids of tasks whose cancellation reached the executor. */
  canceled: string[];
  /** The card as served before any override. */
  card: Record<string, unknown>;
  /** Replaces (or with `undefined` removes) the card override from now on. */
  setCardOverride(fn: ((card: Record<string, unknown>) => unknown) | undefined): void;
  /**
   * The `input` behaviour keeps every answered task working, not completed, until the
   * returned function is called: a test can then act while the reply is surely in flight.
   */
  holdAnswers(): () => void;
  close(): Promise<void>;
}

const DEFAULT_SKILL: TestSkill = {
  id: "echo",
  name: "Echo",
  description: "Repeats the message back as an artifact.",
  tags: ["echo", "test"],
  examples: ["Echo hello", "Repeat this sentence"],
};

/** The question the `input` behaviour asks. */
export const INPUT_QUESTION = "Which audience is this for?";
/** The status text of the `fail` behaviour. */
export const FAILURE_TEXT = "The echo agent failed on purpose.";

/** Starts an A2A v1.0 agent (@a2a-js/sdk 1.3.0). */
export async function startV1Agent(options: TestAgentOptions = {}): Promise<TestAgent> {
  const state = new AgentState(options);
  const app = express();
  const { server, base } = await listen(app);
  const rpcUrl = `${base}${JSONRPC_PATH}`;
  let card: Record<string, unknown> = {
    name: options.name ?? "Echo Agent",
    description: options.description ?? "Echoes what it is told. Useful in tests.",
    version: options.version ?? "1.0.0",
    supportedInterfaces: [{ url: rpcUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    provider: { organization: "Observal Tests", url: "https://observal.example" },
    capabilities: { streaming: options.streaming ?? false, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: options.skills ?? [DEFAULT_SKILL],
    ...v1Security(options.securitySchemes),
  };
  if (options.signWith) {
    const { privateKey, kid, alg = "ES256", jku } = options.signWith;
    const header = { alg, kid, typ: "JOSE", ...(jku ? { jku } : {}) };
    const sign = generateAgentCardSignature(privateKey, header);
    card = await sign(card as unknown as V1AgentCard) as unknown as Record<string, unknown>;
  }
  const typed = V1AgentCard.fromJSON(card);
  const handler = new V1RequestHandler(typed, new V1TaskStore(), v1Executor(state));
  if (options.sdkCard) {
    // Exactly what the SDK's card handler writes: JSON.stringify of the ts-proto object.
    card = JSON.parse(JSON.stringify(typed));
    app.use(
      AGENT_CARD_PATH,
      v1AgentCardHandler({ agentCardProvider: () => Promise.resolve(typed) }),
    );
  }
  mount(app, state, card, options.securitySchemes, !options.sdkCard);
  app.use(
    JSONRPC_PATH,
    v1JsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }),
  );
  return state.handle(server, base, rpcUrl, card);
}

/** Starts an A2A v0.3 agent (@a2a-js/sdk 0.3.14). */
export async function startV03Agent(options: TestAgentOptions = {}): Promise<TestAgent> {
  if (options.signWith) throw new Error("startV03Agent() does not sign cards");
  const state = new AgentState(options);
  const app = express();
  const { server, base } = await listen(app);
  const rpcUrl = `${base}${JSONRPC_PATH}`;
  const skills = (options.skills ?? [DEFAULT_SKILL]).map((s) => ({
    ...s,
    description: s.description ?? s.name,
    tags: s.tags ?? [],
  }));
  const card: V03AgentCard = {
    protocolVersion: "0.3.0",
    name: options.name ?? "Echo Agent",
    description: options.description ?? "Echoes what it is told. Useful in tests.",
    version: options.version ?? "1.0.0",
    url: rpcUrl,
    preferredTransport: "JSONRPC",
    provider: { organization: "Observal Tests", url: "https://observal.example" },
    capabilities: { streaming: options.streaming ?? false, pushNotifications: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills,
    ...v03Security(options.securitySchemes),
  };
  const handler = new V03RequestHandler(card, new V03TaskStore(), v03Executor(state));
  const served = structuredClone(card) as unknown as Record<string, unknown>;
  if (options.sdkCard) {
    app.use(
      AGENT_CARD_PATH,
      v03AgentCardHandler({ agentCardProvider: () => Promise.resolve(card) }),
    );
  }
  mount(app, state, served, options.securitySchemes, !options.sdkCard);
  app.use(
    JSONRPC_PATH,
    v03JsonRpcHandler({ requestHandler: handler, userBuilder: V03UserBuilder.noAuthentication }),
  );
  return state.handle(server, base, rpcUrl, served);
}

/** A server handing out one JWK Set at `/jwks.json`. */
export interface JwksServer {
  /** The JWK Set URL (use it as `jku`). */
  url: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** Serves `jwks` at `http://127.0.0.1:<port>/jwks.json`. */
export async function startJwksServer(jwks: { keys: JWK[] }): Promise<JwksServer> {
  const requests: RecordedRequest[] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://127.0.0.1").pathname;
    requests.push({ method: req.method ?? "GET", path, headers: flatHeaders(req.headers) });
    req.resume();
    if (path !== "/jwks.json") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(jwks));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/jwks.json`,
    requests,
    close: () => closeServer(server),
  };
}

// ---------------------------------------------------------------------------------------
// Shared plumbing

// express ships no types here, so the few members used are spelled out.
type App = ReturnType<typeof express>;
interface Request {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body?: unknown;
  header(name: string): string | undefined;
}
interface Response extends ServerResponse {
  status(code: number): Response;
  set(name: string, value: string): Response;
  type(mediaType: string): Response;
  json(body: unknown): void;
  send(body: string): void;
}
type NextFunction = () => void;

/** Per-agent mutable state: recorded requests, follow-up memory, pending slow tasks. */
class AgentState {
  readonly requests: RecordedRequest[] = [];
  readonly canceled: string[] = [];
  readonly firstTexts = new Map<string, string>();
  readonly closing: Array<() => void> = [];
  readonly waiters = new Map<string, () => void>();
  /** While set, an answered `input` task waits for it before it completes. */
  answersHeld: Promise<void> | undefined;
  override: ((card: Record<string, unknown>) => unknown) | undefined;
  readonly behaviour: AgentBehaviour;

  constructor(options: TestAgentOptions) {
    this.behaviour = options.behaviour ?? "complete";
    this.override = options.cardOverride;
  }

  /** Resolves when the task is canceled or the agent closes. */
  waitForCancel(taskId: string): Promise<void> {
    return new Promise((resolve) => this.waiters.set(taskId, resolve));
  }

  release(taskId: string): void {
    this.waiters.get(taskId)?.();
    this.waiters.delete(taskId);
  }

  handle(server: Server, base: string, rpcUrl: string, card: Record<string, unknown>): TestAgent {
    return {
      url: base,
      rpcUrl,
      cardUrl: `${base}${AGENT_CARD_PATH}`,
      requests: this.requests,
      canceled: this.canceled,
      card,
      setCardOverride: (fn) => {
        this.override = fn;
      },
      holdAnswers: () => {
        let release!: () => void;
        this.answersHeld = new Promise((resolve) => release = resolve);
        this.closing.push(release);
        return () => {
          this.answersHeld = undefined;
          release();
        };
      },
      close: async () => {
        for (const id of [...this.waiters.keys()]) this.release(id);
        for (const release of this.closing) release();
        await closeServer(server);
      },
    };
  }
}

async function listen(app: App): Promise<{ server: Server; base: string }> {
  const server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { server, base: `http://127.0.0.1:${port}` };
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Recording, the card route (unless the SDK serves the card) and the credential check,
 * ahead of the SDK's handler.
 */
function mount(
  app: App,
  state: AgentState,
  card: Record<string, unknown>,
  security: TestSecurityScheme | undefined,
  serveCard = true,
): void {
  // Parsing here lets us record the JSON-RPC method; the SDK's own parser then skips.
  app.use(express.json({ limit: "1mb" }));
  app.use((req: Request, res: Response, next: NextFunction) => {
    const body: unknown = req.body;
    const entry: RecordedRequest = {
      method: req.method,
      path: req.path,
      headers: flatHeaders(req.headers),
    };
    if (
      body !== undefined &&
      !(typeof body === "object" && body !== null && !Object.keys(body).length)
    ) {
      entry.body = body;
    }
    const rpc = (body as { method?: unknown } | undefined)?.method;
    if (typeof rpc === "string") entry.rpcMethod = rpc;
    state.requests.push(entry);
    res.on("finish", () => {
      entry.status = res.statusCode;
    });
    next();
  });
  if (serveCard) {
    app.get(AGENT_CARD_PATH, (_req: Request, res: Response) => {
      const served = state.override ? state.override(structuredClone(card)) : card;
      res.type("application/json").send(JSON.stringify(served));
    });
  }
  if (security) {
    app.use(JSONRPC_PATH, (req: Request, res: Response, next: NextFunction) => {
      const given = security.type === "bearer"
        ? req.header("authorization")
        : req.header(security.name);
      const expected = security.type === "bearer" ? `Bearer ${security.token}` : security.token;
      if (given === expected) return next();
      res.status(401)
        .set("WWW-Authenticate", security.type === "bearer" ? "Bearer" : `ApiKey ${security.name}`)
        .json({ error: "A valid credential is required" });
    });
  }
}

function flatHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) {
      out[name.toLowerCase()] = Array.isArray(value) ? value.join(", ") : value;
    }
  }
  return out;
}

function v1Security(security: TestSecurityScheme | undefined): Record<string, unknown> {
  if (!security) return {};
  const bearer = { httpAuthSecurityScheme: { scheme: "Bearer" } };
  if (security.type === "bearer") {
    const decoy = { apiKeySecurityScheme: { location: "header", name: DECOY_API_KEY_HEADER } };
    return {
      securitySchemes: security.decoy ? { apiKey: decoy, bearer } : { bearer },
      securityRequirements: [{ schemes: { bearer: {} } }],
    };
  }
  const apiKey = { apiKeySecurityScheme: { location: "header", name: security.name } };
  return {
    securitySchemes: security.decoy ? { bearer, apiKey } : { apiKey },
    securityRequirements: [{ schemes: { apiKey: {} } }],
  };
}

function v03Security(security: TestSecurityScheme | undefined): Partial<V03AgentCard> {
  if (!security) return {};
  const bearer = { type: "http", scheme: "bearer" } as const;
  if (security.type === "bearer") {
    const decoy = { type: "apiKey", in: "header", name: DECOY_API_KEY_HEADER } as const;
    return {
      securitySchemes: security.decoy ? { apiKey: decoy, bearer } : { bearer },
      security: [{ bearer: [] }],
    };
  }
  const apiKey = { type: "apiKey", in: "header", name: security.name } as const;
  return {
    securitySchemes: security.decoy ? { bearer, apiKey } : { apiKey },
    security: [{ apiKey: [] }],
  };
}

// ---------------------------------------------------------------------------------------
// Behaviours, written once against a small emitter and mapped to each SDK version

type Step =
  | { kind: "task" }
  | { kind: "status"; state: "working" | "input" | "completed" | "failed"; text?: string }
  | { kind: "artifact"; text: string }
  | { kind: "message"; text: string };

/** Plays the agent's behaviour for one turn; returns after the last step. */
async function play(
  state: AgentState,
  turn: { taskId: string; text: string; resuming: boolean },
  emit: (step: Step) => void,
): Promise<void> {
  if (state.behaviour === "message") {
    emit({ kind: "message", text: `echo:${turn.text}` });
    return;
  }
  emit({ kind: "task" });
  emit({ kind: "status", state: "working" });
  switch (state.behaviour) {
    case "complete":
      emit({ kind: "artifact", text: `echo:${turn.text}` });
      emit({ kind: "status", state: "completed" });
      return;
    case "input": {
      const first = state.firstTexts.get(turn.taskId);
      if (!turn.resuming || first === undefined) {
        state.firstTexts.set(turn.taskId, turn.text);
        emit({ kind: "status", state: "input", text: INPUT_QUESTION });
        return;
      }
      await state.answersHeld;
      emit({ kind: "artifact", text: `echo:${first} + ${turn.text}` });
      emit({ kind: "status", state: "completed" });
      return;
    }
    case "fail":
      emit({ kind: "status", state: "failed", text: FAILURE_TEXT });
      return;
    case "slow":
      await state.waitForCancel(turn.taskId);
      return;
  }
}

const V1_STATES = {
  working: TaskState.TASK_STATE_WORKING,
  input: TaskState.TASK_STATE_INPUT_REQUIRED,
  completed: TaskState.TASK_STATE_COMPLETED,
  failed: TaskState.TASK_STATE_FAILED,
} as const;

function v1Text(message: V1Message | undefined): string {
  return (message?.parts ?? []).map((p) => p.content?.$case === "text" ? p.content.value : "")
    .join("");
}

function v1AgentMessage(text: string, taskId: string, contextId: string): V1Message {
  return V1Message.fromJSON({
    messageId: randomUUID(),
    role: "ROLE_AGENT",
    parts: [{ text, mediaType: "text/plain" }],
    ...(taskId ? { taskId } : {}),
    contextId,
  });
}

function v1Executor(state: AgentState): V1AgentExecutor {
  const contexts = new Map<string, string>();
  return {
    execute: async (ctx: V1RequestContext, bus: V1EventBus) => {
      const { taskId, contextId } = ctx;
      contexts.set(taskId, contextId);
      await play(
        state,
        { taskId, text: v1Text(ctx.userMessage), resuming: ctx.task !== undefined },
        (step) => {
          const now = new Date().toISOString();
          switch (step.kind) {
            case "message":
              bus.publish(AgentEvent.message(v1AgentMessage(step.text, "", contextId)));
              break;
            case "task":
              bus.publish(AgentEvent.task(
                ctx.task ?? V1Task.fromJSON({
                  id: taskId,
                  contextId,
                  status: { state: "TASK_STATE_SUBMITTED", timestamp: now },
                  history: [V1Message.toJSON(ctx.userMessage)],
                }),
              ));
              break;
            case "status":
              bus.publish(AgentEvent.statusUpdate({
                taskId,
                contextId,
                status: {
                  state: V1_STATES[step.state],
                  message: step.text ? v1AgentMessage(step.text, taskId, contextId) : undefined,
                  timestamp: now,
                },
                metadata: undefined,
              }));
              break;
            case "artifact":
              bus.publish(AgentEvent.artifactUpdate({
                taskId,
                contextId,
                artifact: {
                  artifactId: "result",
                  name: "echo",
                  description: "",
                  parts: v1AgentMessage(step.text, taskId, contextId).parts,
                  metadata: undefined,
                  extensions: [],
                },
                append: false,
                lastChunk: true,
                metadata: undefined,
              }));
              break;
          }
        },
      );
      bus.finished();
    },
    cancelTask: (taskId: string, bus: V1EventBus) => {
      state.canceled.push(taskId);
      bus.publish(AgentEvent.statusUpdate({
        taskId,
        contextId: contexts.get(taskId) ?? "",
        status: {
          state: TaskState.TASK_STATE_CANCELED,
          message: undefined,
          timestamp: new Date().toISOString(),
        },
        metadata: undefined,
      }));
      bus.finished();
      state.release(taskId);
      return Promise.resolve();
    },
  };
}

const V03_STATES = {
  working: "working",
  input: "input-required",
  completed: "completed",
  failed: "failed",
} as const;

function v03Text(message: V03Message): string {
  return message.parts.map((p) => p.kind === "text" ? p.text : "").join("");
}

function v03AgentMessage(text: string, taskId: string | undefined, contextId: string): V03Message {
  return {
    kind: "message",
    messageId: randomUUID(),
    role: "agent",
    parts: [{ kind: "text", text }],
    ...(taskId ? { taskId } : {}),
    contextId,
  };
}

function v03Executor(state: AgentState): V03AgentExecutor {
  const contexts = new Map<string, string>();
  return {
    execute: async (ctx: V03RequestContext, bus: V03EventBus) => {
      const { taskId, contextId } = ctx;
      contexts.set(taskId, contextId);
      await play(
        state,
        { taskId, text: v03Text(ctx.userMessage), resuming: ctx.task !== undefined },
        (step) => {
          const timestamp = new Date().toISOString();
          switch (step.kind) {
            case "message":
              bus.publish(v03AgentMessage(step.text, undefined, contextId));
              break;
            case "task":
              if (!ctx.task) {
                bus.publish({
                  kind: "task",
                  id: taskId,
                  contextId,
                  status: { state: "submitted", timestamp },
                  history: [ctx.userMessage],
                });
              }
              break;
            case "status": {
              const final = step.state !== "working";
              bus.publish({
                kind: "status-update",
                taskId,
                contextId,
                status: {
                  state: V03_STATES[step.state],
                  timestamp,
                  ...(step.text ? { message: v03AgentMessage(step.text, taskId, contextId) } : {}),
                },
                final,
              });
              break;
            }
            case "artifact":
              bus.publish({
                kind: "artifact-update",
                taskId,
                contextId,
                artifact: {
                  artifactId: "result",
                  name: "echo",
                  parts: [{ kind: "text", text: step.text }],
                },
                lastChunk: true,
              });
              break;
          }
        },
      );
      bus.finished();
    },
    cancelTask: (taskId: string, bus: V03EventBus) => {
      state.canceled.push(taskId);
      bus.publish({
        kind: "status-update",
        taskId,
        contextId: contexts.get(taskId) ?? "",
        status: { state: "canceled", timestamp: new Date().toISOString() },
        final: true,
      });
      bus.finished();
      state.release(taskId);
      return Promise.resolve();
    },
  };
}
