/**
 * How much observal accepts from a remote agent: each limit has a default no honest agent
 * reaches and an environment variable that changes it. What goes past a limit fails the
 * task with a message naming the limit and its variable.
 * @module
 */
import { type Env, ObservalError, utf8Length } from "../core/mod.ts";
import { RemoteRefusalError } from "./client/remote_errors.ts";
import type { Artifact, Message } from "./task.ts";

/** The limits on what one remote task may send back. */
export interface RemoteLimits {
  /** Bytes of one JSON-RPC response body. @default 8 MiB */
  maxResponseBytes: number;
  /** Bytes of one server-sent event, and so of any one line in a stream. @default 8 MiB */
  maxEventBytes: number;
  /** Bytes of all of a task's artifacts together, as JSON. @default 4 MiB */
  maxArtifactBytes: number;
  /** Artifacts in one task. @default 1000 */
  maxArtifacts: number;
  /** Agent messages kept from one turn (status updates and the task history). @default 5000 */
  maxMessages: number;
  /** Bytes of those messages together, as JSON. @default 4 MiB */
  maxMessageBytes: number;
}

const MIB = 1024 * 1024;

/**
 * The limits used when no variable changes them. Parsing a JSON answer takes two to five
 * times its size in memory, so 8 MiB answers keep a worker far below 200 MB, while the
 * 4 MiB of artifacts a task may return is already about a million tokens of text.
 */
export const DEFAULT_REMOTE_LIMITS: Readonly<RemoteLimits> = Object.freeze({
  maxResponseBytes: 8 * MIB,
  maxEventBytes: 8 * MIB,
  maxArtifactBytes: 4 * MIB,
  maxArtifacts: 1000,
  maxMessages: 5000,
  maxMessageBytes: 4 * MIB,
});

/** The environment variable that sets each limit. */
export const REMOTE_LIMIT_VARIABLES: Readonly<Record<keyof RemoteLimits, string>> = Object
  .freeze({
    maxResponseBytes: "OBSERVAL_A2A_MAX_RESPONSE_BYTES",
    maxEventBytes: "OBSERVAL_A2A_MAX_EVENT_BYTES",
    maxArtifactBytes: "OBSERVAL_A2A_MAX_ARTIFACT_BYTES",
    maxArtifacts: "OBSERVAL_A2A_MAX_ARTIFACTS",
    maxMessages: "OBSERVAL_A2A_MAX_MESSAGES",
    maxMessageBytes: "OBSERVAL_A2A_MAX_MESSAGE_BYTES",
  });

/**
 * The limits for this environment: each `OBSERVAL_A2A_MAX_*` variable that is set
 * replaces its default.
 *
 * @param env The environment.
 * @returns The limits.
 * @throws {ObservalError} `INVALID_ARGUMENT` when a variable is set to anything but a
 *   whole number from 1 to 2^40.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { remoteLimits } from "./mod.ts";
 * assert.equal(remoteLimits({ OBSERVAL_A2A_MAX_ARTIFACTS: "20" }).maxArtifacts, 20);
 * ```
 */
export function remoteLimits(env: Env): RemoteLimits {
  const limits = { ...DEFAULT_REMOTE_LIMITS };
  for (const key of Object.keys(REMOTE_LIMIT_VARIABLES) as (keyof RemoteLimits)[]) {
    limits[key] = wholeNumberVariable(env, REMOTE_LIMIT_VARIABLES[key], limits[key], 1, 2 ** 40);
  }
  return limits;
}

/**
 * The whole number in `variable`, from `min` to `max`, or `fallback` when it is unset.
 *
 * @throws {ObservalError} `INVALID_ARGUMENT` naming the variable and its range otherwise.
 */
export function wholeNumberVariable(
  env: Env,
  variable: string,
  fallback: number,
  min: number,
  max: number,
): number {
  const raw = env[variable]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(n) || n < min || n > max) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `${variable} must be a whole number from ${min} to ${max}, not ${
        JSON.stringify(raw.slice(0, 40))
      }`,
      { remediation: `Set ${variable} to a number, or unset it to use ${fallback}` },
    );
  }
  return n;
}

