/**
 * Processes: finding programs on PATH, running a child in its own group with capped
 * output, proving a pid is still the process we started, and stopping a process group.
 * @module
 */
export * from "./find_executable.ts";
export * from "./process_identity.ts";
export * from "./kill_group.ts";
export * from "./spawn_child.ts";
export * from "./processes_in.ts";
