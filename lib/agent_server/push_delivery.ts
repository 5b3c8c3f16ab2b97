/**
 * Delivers a served Agent's task events to the webhooks its callers registered (A2A v1.0
 * §4.3): each event POSTed in the shape of the protocol version the config was made
 * with, through the same SSRF gate as agent endpoints (checked again at every attempt,
 * connected to the checked address, no redirects), with bounded attempts, time and
 * size. A delivery never holds up or fails the task: the SDK does not wait for it, and
 * every failure ends here as one log line.
 * @module
 */
import { StreamResponse, type Task } from "@a2a-js/sdk";
import {
  type PushNotificationSender,
  type PushNotificationSerializer,
  type ServerCallContext,
  type StoredPushNotificationConfig,
  V1PushNotificationSerializer,
} from "@a2a-js/sdk/server";
import { V03PushNotificationSerializer } from "@a2a-js/sdk/compat/v0_3/server";
import { errorMessage, ObservalError } from "../core/mod.ts";
import { hostRequest, pinAddress, type Requester, type Resolve } from "../net/mod.ts";
import { type PushConfigs, webhookProblem } from "./push_configs.ts";

/** How deliveries are made. */
export interface DeliveryOptions {
  /** Attempts per event and webhook. @default 3 */
  attempts?: number;
  /** Wait before the 2nd, 3rd... attempt, in ms; the last value repeats. @default [500, 2000] */
  backoffMs?: readonly number[];
  /** Limit for one attempt: lookup, connect and answer. @default 5000 */
  timeoutMs?: number;
  /** Largest body POSTed; a larger task goes without its artifacts and history. @default 256 KiB */
  maxBodyBytes?: number;
  /** Deliveries waiting or under way at once; more are dropped (and logged). @default 256 */
  maxPending?: number;
  /** Resolves webhook host names. @default the system resolver */
  resolve?: Resolve;
  /** Performs the POST. @default {@linkcode hostRequest} */
  request?: Requester;
  /** Ends waits and attempts when the server stops. */
  signal?: AbortSignal;
  /** Where a failed or dropped delivery is reported. @default console.error */
  log?: (line: string) => void;
}

/** Status codes worth another attempt: the webhook may answer later. */
const RETRYABLE = new Set([408, 425, 429, 500, 502, 503, 504]);

const SERIALIZERS: Record<string, PushNotificationSerializer> = {
  "1.0": new V1PushNotificationSerializer(),
  "0.3": new V03PushNotificationSerializer(),
};

/** A PushNotificationSender that posts through the SSRF gate, with retries and limits. */
export class WebhookSender implements PushNotificationSender {
  /** Each task's delivery chain, so that its events arrive in order. */
  readonly #chains = new Map<string, Promise<void>>();
  #pending = 0;
  readonly #options: Required<Omit<DeliveryOptions, "resolve" | "signal">> & DeliveryOptions;

