/**
 * The HTTP face of a served Agent: its card at `/.well-known/agent-card.json` and JSON-RPC
 * at `/`, both protocol versions on one endpoint as @a2a-js/sdk's dual-version servers do
 * it (a request naming `A2A-Version: 1.0` gets v1.0, one naming none or 0.3 gets v0.3).
 * The SDK's request handler keeps the A2A tasks and their event streams; the executor runs
 * each as a delegated task.
 * @module
 */
import { Hono } from "hono";
import { z } from "zod";
import { bodyLimit } from "hono/body-limit";
import { streamSSE } from "hono/streaming";
import { AgentCard as SdkAgentCard } from "@a2a-js/sdk";
import {
  type AgentExecutor,
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  ServerCallContext,
  validateVersion,
} from "@a2a-js/sdk/server";
import { LegacyJsonRpcTransportHandler } from "@a2a-js/sdk/compat/v0_3/server";
import { UnsupportedOperationError } from "@a2a-js/sdk/errors";
import { MAX_REPO_STATE_BYTES, REPO_STATE_EXTENSION } from "../a2a/mod.ts";
import type { Authorize, Principal } from "./auth.ts";
import { hybridCard } from "./card.ts";
import type { CardSigner } from "./card_signing.ts";
import { type PrivateHosts, PushConfigs } from "./push_configs.ts";
import { type DeliveryOptions, WebhookSender } from "./push_delivery.ts";
import { TaskMemory } from "./task_memory.ts";
import { heldAnswer, heldSend, type RpcRequest } from "./held_send.ts";

/** Largest JSON-RPC request body taken, in bytes. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

/**
 * Largest request that activates the repository-state extension: the state (base64 makes
 * it a third larger) and an ordinary request besides.
 */
export const MAX_STATE_REQUEST_BYTES = Math.ceil(MAX_REPO_STATE_BYTES / 3) * 4 + MAX_REQUEST_BYTES;

const CARD_PATH = "/.well-known/agent-card.json";

/** A busy server's JSON-RPC error (the implementation-defined range). */
const SERVER_BUSY = -32000;

/** JSON-RPC's own error codes (the spec's, and A2A's). */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

const INVALID_PARAMS = -32602;

type JsonRpcError = { code: number; message: string; data?: unknown };

/** A JSON-RPC request's id: a string, a number or null (absent for a notification). */
const RequestId = z.union([z.string(), z.number(), z.null()]).optional();

/**
 * What the SDK's handler lets through but the spec refuses with -32602 (A2A v1.0 §3.1.4):
 * a negative `historyLength`, a `statusTimestampAfter` that is not a timestamp, a page
 * size out of range. Only the fields named are checked; the handler checks the rest.
 */
const PARAM_CHECKS: Record<string, z.ZodType> = {
  ListTasks: z.looseObject({
    historyLength: z.number().int().min(0).optional(),
    pageSize: z.number().int().min(1).max(100).optional(),
    statusTimestampAfter: z.iso.datetime({ offset: true }).optional(),
  }),
  GetTask: z.looseObject({ historyLength: z.number().int().min(0).optional() }),
  "tasks/get": z.looseObject({ historyLength: z.number().int().min(0).optional() }),
};

/** Why `params` of `method` are refused, or undefined when they pass. */
function paramsProblem(method: string, params: unknown): string | undefined {
  const check = PARAM_CHECKS[method];
  if (!check || params === undefined) return undefined;
  const parsed = check.safeParse(params);
  if (parsed.success) return undefined;
  const issue = parsed.error.issues[0];
  return `params.${issue.path.join(".") || "(all)"}: ${issue.message}`;
}

/** The methods that send a message, in both protocol versions. */
const SENDS = new Set(["SendMessage", "SendStreamingMessage", "message/send", "message/stream"]);

/** Whether a send's message has text parts only, and no repository state in its metadata. */
function textOnly(params: unknown): boolean {
  const message = isRecord(params) ? params.message : undefined;
  if (!isRecord(message) || !Array.isArray(message.parts)) return false;
  if (isRecord(message.metadata) && REPO_STATE_EXTENSION in message.metadata) return false;
  return message.parts.every((p) => isRecord(p) && typeof p.text === "string");
}

/** A string field of a send's message (`params.message[key]`), or undefined. */
function messageField(params: unknown, key: "taskId" | "messageId"): string | undefined {
  const message = isRecord(params) ? params.message : undefined;
  const value = isRecord(message) ? message[key] : undefined;
  return typeof value === "string" && value !== "" ? value : undefined;
}

function rpcError(id: unknown, error: JsonRpcError) {
  return { jsonrpc: "2.0", id: id ?? null, error };
}

/** The count of requests with a repository state, shared by a server's Agents. */
export interface StateRequests {
  taken: number;
  readonly max: number;
}

