/**
 * The narrow door to what every command touches of its process and its files (host.ts:
 * environment, standard streams, a few file calls, timers, signals) and to path handling
 * (paths.ts). It loads nothing else, so the start-up paths that import it stay light; the
 * full door, `../mod.ts`, also loads the configuration and its schema.
 * @module
 */
export * from "../host.ts";
export * from "../paths.ts";
export * from "../piped_program.ts";
export * from "../local_socket.ts";
