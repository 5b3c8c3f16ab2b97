/**
 * Usage records that stay on this machine until a session upload picks them up, and the
 * attribution of delegated children's sessions to the agent that ran them.
 * @module
 */
export * from "./capability_lock.ts";
export * from "./session_attribution.ts";