/** What the app serves. */
export interface AgentAppOptions {
  /** The v1.0 card. */
  card: Record<string, unknown>;
  /** The JSON-RPC endpoint, as the card lists it. */
  rpcUrl: string;
  executor: AgentExecutor & {
    /**
     * Admits a message to follow this running task: a function to call if the message
     * never reaches the executor, or why it cannot.
     */
    admitFollowUp?(taskId: string, messageId: string): (() => void) | string;
    /** Whether another run of the task is still to publish on its event bus. */
    keepsBus?(taskId: string): boolean;
  };
  /**
   * When set, decides each JSON-RPC request (its bearer credential and budget); the card
   * stays public. Each caller's tasks are its own.
   */
  authorize?: Authorize;
  /** Told of each message accepted, naming who sent it. */
  log?: (line: string) => void;
  /**
   * Requests carrying a repository state being taken now, and how many may be at once
   * (each holds tens of MiB until its answer is sent; one more is refused as busy).
   * Shared by the Agents of one server.
   */
  stateRequests: StateRequests;
  /** How long an ended task is remembered, in ms. @default TASK_TTL_MS (a day) */
  taskTtlMs?: number;
  /**
   * How long a blocking SendMessage waits for its task to end before it answers with the
   * task as it stands, in ms (see held_send.ts). @default no bound
   */
  maxWaitMs?: number;
  /** Push notifications: which private webhook hosts are allowed now, and delivery limits. */
  push?: { privateHosts: PrivateHosts } & DeliveryOptions;
  /** Signs each form of the card as served; its key set is published at its `jku`. */
  signer?: CardSigner;
}

/** What the app's handlers share: who made the request, once authorized. */
export type AgentAppEnv = { Variables: { principal?: Principal } };

/**
 * The Hono app for one served Agent.
 *
 * @param options the card, its endpoint and the executor that runs messages
 * @returns the app (its `fetch` serves HTTP)
 */