/**
 * The refusal for going past one limit: names the limit, its value and how to raise it.
 *
 * @param limits The limits in force.
 * @param key Which limit was passed.
 * @returns The error to throw.
 *
 * @example
 * ```ts
 * import { DEFAULT_REMOTE_LIMITS, limitExceeded } from "./mod.ts";
 * limitExceeded(DEFAULT_REMOTE_LIMITS, "maxArtifacts").message;
 * // "The remote agent sent more than 1000 artifacts, past the OBSERVAL_A2A_MAX_ARTIFACTS limit"
 * ```
 */
export function limitExceeded(limits: RemoteLimits, key: keyof RemoteLimits): RemoteRefusalError {
  const variable = REMOTE_LIMIT_VARIABLES[key];
  const value = limits[key];
  const size = formatBytes(value);
  const what = {
    maxResponseBytes: `a JSON-RPC response larger than ${size}`,
    maxEventBytes: `a stream event or line larger than ${size}`,
    maxArtifactBytes: `artifacts larger than ${size} in all`,
    maxArtifacts: `more than ${value} artifacts`,
    maxMessages: `more than ${value} messages in one turn`,
    maxMessageBytes: `messages larger than ${size} in all in one turn`,
  }[key];
  return new RemoteRefusalError(
    "limit",
    `The remote agent sent ${what}, past the ${variable} limit`,
    {
      remediation: `If the agent is trusted and really sends that much, set ${variable} to a ` +
        `larger value (now ${value}) and delegate again`,
      variable,
    },
  );
}

/**
 * Checks the artifacts and agent messages a task has collected against the limits.
 *
 * @param collected The task's artifacts and the agent messages of this turn.
 * @param limits The limits.
 * @throws {RemoteRefusalError} `limit` for the first limit passed.
 */
export function checkCollected(
  collected: { artifacts?: readonly Artifact[]; messages?: readonly Message[] },
  limits: RemoteLimits,
): void {
  const artifacts = collected.artifacts ?? [];
  if (artifacts.length > limits.maxArtifacts) {
    throw limitExceeded(limits, "maxArtifacts");
  }
  if (sumBytes(artifacts, limits.maxArtifactBytes) > limits.maxArtifactBytes) {
    throw limitExceeded(limits, "maxArtifactBytes");
  }
  const messages = collected.messages ?? [];
  if (messages.length > limits.maxMessages) {
    throw limitExceeded(limits, "maxMessages");
  }
  if (sumBytes(messages, limits.maxMessageBytes) > limits.maxMessageBytes) {
    throw limitExceeded(limits, "maxMessageBytes");
  }
}

// Sizes are remembered per object: snapshots share unchanged artifacts and messages, so
// checking after every streamed event costs a lookup, not a measurement, for each one.
const sizes = new WeakMap<object, number>();

function sumBytes(values: readonly (Artifact | Message)[], stopAbove: number): number {
  let total = 0;
  for (const value of values) {
    let size = sizes.get(value);
    if (size === undefined) {
      size = sizeOf(value);
      sizes.set(value, size);
    }
    total += size;
    if (total > stopAbove) return total;
  }
  return total;
}

/**
 * About the bytes of an artifact or message as JSON, measured without serialising its
 * parts' text (a large artifact would otherwise be copied once more just to be measured).
 */
function sizeOf(value: Artifact | Message): number {
  const { parts, ...rest } = value;
  let size = utf8Length(JSON.stringify(rest));
  for (const part of parts ?? []) {
    const { text, raw, url, ...other } = part;
    size += utf8Length(JSON.stringify(other)) + 16;
    if (typeof text === "string") size += utf8Length(text);
    if (typeof raw === "string") size += raw.length;
    if (typeof url === "string") size += utf8Length(url);
  }
  return size;
}

/** `16 MiB`, `512 KiB` or `1234 bytes`. */
export function formatBytes(bytes: number): string {
  if (bytes >= MIB && bytes % MIB === 0) return `${bytes / MIB} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
