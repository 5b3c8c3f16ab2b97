/**
 * Core pieces every other folder uses: the Context, the error type, the clock and the
 * runtime seam.
 * @module
 */
export * from "./errors.ts";
export * from "./home_faults.ts";
export * from "./clock.ts";
export * from "./context.ts";
export * from "./runtime.ts";
export * from "./host.ts";
export * from "./bytes.ts";
export * from "./version.ts";
export * from "./config.ts";
export * from "./canonical_json.ts";
export * from "./private_file.ts";
