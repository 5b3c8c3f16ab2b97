/**
 * The narrow door to A2A Tasks: their states, parts, messages and artifacts, and the
 * observal metadata they carry. It loads zod and nothing else of lib/a2a (cards, tokens,
 * normalisation of remote answers), which costs about 30 ms more at start-up: the task store
 * and `delegate list` go through this door.
 * @module
 */
export * from "../task.ts";
