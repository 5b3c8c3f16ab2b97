/**
 * Usage records that stay on this machine until a session upload picks them up.
 * @module
 */
export * from "./capability_lock.ts";
