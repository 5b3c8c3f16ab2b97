/**
 * What a served Agent remembers of a conversation (an A2A `contextId`), so that a
 * follow-up message continues on top of the earlier runs' changes, in the harness session
 * the last run left where the harness can resume it: the tree the first run started from
 * (the caller's repository state, when it sent one) and each run's brief, answer, patch,
 * harness and session. Kept on disk under the server's private folder, bounded in number
 * and in age; a restarted server starts with none.
 * @module
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { WireRepoState } from "../a2a/mod.ts";

/** Conversations kept by default; past that the least recently used is forgotten. */
export const MAX_CONVERSATIONS = 64;
/**
 * Most runs one conversation carries: the next message starts a new conversation (its run
 * starts afresh, and its status says so).
 */
export const MAX_TURNS = 20;
/** How much of each earlier brief and answer the next brief repeats. */
const RECALL_CHARS = 4000;

/** One earlier run of a conversation. */
export interface Turn {
  brief: string;
  answer: string;
  /** Its patch's file, when it changed anything. */
  patch?: string;
  /** The harness it ran in, and the session it left there. */
  harness?: string;
  sessionId?: string;
}

/** A conversation as remembered. */
export interface Conversation {
  /**
   * Reads the state its first run started from (absent: the served repository, or
   * nothing); its bytes stay on disk between runs.
   */
  base?: () => WireRepoState;
  turns: Turn[];
}

/** A state as kept: its bytes in files. */
interface SavedState {
  head?: string;
  path: string;
  bundle?: string;
  changes?: string;
}

interface Kept {
  folder: string;
  base?: SavedState;
  turns: Turn[];
  usedAt: number;
}

/** The conversations of one server. */
export class Conversations {
  readonly #kept = new Map<string, Kept>();

  /**
   * @param dir a private folder for them (created when first needed)
   * @param ttlMs how long one unused is kept
   * @param max how many are kept
   * @param now the clock (ms)
   * @param maxTurns most runs one carries
   */
  constructor(
    readonly dir: string,
    readonly ttlMs: number,
    readonly max = MAX_CONVERSATIONS,
    readonly now: () => number = Date.now,
    readonly maxTurns = MAX_TURNS,
  ) {}

  /** Whether a conversation has carried all the runs it may: the next one starts afresh. */
  full(conversation: Conversation): boolean {
    return conversation.turns.length >= this.maxTurns;
  }

  /** The conversation `contextId` names, if it is remembered. */
  get(contextId: string): Conversation | undefined {
    this.#expire();
    const kept = this.#kept.get(contextId);
    if (!kept) return undefined;
    kept.usedAt = this.now();
    const base = kept.base;
    return { base: base && (() => readState(base)), turns: kept.turns };
  }

  /**
   * Records a finished run of `contextId`. The first run (or one that sent a new state:
   * `newBase`) sets the base, `base` (none: the served repository); its patch, if any, is
   * kept for the runs that follow.
   */
  record(
    contextId: string,
    run: {
      base?: WireRepoState;
      newBase: boolean;
      brief: string;
      answer: string;
      patch?: string;
      harness?: string;
      sessionId?: string;
    },
  ): void {
    this.#expire();
    let kept = this.#kept.get(contextId);
    // A full one is never cut short (dropping its first run would drop that run's patch from
    // the tree the next starts from), nor added to by a run that began before it filled.
    if (kept && !run.newBase && kept.turns.length >= this.maxTurns) return;
    if (!kept || run.newBase) {
      if (kept) rmSync(kept.folder, { recursive: true, force: true });
      const folder = join(this.dir, `conversation-${crypto.randomUUID()}`);
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      kept = { folder, base: run.base && saved(folder, run.base), turns: [], usedAt: 0 };
      this.#kept.set(contextId, kept);
    }
    const turn: Turn = {
      brief: run.brief.slice(0, RECALL_CHARS),
      answer: run.answer.slice(0, RECALL_CHARS),
      harness: run.harness,
      sessionId: run.sessionId,
    };
    if (run.patch) {
      turn.patch = join(kept.folder, `run-${crypto.randomUUID()}.diff`);
      writeFileSync(turn.patch, run.patch, { mode: 0o600 });
    }
    kept.turns.push(turn);
    kept.usedAt = this.now();
    // Most recently used last, so the first is the one to forget.
    this.#kept.delete(contextId);
    this.#kept.set(contextId, kept);
    while (this.#kept.size > this.max) this.#forget(this.#kept.keys().next().value!);
  }

  /** Forgets every conversation (the server is stopping). */
  clear(): void {
    for (const id of [...this.#kept.keys()]) this.#forget(id);
  }

  #expire(): void {
    const cutoff = this.now() - this.ttlMs;
    for (const [id, kept] of this.#kept) if (kept.usedAt < cutoff) this.#forget(id);
  }

  #forget(contextId: string): void {
    const kept = this.#kept.get(contextId);
    this.#kept.delete(contextId);
    if (kept) rmSync(kept.folder, { recursive: true, force: true });
  }
}

/** `state` with its bytes written to files in `folder`. */
function saved(folder: string, state: WireRepoState): SavedState {
  const out: SavedState = { path: state.path, head: state.head };
  const keep = (name: string, bytes: Uint8Array) => {
    const file = join(folder, name);
    writeFileSync(file, bytes, { mode: 0o600 });
    return file;
  };
  if (state.bundle) out.bundle = keep("base.bundle", state.bundle);
  if (state.changes) out.changes = keep("base.patch", state.changes);
  return out;
}

/** A kept state, read back. */
function readState(kept: SavedState): WireRepoState {
  const state: WireRepoState = { path: kept.path };
  if (kept.head) state.head = kept.head;
  if (kept.bundle) state.bundle = readFileSync(kept.bundle);
  if (kept.changes) state.changes = readFileSync(kept.changes);
  return state;
}

/**
 * The brief a follow-up run gets: what was asked and answered before (the changes are
 * already in its tree), then the new message.
 */
export function followUpBrief(turns: readonly Turn[], brief: string): string {
  const earlier = turns.map((t, i) =>
    `Earlier request ${i + 1}:\n${t.brief}\n\nYour answer then:\n${t.answer || "(none)"}`
  ).join("\n\n");
  return `This continues an earlier conversation. The changes you made then are already in ` +
    `the working tree.\n\n${earlier}\n\nThe new request:\n${brief}`;
}

/**
 * The brief a follow-up run gets when it resumes the harness's session: the new message
 * only, since the session holds the earlier requests and answers in full; and where its
 * files are, since each run works in a new copy (at a new path).
 *
 * @param stateSent whether the message sent a repository state of its own
 */
export function resumedBrief(brief: string, stateSent: boolean): string {
  const tree = stateSent
    ? "The working directory now holds the repository as the caller sent it with this " +
      "message, which may differ from where you left it."
    : "The working directory is a new copy, perhaps at a new path: use its files, not " +
      "the earlier paths. The changes you made before are already in it.";
  return `This continues our conversation. ${tree}\n\nThe new request:\n${brief}`;
}
