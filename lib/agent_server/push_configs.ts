/**
 * The push-notification configs a served Agent keeps (A2A v1.0 §3.1.7-§3.1.10, v0.3
 * `tasks/pushNotificationConfig/*`): in memory, bounded per task and in all, and each
 * webhook URL checked by the SSRF gate before it is kept. Delivery re-checks the URL
 * (./push_delivery.ts), since what a name resolves to may change.
 * @module
 */
import type { TaskPushNotificationConfig } from "@a2a-js/sdk";
import type {
  PushNotificationStore,
  ServerCallContext,
  StoredPushNotificationConfig,
} from "@a2a-js/sdk/server";
import { RequestMalformedError } from "@a2a-js/sdk/errors";
import { ObservalError } from "../core/mod.ts";
import { checkEndpointUrl } from "../net/mod.ts";

/** Configs one task may have. */
export const MAX_CONFIGS_PER_TASK = 10;
/** Configs kept for all tasks together. */
export const MAX_CONFIGS = 2000;
/** Longest webhook URL, token or credentials taken, in characters. */
const MAX_FIELD_CHARS = 2048;

/** The hosts a webhook may have although private (`discovery.a2a_private_hosts`), as of now. */
export type PrivateHosts = () => Promise<readonly string[]>;

/**
 * Why `url` may not receive push notifications, or undefined when it may: the rules for
 * URLs taken from Agent Cards (http(s), no credentials, no metadata service; https and a
 * public host unless the host is allowed).
 */
export function webhookProblem(
  url: string,
  allowPrivateHosts: readonly string[],
): string | undefined {
  try {
    checkEndpointUrl(url, { allowPrivateHosts, label: "push notification URL" });
    return undefined;
  } catch (err) {
    if (!(err instanceof ObservalError)) throw err;
    // The gate's own advice speaks of cards; the one who set this URL is the caller.
    return `${err.message}. Give a public https URL for the webhook`;
  }
}

/** A PushNotificationStore that checks each webhook and keeps a bounded number. */
export class PushConfigs implements PushNotificationStore {
  /** Tenant and task -> config id -> config, oldest first. */
  readonly #byTask = new Map<string, Map<string, StoredPushNotificationConfig>>();
  #count = 0;

  constructor(
    readonly privateHosts: PrivateHosts,
    readonly limits = { perTask: MAX_CONFIGS_PER_TASK, total: MAX_CONFIGS },
  ) {}

  /** How many configs are kept now. */
  get size(): number {
    return this.#count;
  }

  async save(
    taskId: string,
    context: ServerCallContext,
    config: TaskPushNotificationConfig,
  ): Promise<void> {
    for (const [name, value] of Object.entries(fieldsOf(config))) {
      if (value.length > MAX_FIELD_CHARS) {
        throw new RequestMalformedError(
          `The push notification config's ${name} is longer than ${MAX_FIELD_CHARS} characters`,
        );
      }
    }
    const problem = webhookProblem(config.url, await this.privateHosts());
    if (problem) throw new RequestMalformedError(problem);
    if (!config.id) config.id = crypto.randomUUID();
    const key = keyOf(context, taskId);
    const configs = this.#byTask.get(key) ?? new Map<string, StoredPushNotificationConfig>();
    if (!configs.has(config.id)) {
      if (configs.size >= this.limits.perTask) {
        throw new RequestMalformedError(
          `Task ${taskId} already has ${this.limits.perTask} push notification configs; ` +
            "delete one before adding another",
        );
      }
      if (this.#count >= this.limits.total) {
        throw new RequestMalformedError(
          `This agent already keeps ${this.limits.total} push notification configs; try ` +
            "again once earlier tasks are forgotten",
        );
      }
      this.#count++;
    }
    configs.set(config.id, {
      config: structuredClone(config),
      wireVersion: context.requestedVersion || "0.3",
    });
    this.#byTask.set(key, configs);
  }

  load(taskId: string, context: ServerCallContext): Promise<TaskPushNotificationConfig[]> {
    const configs = this.#byTask.get(keyOf(context, taskId))?.values() ?? [];
    return Promise.resolve([...configs].map((c) => structuredClone(c.config)));
  }

  loadWithMetadata(
    taskId: string,
    context: ServerCallContext,
  ): Promise<StoredPushNotificationConfig[]> {
    const configs = this.#byTask.get(keyOf(context, taskId))?.values() ?? [];
    return Promise.resolve([...configs].map((c) => structuredClone(c)));
  }

  delete(taskId: string, context: ServerCallContext, configId?: string): Promise<void> {
    const key = keyOf(context, taskId);
    const configs = this.#byTask.get(key);
    // As the SDK's own store: a delete without an id names the config whose id is the task's.
    if (configs?.delete(configId ?? taskId)) this.#count--;
    if (configs?.size === 0) this.#byTask.delete(key);
    return Promise.resolve();
  }

  /** Drops every config of a task the server no longer remembers. */
  forget(taskId: string, context: ServerCallContext): void {
    const key = keyOf(context, taskId);
    this.#count -= this.#byTask.get(key)?.size ?? 0;
    this.#byTask.delete(key);
  }
}

/** One bucket per tenant and task (one served Agent has one set of callers). */
function keyOf(context: ServerCallContext, taskId: string): string {
  return `${context.tenant ?? ""}\n${taskId}`;
}

function fieldsOf(config: TaskPushNotificationConfig): Record<string, string> {
  return {
    url: config.url,
    token: config.token,
    "authentication scheme": config.authentication?.scheme ?? "",
    "authentication credentials": config.authentication?.credentials ?? "",
  };
}
