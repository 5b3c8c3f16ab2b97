/**
 * How long observal waits on a remote agent's answers: one request's time limit and the
 * slowest a JSON body may arrive. Each has a default and an environment variable, like
 * the size limits in `remote_limits.ts`; a body slower than the rate fails the request
 * with a message naming its variable.
 * @module
 */
import type { Env } from "../core/mod.ts";
import { RemoteRefusalError } from "./client/remote_errors.ts";
import { wholeNumberVariable } from "./remote_limits.ts";

/** The time limits on one request to a remote agent. */
export interface RemotePace {
  /** One request: connect, headers and the whole body (a stream: until it starts). @default 60_000 */
  requestTimeoutMs: number;
  /**
   * The fewest bytes a second a JSON body must bring once it has begun, measured over each window of
   * {@linkcode RATE_WINDOW_MS}; 0 turns the check off. @default 1024
   */
  minBodyRate: number;
}

/** The defaults: no honest agent answers that slowly. */
export const DEFAULT_REMOTE_PACE: Readonly<RemotePace> = Object.freeze({
  requestTimeoutMs: 60_000,
  minBodyRate: 1024,
});

/** The window a body's rate is measured over: long enough for a pause between chunks. */
export const RATE_WINDOW_MS = 3000;

/** The environment variable that sets each. */
export const REMOTE_PACE_VARIABLES: Readonly<Record<keyof RemotePace, string>> = Object.freeze({
  requestTimeoutMs: "OBSERVAL_A2A_REQUEST_TIMEOUT_MS",
  minBodyRate: "OBSERVAL_A2A_MIN_BODY_RATE",
});

const RANGES: Readonly<Record<keyof RemotePace, [number, number]>> = {
  requestTimeoutMs: [100, 86_400_000],
  minBodyRate: [0, 2 ** 30],
};

/**
 * The time limits for this environment: each variable that is set replaces its default.
 *
 * @param env The environment.
 * @returns The limits.
 * @throws {ObservalError} `INVALID_ARGUMENT` when a variable is not a whole number in range.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { remotePace } from "./remote_pace.ts";
 * assert.equal(remotePace({ OBSERVAL_A2A_MIN_BODY_RATE: "0" }).minBodyRate, 0);
 * ```
 */
export function remotePace(env: Env): RemotePace {
  const pace = { ...DEFAULT_REMOTE_PACE };
  for (const key of Object.keys(REMOTE_PACE_VARIABLES) as (keyof RemotePace)[]) {
    const [min, max] = RANGES[key];
    pace[key] = wholeNumberVariable(env, REMOTE_PACE_VARIABLES[key], pace[key], min, max);
  }
  return pace;
}

/** The refusal of a body that came slower than the minimum rate. */
export function tooSlow(pace: RemotePace, host: string): RemoteRefusalError {
  const variable = REMOTE_PACE_VARIABLES.minBodyRate;
  return new RemoteRefusalError(
    "limit",
    `The remote agent at ${host} sent its answer slower than ${pace.minBodyRate} bytes a ` +
      `second over ${RATE_WINDOW_MS / 1000} seconds, below the ${variable} limit`,
    {
      remediation: `If the agent is trusted and really that slow, set ${variable} to a smaller ` +
        `value (0 turns the check off) and delegate again`,
      variable,
    },
  );
}
