/**
 * The resident runner: a warm process that runs the `delegate run` commands of callers
 * identical to the one that started it (see runner.ts and identity.ts). This is the full
 * door; `client.ts` is the narrow one a command loads before the CLI, to look for a runner.
 * @module
 */
export { type ResidentOptions, serveResident } from "./runner.ts";
export { startResident } from "./start.ts";
export {
  RESIDENT_MODES,
  type ResidentPlace,
  residentPlace,
  residentRefusal,
  runsFromSource,
} from "./identity.ts";
