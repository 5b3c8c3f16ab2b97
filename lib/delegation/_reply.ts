/**
 * Answering a remote task that waits for input: the answer checked, exactly one of
 * concurrent replies taken, and a reply that lost a race refused with its own exit code.
 * @module
 */
import { isInterrupted, isTerminal, type Part, type Task } from "../a2a/tasks/mod.ts";
import { CATEGORIES, isoSeconds, ObservalError } from "../core/mod.ts";
import { stateWords } from "../store/mod.ts";
import { agentMessage, markChanged, remotePermissions } from "../runner/mod.ts";
import { checkMessage, MAX_MESSAGE_CHARS } from "./guards.ts";
import { checkSpace, launchWorker, workerNet } from "./_launch.ts";
import type { ReplyOptions } from "./_options.ts";
import type { ServiceState } from "./_state.ts";

/**
 * Exit code of a reply that lost a race: another reply was accepted first, or a cancel
 * claimed the question (see `observal help exit-codes`).
 */
export const REPLY_REFUSED_EXIT = CATEGORIES.superseded.exit;

/**
 * A reply that was not taken because the task stopped waiting for input while it was
 * being given: another reply was accepted first (`answered`) or a cancel got there first
 * (`canceled`). Nothing of it reached the agent. It has its own exit code,
 * {@linkcode REPLY_REFUSED_EXIT}, so a script can tell it from other refusals.
 */
export class ReplyRefusedError extends ObservalError {
  /** Why the reply was refused. */
  readonly reason: "answered" | "canceled";

  constructor(reason: "answered" | "canceled", taskId: string) {
    const [message, remediation] = reason === "answered"
      ? [
        `Another reply to task ${taskId} was accepted first; yours was not sent`,
        `Follow the task with \`observal delegate status ${taskId} --wait 60\`; if the agent ` +
        "asks again, answer that question",
      ]
      : [
        `Task ${taskId} was canceled while you replied; your reply was not sent`,
        `If it still shows as waiting, \`observal delegate cancel ${taskId}\` finishes the ` +
        "cancel; start a new delegation with `observal delegate run` if the work is needed",
      ];
    super("REPLY_REFUSED", message, { resource: taskId, remediation });
    this.name = "ReplyRefusedError";
    this.reason = reason;
  }
}

/** The service's `reply`. */
export async function replyTo(
  s: ServiceState,
  id: string,
  answer: string | readonly Part[],
  options: ReplyOptions,
): Promise<Task> {
  const { store, ctx } = s.deps;
  const since = options.since ?? ctx.clock.now();
  const parts = replyParts(answer);
  id = store.resolveId(id);
  const task = s.self.get(id);
  const meta = task.metadata.observal;
  if (meta.kind !== "a2a" || !isInterrupted(task.status.state)) {
    if (meta.kind === "a2a") {
      const lost = lostRace(task, since);
      if (lost) throw new ReplyRefusedError(lost, id);
    }
    throw new ObservalError(
      "FAILED_PRECONDITION",
      meta.kind === "a2a"
        ? `Task ${id} is ${stateWords(task.status.state)}, not waiting for input, so it ` +
          "takes no reply"
        : "Only a remote task that is waiting for input can take a reply",
      {
        resource: id,
        remediation: `Check it with \`observal delegate status ${id}\``,
      },
    );
  }
  options.signal?.throwIfAborted();
  checkSpace(s.deps);
  const outcome = store.acceptReply(id, parts, (t) => {
    // Keep the agent's question in the history, before the answer to it.
    const question = t.status.message;
    const history = t.history ?? [];
    const asked = question?.role === "ROLE_AGENT" &&
        !history.some((m) => m.messageId === question.messageId)
      ? [question]
      : [];
    return {
      ...t,
      history: [...history, ...asked, {
        messageId: crypto.randomUUID(),
        role: "ROLE_USER",
        parts: [...parts],
        taskId: id,
        contextId: t.contextId,
      }],
      status: {
        state: "TASK_STATE_WORKING",
        timestamp: isoSeconds(ctx.clock.now()),
        message: agentMessage("Reply received; resuming.", id, t.contextId),
      },
      metadata: {
        ...t.metadata,
        observal: { ...t.metadata.observal, repliedAt: ctx.clock.now().toISOString() },
      },
    };
  });
  if (!outcome.accepted) {
    throw new ReplyRefusedError(
      outcome.reason === "not-waiting" ? "answered" : "canceled",
      id,
    );
  }
  markChanged(store, outcome.task);
  const net = workerNet(s.deps, meta.remoteUrl ?? "");
  launchWorker(s, outcome.task, (fence) => remotePermissions(ctx, net, fence));
  return await s.self.wait(id, options.waitSeconds ?? 0, {
    since,
    onTick: options.onTick,
    signal: options.signal,
  });
}

/**
 * Why a reply to a remote task that is not waiting for input lost a race, if it did:
 * another reply was taken and the task is still working on it, or was taken after the
 * caller began (`since`); or a cancel settled the task after the caller began. Undefined
 * when the task simply was not waiting (never asked, or settled before the caller began).
 */
function lostRace(task: Task, since: Date): "answered" | "canceled" | undefined {
  const state = task.status.state;
  const repliedAt = Date.parse(String(task.metadata.observal.repliedAt ?? ""));
  if (!Number.isNaN(repliedAt) && (!isTerminal(state) || repliedAt >= since.getTime())) {
    return "answered";
  }
  // Status times have whole seconds: compare with the second the caller began in.
  const changed = Date.parse(task.status.timestamp ?? "");
  if (state === "TASK_STATE_CANCELED" && changed >= Math.floor(since.getTime() / 1000) * 1000) {
    return "canceled";
  }
  return undefined;
}

/** A reply as A2A parts, checked: something to say, and not too much of it. */
function replyParts(answer: string | readonly Part[]): Part[] {
  const parts: Part[] = typeof answer === "string" ? [{ text: answer }] : [...answer];
  const said = parts.some((p) =>
    (typeof p.text === "string" && p.text.trim() !== "") || p.data !== undefined
  );
  if (!said) {
    throw new ObservalError("INVALID_ARGUMENT", "The reply is empty", {
      remediation: "Answer the agent's question in the message, or pass data",
    });
  }
  const size = parts.reduce(
    (n, p) =>
      n + (p.text?.length ?? 0) + (p.data === undefined ? 0 : JSON.stringify(p.data).length),
    0,
  );
  if (size > MAX_MESSAGE_CHARS) {
    throw new ObservalError(
      "INVALID_ARGUMENT",
      `The reply is ${size} characters; at most ${MAX_MESSAGE_CHARS} are accepted`,
      { remediation: "Shorten the answer, or point the agent at files instead of pasting them" },
    );
  }
  for (const p of parts) if (typeof p.text === "string" && p.text.trim()) checkMessage(p.text);
  return parts;
}
