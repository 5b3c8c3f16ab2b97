/**
 * Task states as people read and type them. The wire names (`TASK_STATE_INPUT_REQUIRED`)
 * stay in JSON; everything printed for people, errors included, says `input required`;
 * flags take `input-required` (lib/a2a's `stateLabel`).
 * @module
 */
import { stateLabel, TASK_STATES, type TaskState } from "../a2a/tasks/mod.ts";

/** The states by the words `--state` takes: `submitted`, ..., `input-required`, ... */
export const STATE_NAMES: readonly string[] = TASK_STATES.map(stateLabel);

/**
 * A state in words, for sentences and tables: `TASK_STATE_INPUT_REQUIRED` → `input required`.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stateWords } from "./state_words.ts";
 *
 * assert.equal(stateWords("TASK_STATE_INPUT_REQUIRED"), "input required");
 * assert.equal(stateWords("TASK_STATE_COMPLETED"), "completed");
 * ```
 */
export function stateWords(state: TaskState): string {
  return stateLabel(state).replace(/-/g, " ");
}

/**
 * The state a flag's word stands for (`input-required` → `TASK_STATE_INPUT_REQUIRED`), or
 * undefined for a word that names no state.
 *
 * @example
 * ```ts
 * import assert from "node:assert/strict";
 * import { stateFromName } from "./state_words.ts";
 *
 * assert.equal(stateFromName("working"), "TASK_STATE_WORKING");
 * assert.equal(stateFromName("done"), undefined);
 * ```
 */
export function stateFromName(name: string): TaskState | undefined {
  return TASK_STATES.find((s) => stateLabel(s) === name);
}