  constructor(readonly store: PushConfigs, options: DeliveryOptions = {}) {
    this.#options = {
      attempts: 3,
      backoffMs: [500, 2000],
      timeoutMs: 5000,
      maxBodyBytes: 256 * 1024,
      maxPending: 256,
      request: hostRequest,
      log: (line) => console.error(line),
      ...options,
    };
  }

  async send(event: StreamResponse, context: ServerCallContext, task?: Task): Promise<void> {
    const taskId = taskIdOf(event);
    if (!taskId) return;
    const configs = await this.store.loadWithMetadata(taskId, context);
    if (configs.length === 0) return;
    if (this.#pending + configs.length > this.#options.maxPending) {
      this.#options.log(
        `Push notification for task ${taskId} dropped: ${this.#pending} deliveries are ` +
          "already waiting",
      );
      return;
    }
    this.#pending += configs.length;
    const previous = this.#chains.get(taskId) ?? Promise.resolve();
    const next = previous.then(() =>
      Promise.all(configs.map(async (stored) => {
        try {
          await this.#deliver(event, stored, task);
        } catch (err) {
          this.#options.log(
            `Push notification for task ${taskId} to ${stored.config.url} not delivered: ${
              errorMessage(err)
            }`,
          );
        } finally {
          this.#pending--;
        }
      }))
    ).then(() => {});
    this.#chains.set(taskId, next);
    await next;
    if (this.#chains.get(taskId) === next) this.#chains.delete(taskId);
  }

  /** Posts one event to one webhook: up to `attempts` times, then throws the last reason. */
  async #deliver(event: StreamResponse, stored: StoredPushNotificationConfig, task?: Task) {
    const { config, wireVersion } = stored;
    const { body, contentType } = this.#serialize(event, wireVersion, task);
    const headers: Record<string, string> = {
      "content-type": contentType,
      "user-agent": "observal",
    };
    const auth = config.authentication;
    if (auth?.scheme && auth.credentials) {
      headers.authorization = `${auth.scheme} ${auth.credentials}`;
    }
    // The token the client chose, in the header the spec's example uses (A2A v1.0 §6.6).
    if (config.token) headers["x-a2a-notification-token"] = config.token;
    const { attempts, backoffMs, signal } = this.#options;
    let reason = "";
    for (let attempt = 1; attempt <= attempts; attempt++) {
      if (attempt > 1) await sleep(backoffMs[Math.min(attempt - 2, backoffMs.length - 1)], signal);
      if (signal?.aborted) throw new Error("the server stopped");
      const outcome = await this.#attempt(config.url, body, headers);
      if (outcome === "delivered") return;
      reason = outcome.reason;
      if (!outcome.retry) break;
    }
    throw new Error(reason);
  }

  /** One POST; the URL passes the gate again first (the setting or DNS may have changed). */
  async #attempt(
    url: string,
    body: Uint8Array,
    headers: Record<string, string>,
  ): Promise<"delivered" | { retry: boolean; reason: string }> {
    const { timeoutMs, signal, request } = this.#options;
    const allowPrivateHosts = await this.store.privateHosts();
    const problem = webhookProblem(url, allowPrivateHosts);
    if (problem) return { retry: false, reason: problem };
    const target = new URL(url);
    const timeout = AbortSignal.timeout(timeoutMs);
    const stop = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const address = await pinAddress(target, {
        allowPrivateHosts,
        resolve: this.#options.resolve,
        signal: stop,
      });
      const response = await request({
        url: target,
        method: "POST",
        body,
        address,
        headers,
        signal: stop,
      });
      // The answer's body is not wanted: close instead of reading it.
      if (response.abort) response.abort();
      else await response.body[Symbol.asyncIterator]().return?.();
      if (response.status >= 200 && response.status < 300) return "delivered";
      const redirect = response.status >= 300 && response.status < 400;
      return {
        retry: RETRYABLE.has(response.status),
        reason: `the webhook answered HTTP ${response.status}` +
          (redirect ? " (redirects are not followed)" : ""),
      };
    } catch (err) {
      if (err instanceof ObservalError && err.code === "UNSAFE_URL") {
        return { retry: false, reason: err.message };
      }
      if (timeout.aborted) return { retry: true, reason: `no answer within ${timeoutMs} ms` };
      return { retry: true, reason: errorMessage(err) };
    }
  }

  /** The body for the config's protocol version; a too-large task goes without its bulk. */
  #serialize(event: StreamResponse, wireVersion: string, task?: Task) {
    const serializer = SERIALIZERS[wireVersion] ?? SERIALIZERS["1.0"];
    const encode = (e: StreamResponse, t?: Task) => {
      const { body, contentType } = serializer.serialize(e, t);
      return { body: new TextEncoder().encode(body), contentType };
    };
    const full = encode(event, task);
    if (full.body.byteLength <= this.#options.maxBodyBytes) return full;
    // The client can fetch artifacts and history with GetTask; the state still arrives.
    const slim = (t: Task): Task => ({ ...t, artifacts: [], history: [] });
    const payload = event.payload;
    if (payload?.$case === "artifactUpdate") {
      throw new Error(`the artifact is larger than ${this.#options.maxBodyBytes} bytes`);
    }
    const lighter = payload?.$case === "task"
      ? { payload: { $case: "task" as const, value: slim(payload.value) } }
      : event;
    const small = encode(lighter, task && slim(task));
    if (small.body.byteLength <= this.#options.maxBodyBytes) return small;
    throw new Error(`the event is larger than ${this.#options.maxBodyBytes} bytes`);
  }
}

/** The task an event belongs to, or "" for a message outside any task. */
function taskIdOf(event: StreamResponse): string {
  const payload = event.payload;
  if (!payload) return "";
  return payload.$case === "task" ? payload.value.id : payload.value.taskId;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
