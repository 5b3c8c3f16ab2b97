/**
 * The narrow door to which harnesses can run a registry Agent on this machine. `registry
 * search` and `find_agents` ask it for every page of results; it loads the harness facts and
 * executable lookup, not the delegation service, workspaces or runners.
 * @module
 */
export * from "../harness_choice.ts";
