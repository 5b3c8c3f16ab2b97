/**
 * Runs each message sent to a served Agent as a delegated task: the same start (guards,
 * approval, harness and sandbox choice), the same detached worker (copy, install, harness,
 * patch) and the same task store as `observal delegate run`, with the task's progress
 * passed on to the A2A client as events.
 *
 * One module past 400 lines: a task's first run, the messages that follow it, a cancel and
 * the server's stop act on the same state (the runs going, their cancels, the tasks' lines,
 * the executions per task), kept in one closure rather than passed between modules.
 * @module
 */
import { TaskArtifactUpdateEvent, TaskState } from "@a2a-js/sdk";
import {
  AgentEvent,
  type AgentExecutor,
  type ExecutionEventBus,
  type RequestContext,
} from "@a2a-js/sdk/server";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { MAX_REPO_STATE_BYTES, receivedRepoState, type WireRepoState } from "../a2a/mod.ts";
import { isFinal, type Task } from "../a2a/tasks/mod.ts";
import { ObservalError } from "../core/mod.ts";
import { captureRepoState, restoreRepoState } from "../workspace/mod.ts";
import {
  type Conversation,
  type Conversations,
  followUpBrief,
  resumedBrief,
} from "./conversations.ts";
import { forksSession, getHarness, normalizeHarness } from "../harness/facts/mod.ts";
import type { DelegationService } from "../delegation/mod.ts";
import { MAX_WAIT_SECONDS } from "../delegation/mod.ts";
import {
  artifactText,
  conversationKey,
  endWith,
  filesOf,
  firstTask,
  ownStatusEvent,
  statusEvent,
  textOf,
} from "./_events.ts";
import type { RunSlots } from "./run_slots.ts";
import { type Line, TaskLines } from "./task_lines.ts";

/** What the executor runs, and how many at once. */
export interface ServedAgent {
  /** The registry Agent's identifier, as resolved when the server started. */
  identifier: string;
  /** The approved version and digest served (a newer one is not, until restarted). */
  pin: { version?: string; digest?: string };
  service: DelegationService;
  /** The server's run slots and their line, shared by the Agents it serves. */
  slots: RunSlots;
  /** Aborts when the server stops: waits end, and the tasks still running are canceled. */
  signal: AbortSignal;
  /** How each run starts, as `delegate run` takes it. */
  run?: { harness?: string; sandbox?: string; timeoutSeconds?: number };
  /** Where callers' repository states are rebuilt, and what from. */
  states: {
    /** A private folder for the rebuilt trees (each removed when its run ends). */
    dir: string;
    /** The served repository (`--repo`), whose commits a bundle may leave out. */
    repository?: string;
    env: Readonly<Record<string, string | undefined>>;
    /**
     * Tasks holding a state now (each until its run ends), and how many may at once; one
     * more is refused. Shared by the Agents of one server.
     */
    held: { taken: number; readonly max: number };
  };
  /** What earlier runs of each conversation left, so that a follow-up continues on them. */
  conversations: Conversations;
}

/**
 * The served repository as it stands (HEAD and its uncommitted work), or an empty tree
 * without one: where a follow-up to runs that started there begins again.
 */
async function servedBase(agent: ServedAgent, signal: AbortSignal): Promise<WireRepoState> {
  const { repository, env } = agent.states;
  if (!repository) return { path: "" };
  // HEAD is the repository's own: no bundle.
  const captured = await captureRepoState({
    cwd: repository,
    env,
    thin: true,
    bundle: false,
    maxBytes: MAX_REPO_STATE_BYTES,
    signal,
  });
  return captured ? { ...captured.state, path: "" } : { path: "" };
}

/**
 * What a follow-up's run does with the harness's session: resumes the last run's, or
 * starts a new one and why (undefined for a first run).
 */
function sessionText(task: Task): string | undefined {
  const meta = task.metadata.observal;
  if (meta.resumeSessionId) {
    const key = meta.harness ? normalizeHarness(meta.harness) : undefined;
    const name = key ? getHarness(key).display_name : "";
    const session = `${name} session ${meta.resumeSessionId}`;
    return `The run ${
      key && forksSession(key) ? `continues ${session} in a fork` : `resumes ${session}`
    }, which holds what was asked and answered before.`;
  }
  if (meta.newSessionReason) {
    return `The run starts a new session: ${meta.newSessionReason}. It is told what was ` +
      "asked and answered before.";
  }
  return undefined;
}