export function createAgentApp(options: AgentAppOptions): Hono<AgentAppEnv> {
  const typed = SdkAgentCard.fromJSON(options.card);
  // Without a say on private hosts, none is allowed: a private webhook is refused.
  const pushConfigs = new PushConfigs(options.push?.privateHosts ?? (() => Promise.resolve([])));
  const tasks = new TaskMemory({
    ttlMs: options.taskTtlMs,
    onForget: (id, context) => pushConfigs.forget(id, context),
  });
  const executor = options.executor;
  const handler = new DefaultRequestHandler(
    typed,
    tasks,
    executor,
    // A task whose run hands it on to a message that followed keeps its bus for that run.
    new class extends DefaultExecutionEventBusManager {
      settleByTaskId(taskId: string): boolean {
        return executor.keepsBus?.(taskId) ?? false;
      }
    }(),
    pushConfigs,
    new WebhookSender(pushConfigs, options.push),
  );
  const v1 = new JsonRpcTransportHandler(handler);
  const v03 = new LegacyJsonRpcTransportHandler(handler);
  const app = new Hono<AgentAppEnv>();
  const plainLimit = limitBody(MAX_REQUEST_BYTES, "");
  const stateLimit = limitBody(MAX_STATE_REQUEST_BYTES, " with its repository state");
  const states = options.stateRequests;

  app.get(CARD_PATH, async (c) => {
    const version = c.req.header("a2a-version");
    const body = version && !version.startsWith("0.")
      ? options.card
      : hybridCard(options.card, options.rpcUrl);
    c.header("Vary", "A2A-Version");
    c.header("Cache-Control", "no-cache");
    return c.json(options.signer ? await options.signer.sign(body) : body);
  });
  if (options.signer) {
    const { jku, jwks } = options.signer;
    app.get(new URL(jku).pathname, (c) => c.json(jwks));
  }

  app.post(
    "/",
    async (c, next) => {
      if (!options.authorize) return await next();
      const verdict = await options.authorize(c.req.raw, c.env);
      if ("principal" in verdict) {
        c.set("principal", verdict.principal);
        return await next();
      }
      if (verdict.status === 401) c.header("WWW-Authenticate", 'Bearer realm="observal"');
      if (verdict.retryAfterSeconds) c.header("Retry-After", String(verdict.retryAfterSeconds));
      return c.json(
        rpcError(null, { code: verdict.code, message: verdict.message }),
        verdict.status,
      );
    },
    async (c, next) => {
      if (!activates(c.req.header("a2a-extensions") ?? c.req.header("x-a2a-extensions"))) {
        return await plainLimit(c, next);
      }
      if (states.taken >= states.max) {
        c.header("Retry-After", "10");
        return c.json(
          rpcError(null, {
            code: SERVER_BUSY,
            message: `${states.taken} requests with a repository state are being taken; ` +
              "try again shortly",
          }),
          503,
        );
      }
      states.taken++;
      try {
        return await stateLimit(c, next);
      } finally {
        states.taken--;
      }
    },
    async (c) => {
      let body: unknown;
      try {
        body = JSON.parse(await c.req.text());
      } catch {
        return c.json(rpcError(null, { code: PARSE_ERROR, message: "The body is not JSON" }));
      }
      const validId = isRecord(body) && RequestId.safeParse(body.id).success;
      const id = validId ? (body as Record<string, unknown>).id : null;
      if (
        !isRecord(body) || !validId || body.jsonrpc !== "2.0" || typeof body.method !== "string"
      ) {
        return c.json(rpcError(id, {
          code: INVALID_REQUEST,
          message: 'Send one JSON-RPC 2.0 request: {"jsonrpc":"2.0","id":<string, number ' +
            'or null>,"method":"..."}',
        }));
      }
      const problem = paramsProblem(body.method, body.params);
      if (problem) return c.json(rpcError(id, { code: INVALID_PARAMS, message: problem }));
      const requested = c.req.header("a2a-version") || "0.3";
      const legacy = requested.startsWith("0.");
      const principal = c.get("principal");
      // The SDK keeps tasks per user name: one caller cannot read or cancel another's.
      const context = new ServerCallContext({
        requestedVersion: requested,
        user: principal && { isAuthenticated: true, userName: principal.id },
      });
      if (principal && SENDS.has(body.method)) {
        options.log?.(`${body.method} from ${principal.name}`);
      }
      const mapError = legacy
        ? LegacyJsonRpcTransportHandler.mapToLegacyJSONRPCError
        : JsonRpcTransportHandler.mapToJSONRPCError;
      let result: Awaited<ReturnType<JsonRpcTransportHandler["handle"]>>;
      /** Withdraws an admitted follow-up whose request did not reach the executor. */
      let withdraw: (() => void) | undefined;
      try {
        validateVersion(requested, typed, "JSONRPC");
        const followed = SENDS.has(body.method) ? messageField(body.params, "taskId") : undefined;
        // A message naming a running task waits to follow its run, if there is room; one
        // naming a task that has ended gets the SDK's own -32004.
        // Another caller's task is not this one's to follow: the SDK answers it not found.
        if (followed !== undefined && tasks.isRunning(followed, context)) {
          const admitted = !textOnly(body.params)
            ? `Task ${followed} is still running: a message that follows it continues from ` +
              "the tree its run leaves, so it takes text parts only (no repository state or " +
              "files). Send the text alone, or a new message without taskId"
            : executor.admitFollowUp?.(followed, messageField(body.params, "messageId") ?? "") ??
              `Task ${followed} is still running`;
          if (typeof admitted === "string") throw new UnsupportedOperationError(admitted);
          withdraw = admitted;
        }
        const handle = async (request: RpcRequest): Promise<typeof result> =>
          legacy
            ? await v03.handle(request, context) as unknown as typeof result
            : await v1.handle(request, context);
        const held = options.maxWaitMs === undefined ? undefined : heldSend(body as RpcRequest);
        result = await handle(held?.request ?? body as RpcRequest);
        if (!isStream(result) && "error" in result) withdraw?.();
        if (held) {
          // Until the task settles, the bound passes or the caller goes, whichever is first.
          const until = AbortSignal.any([
            c.req.raw.signal,
            AbortSignal.timeout(options.maxWaitMs!),
          ]);
          const answer = await heldAnswer(held, result, (t) => tasks.settled(t, until), handle);
          return c.json(answer as typeof result);
        }
      } catch (err) {
        withdraw?.();
        return c.json(rpcError(id, mapError(err)));
      }
      if (!isStream(result)) return c.json(result);
      const iterator = result[Symbol.asyncIterator]();
      // An error before the first event is a plain JSON-RPC answer, not a stream.
      let first: IteratorResult<unknown>;
      try {
        first = await iterator.next();
      } catch (err) {
        withdraw?.();
        return c.json(rpcError(id, mapError(err)));
      }
      return streamSSE(c, async (sse) => {
        // A client that goes away ends its stream; the task itself runs on.
        sse.onAbort(() => void iterator.return?.(undefined));
        try {
          for (let step = first; !step.done; step = await iterator.next()) {
            await sse.writeSSE({ data: JSON.stringify(step.value) });
          }
        } catch (err) {
          await sse.writeSSE({ data: JSON.stringify(rpcError(id, mapError(err))) });
        }
      });
    },
  );
  return app;
}

/** A body limit whose refusal is a JSON-RPC error naming it. */
function limitBody(maxSize: number, what: string) {
  return bodyLimit({
    maxSize,
    onError: (c) =>
      c.json(
        rpcError(null, {
          code: INVALID_REQUEST,
          message: `The request${what} is larger than ${maxSize} bytes`,
        }),
        413,
      ),
  });
}

/** Whether an extensions header (comma-separated URIs) activates the repository state. */
function activates(header: string | undefined): boolean {
  return (header ?? "").split(",").some((uri) => uri.trim() === REPO_STATE_EXTENSION);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function isStream(v: unknown): v is AsyncGenerator<unknown> {
  return typeof (v as AsyncGenerator<unknown>)?.[Symbol.asyncIterator] === "function";
}
