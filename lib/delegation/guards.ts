/**
 * The rules checked before anything runs. Each refusal says what to do instead, because
 * the reader is often an agent that must carry on by itself.
 * @module
 */
import { identifierKey } from "../a2a/identifier.ts";
import { ObservalError } from "../core/mod.ts";
import type { Caller } from "./caller.ts";

/** Longest brief accepted. */
export const MAX_MESSAGE_CHARS = 100_000;
/** How many tasks one delegated task may start. */
export const MAX_CHILD_TASKS = 3;

function refuse(message: string, remediation: string): ObservalError {
  return new ObservalError("FAILED_PRECONDITION", message, { remediation });
}

/** The brief must say something, and not too much. */
export function checkMessage(message: string): void {
  if (!message.trim()) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      "A delegation needs a message describing the task",
      {
        remediation: "Write a complete brief: the agent does not see your conversation",
      },
    );
  }
  if (message.length > MAX_MESSAGE_CHARS) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `The message is ${message.length} characters; at most ${MAX_MESSAGE_CHARS} are accepted`,
      { remediation: "Shorten the brief, or point the agent at files instead of pasting them" },
    );
  }
}

/** A delegated agent may delegate only while it is above the depth limit. */
export function checkDepth(caller: Caller): void {
  if (caller.invalid) {
    // Fail closed: a malformed depth must never read as the top level.
    throw refuse(
      `Delegation refused: ${caller.invalid}`,
      "Remove or fix the variable; observal sets it for delegated agents",
    );
  }
  if (caller.depth >= caller.maxDepth) {
    throw refuse(
      `Delegation depth limit reached (${caller.maxDepth} levels)`,
      "Do this part of the task yourself",
    );
  }
}

/** A delegated agent may start only a few tasks of its own. */
export function checkBreadth(children: number): void {
  if (children >= MAX_CHILD_TASKS) {
    throw refuse(
      `A delegated agent can start at most ${MAX_CHILD_TASKS} tasks of its own`,
      "Do the rest of this task yourself",
    );
  }
}

/** Only approved, delegable entries take work. */
export function checkApproved(entry: Record<string, unknown>, ref: string): void {
  const name = String(entry.displayName ?? ref);
  if (entry["obs:lifecycle"] !== "approved") {
    throw refuse(
      `${name} is not approved, so it cannot be delegated to`,
      "Ask a reviewer to approve it, or choose an approved agent (`observal delegate find`)",
    );
  }
  if (entry["obs:delegable"] === false) {
    throw refuse(
      `${name} cannot take delegated tasks`,
      "Choose another agent with `observal delegate find`",
    );
  }
}

/** Whether delegating to `target` would loop: it works higher up the chain, or is the caller. */
export function wouldLoop(
  caller: Caller,
  target: { identifier: string; agentId?: string },
): boolean {
  // Compared in one spelling: the chain may come from the environment, written any way.
  const above = new Set(caller.chain.map(identifierKey));
  const agentId = target.agentId === undefined ? undefined : identifierKey(target.agentId);
  return above.has(identifierKey(target.identifier)) ||
    (agentId !== undefined &&
      (above.has(agentId) ||
        (caller.agentId !== undefined && agentId === identifierKey(caller.agentId))));
}

/** Refuses a target that is already working higher up the chain, or the caller itself. */
export function checkCycle(
  caller: Caller,
  target: { identifier: string; agentId?: string; name: string },
): void {
  if (wouldLoop(caller, target)) {
    throw refuse(
      `${target.name} is already working on this task higher up the chain; delegating to it again would loop`,
      "Do this part yourself, or delegate to a different agent",
    );
  }
}