/**
 * The A2A executor for one served Agent.
 *
 * A2A task ids are this server's; each maps to the delegated task that runs it (kept in
 * memory: a restarted server answers only for tasks sent to it since).
 */
export function servedAgentExecutor(agent: ServedAgent): AgentExecutor & {
  /** Cancels every delegated task still running (the server is stopping). */
  cancelAll(): Promise<void>;
  /**
   * Admits a message (by id) to follow this task, which is still running: a function to
   * call if the message never reaches the executor (its request failed), or why not.
   */
  admitFollowUp(taskId: string, messageId: string): (() => void) | string;
  /** Whether another run of the task is still to publish on its event bus. */
  keepsBus(taskId: string): boolean;
} {
  const { service } = agent;
  const { slots } = agent;
  const held = agent.states.held;
  /** A2A task id -> delegated task id, while it runs. */
  const running = new Map<string, string>();
  /** Each A2A task's cancel, until its run has ended: aborted when a client cancels it. */
  const cancels = new Map<string, AbortController>();

  /** Each task's runs, while one goes or waits. */
  const lines = new TaskLines();
  /** Executions under way per task: the bus stays open while one is left. */
  const executing = new Map<string, number>();

  /** Set once the server stops: nothing more starts. */
  let closing = false;
  /** The runs under way, so that stopping can wait for each to end. */
  const active = new Set<Promise<void>>();

  function execute(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId } = request;
    executing.set(taskId, (executing.get(taskId) ?? 0) + 1);
    const run = executeOne(request, bus).finally(() => {
      active.delete(run);
      const left = executing.get(taskId)! - 1;
      if (left > 0) executing.set(taskId, left);
      else executing.delete(taskId);
    });
    active.add(run);
    return run;
  }

  /** Runs a message naming a running task once the run before it hands the task on. */
  async function followUp(request: RequestContext, bus: ExecutionEventBus, line: Line) {
    const { taskId, contextId } = request;
    const turn = lines.take(line, request.userMessage.messageId);
    // Not admitted (the app admits every message naming a running task): nothing to run.
    if (!turn) return;
    const place = line.queue.indexOf(turn) + 1;
    if (place > 0) {
      bus.publish(ownStatusEvent(
        taskId,
        contextId,
        request.task?.status?.state === TaskState.TASK_STATE_SUBMITTED
          ? "TASK_STATE_SUBMITTED"
          : "TASK_STATE_WORKING",
        `A further message waits (number ${place}): it runs when the run before it ends, ` +
          "continuing from the tree and session that run leaves.",
      ));
    }
    // False: the run before it failed or was canceled, and the task ended with this message.
    if (!await turn.start.promise) return;
    const brief = textOf(request.userMessage);
    if (!brief) {
      bus.publish(ownStatusEvent(
        taskId,
        contextId,
        "TASK_STATE_WORKING",
        "A further message had no text, so it started no run.",
      ));
      if (lines.handOn(line)) return;
      lines.close(line);
      return endWith(bus, request, "TASK_STATE_COMPLETED", "The last message had no text to run.");
    }
    line.runs++;
    await runOne(
      request,
      bus,
      brief,
      undefined,
      continued(request, bus, "TASK_STATE_WORKING"),
      line,
    );
  }

  /**
   * The conversation a message continues, if any. One that has carried all the runs it may
   * is not continued: the run starts afresh, and a status in `state` says so.
   */
  function continued(
    request: RequestContext,
    bus: ExecutionEventBus,
    state: Task["status"]["state"],
  ): Conversation | undefined {
    const conversation = agent.conversations.get(conversationKey(request));
    if (!conversation || !agent.conversations.full(conversation)) return conversation;
    bus.publish(ownStatusEvent(
      request.taskId,
      request.contextId,
      state,
      `This conversation has had ${conversation.turns.length} runs, the most one carries: ` +
        "this run starts afresh (from the served repository, or the state sent now, in a new " +
        "session) and begins a new conversation.",
    ));
    return undefined;
  }

  async function executeOne(request: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { taskId, contextId } = request;
    /** Refused before it began: the first answer (also to returnImmediately) says so. */
    const refuse = (text: string) => {
      bus.publish(firstTask(request, "TASK_STATE_REJECTED", text));
      bus.finished();
    };
    const following = request.task ? lines.get(taskId) : undefined;
    if (following) return await followUp(request, bus, following);
    if (request.task) {
      // A run ends final or failed; it never waits for input (see the README).
      bus.publish(AgentEvent.task(request.task));
      return endWith(
        bus,
        request,
        "TASK_STATE_REJECTED",
        "This task has ended; a served registry Agent does not continue a task. Send a new " +
          "message (without taskId) to start another run.",
      );
    }
    const brief = textOf(request.userMessage);
    if (!brief) return refuse("Send the brief as a text part.");
    const state = receivedRepoState(request.userMessage.metadata, filesOf(request.userMessage));
    if (state && "refused" in state) {
      return refuse(`The repository state was refused: ${state.refused}.`);
    }
    const bytes = (state?.bundle?.byteLength ?? 0) + (state?.changes?.byteLength ?? 0);
    if (bytes > MAX_REPO_STATE_BYTES) {
      return refuse(
        `The repository state is larger than the ${MAX_REPO_STATE_BYTES} bytes this agent takes.`,
      );
    }
    if (state && held.taken >= held.max) {
      return refuse(
        `The server is busy: ${held.taken} runs with a repository state are under way. Try ` +
          "again later.",
      );
    }
    const place = slots.place();
    if (place === undefined) {
      return refuse(
        `The server is busy: ${slots.maxQueued} messages already wait for a free run. Try ` +
          "again later.",
      );
    }
    bus.publish(firstTask(request, "TASK_STATE_SUBMITTED"));
    if (place > 0) {
      bus.publish(ownStatusEvent(
        taskId,
        contextId,
        "TASK_STATE_SUBMITTED",
        `Waiting for a free run: number ${place} in line.`,
      ));
    }
    const conversation = continued(request, bus, "TASK_STATE_SUBMITTED");
    if (conversation) {
      const n = conversation.turns.length;
      bus.publish(ownStatusEvent(
        taskId,
        contextId,
        "TASK_STATE_SUBMITTED",
        `This continues the conversation: the run starts from ${
          state ? "the repository state sent now" : "where the earlier runs left the tree"
        } (${n} earlier run${n === 1 ? "" : "s"}).`,
      ));
    }
    if (state) held.taken++;
    const line = lines.open(request, bus);
    try {
      await runOne(request, bus, brief, state, conversation, line);
    } finally {
      if (state) held.taken--;
    }
  }

  async function runOne(
    request: RequestContext,
    bus: ExecutionEventBus,
    brief: string,
    state: WireRepoState | undefined,
    conversation: Conversation | undefined,
    line: Line,
  ): Promise<void> {
    const { taskId, contextId } = request;
    const end = (state: Task["status"]["state"], text: string) =>
      endWith(bus, request, state, text);
    /** Whether this run hands the task on to a message waiting to follow it. */
    let handsOn = false;
    const canceled = new AbortController();
    cancels.set(taskId, canceled);
    const stop = AbortSignal.any([agent.signal, canceled.signal]);
    const release = await slots.take(stop);
    if (!release || closing || line.canceled) {
      release?.();
      cancels.delete(taskId);
      lines.close(line);
      return end(
        "TASK_STATE_CANCELED",
        closing ? "The server stopped before the run began." : "Canceled before it started.",
      );
    }
    let rebuilt: string | undefined;
    try {
      let started: Task;
      try {
        let cwd: string | undefined;
        // A sent state is the caller's tree now: earlier runs' changes are in it or not,
        // as the caller decided. Otherwise a follow-up starts where the earlier runs left.
        const patches = state ? [] : conversation?.turns.flatMap((t) => t.patch ?? []) ?? [];
        const base = state ?? conversation?.base?.() ??
          (conversation ? await servedBase(agent, stop) : undefined);
        if (base) {
          mkdirSync(agent.states.dir, { recursive: true, mode: 0o700 });
          rebuilt = mkdtempSync(join(agent.states.dir, "state-"));
          cwd = await restoreRepoState({
            state: base,
            into: join(rebuilt, "tree"),
            scratch: rebuilt,
            repository: agent.states.repository,
            patches: patches.map((file) => readFileSync(file)),
            env: agent.states.env,
            signal: stop,
          });
        }
        // The last run's session is resumed where its harness can; otherwise the new
        // session is told what was asked and answered before.
        const last = conversation?.turns.at(-1);
        const resume = last && {
          harness: last.harness ?? "",
          sessionId: last.sessionId,
          fresh: followUpBrief(conversation!.turns, brief),
        };
        const told = resume ? resumedBrief(brief, state !== undefined) : brief;
        // Canceled while the Agent is looked up: no task is made.
        started = await service.start(agent.identifier, told, {
          resume,
          caller: service.caller(),
          waitSeconds: 0,
          signal: stop,
          cwd,
          pin: { identifier: agent.identifier, ...agent.pin },
          ...agent.run,
        });
      } catch (err) {
        if (stop.aborted) return end("TASK_STATE_CANCELED", "Canceled before it started.");
        const refused = err instanceof ObservalError;
        return end(
          refused ? "TASK_STATE_REJECTED" : "TASK_STATE_FAILED",
          refused
            ? [err.message, err.remediation].filter(Boolean).join(". ")
            : "The run could not be started.",
        );
      }
      running.set(taskId, started.id);
      const session = sessionText(started);
      if (session) {
        // A later run of the task does not take it back to SUBMITTED.
        const state = line.runs > 1 ? "TASK_STATE_WORKING" : "TASK_STATE_SUBMITTED";
        bus.publish(ownStatusEvent(taskId, contextId, state, session));
      }
      // A cancel (or the server's stop) that came while the task was being made finds it
      // only now.
      if (canceled.signal.aborted || closing) await service.cancel(started.id).catch(() => {});
      let shown = "";
      const show = (t: Task) => {
        // One event per change the client can see: the state and the status text.
        const key = `${t.status.state}\n${JSON.stringify(t.status.message?.parts ?? [])}`;
        if (key === shown || isFinal(t.status.state)) return;
        shown = key;
        bus.publish(statusEvent(taskId, contextId, t));
      };
      let last = started;
      while (!isFinal(last.status.state) && !agent.signal.aborted) {
        last = await service.wait(started.id, MAX_WAIT_SECONDS, {
          onTick: show,
          signal: agent.signal,
        });
      }
      running.delete(taskId);
      if (!isFinal(last.status.state)) return end("TASK_STATE_CANCELED", "The server stopped.");
      const n = line.runs;
      for (const artifact of last.artifacts ?? []) {
        // A later run's artifacts join the earlier ones (its patch applies on top of theirs).
        const numbered = n > 1
          ? { ...artifact, artifactId: `${artifact.artifactId}-${n}` }
          : artifact;
        bus.publish(AgentEvent.artifactUpdate(
          TaskArtifactUpdateEvent.fromJSON({
            taskId,
            contextId,
            artifact: numbered,
            lastChunk: true,
          }),
        ));
      }
      if (last.status.state === "TASK_STATE_COMPLETED") {
        agent.conversations.record(conversationKey(request), {
          base: state,
          newBase: state !== undefined || conversation === undefined,
          brief,
          answer: artifactText(last, "result"),
          patch: artifactText(last, "changes.patch") || undefined,
          harness: last.metadata.observal.harness,
          sessionId: last.metadata.observal.childSessionId,
        });
      }
      const goesOn = last.status.state === "TASK_STATE_COMPLETED" && !canceled.signal.aborted &&
        !line.canceled && !closing;
      if (goesOn && line.queue.length > 0) {
        bus.publish(ownStatusEvent(
          taskId,
          contextId,
          "TASK_STATE_WORKING",
          `Run ${n} has ended (its answer and patch are artifacts); the next message's run follows.`,
        ));
        handsOn = lines.handOn(line);
        return;
      }
      bus.publish(statusEvent(taskId, contextId, last));
      bus.finished();
    } finally {
      if (!handsOn) lines.close(line);
      running.delete(taskId);
      cancels.delete(taskId);
      release();
      // The run is final: its copy is gone, and nothing reads the tree it was made from.
      if (rebuilt) rmSync(rebuilt, { recursive: true, force: true });
    }
  }

  return {
    execute,
    async cancelTask(taskId: string, _bus: ExecutionEventBus): Promise<void> {
      // The run's own loop publishes the final state; here the cancel is only asked for.
      const line = lines.get(taskId);
      if (line) line.canceled = true;
      cancels.get(taskId)?.abort();
      const id = running.get(taskId);
      if (id) await service.cancel(id, { signal: agent.signal }).catch(() => {});
    },
    admitFollowUp(taskId: string, messageId: string): (() => void) | string {
      return lines.admit(taskId, messageId);
    },
    keepsBus(taskId: string): boolean {
      return lines.owes(taskId) || (executing.get(taskId) ?? 0) > 0;
    },
    async cancelAll(): Promise<void> {
      // Nothing new starts, the line is turned away, then the runs going are canceled and
      // waited for: none is left running for nobody.
      closing = true;
      slots.close();
      await Promise.all(
        [...running.values()].map((id) => service.cancel(id).catch(() => {})),
      );
      await Promise.allSettled([...active]);
    },
  };
}
