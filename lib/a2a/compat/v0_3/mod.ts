/**
 * A2A v0.3 → v1.0 translators for what remote agents send back: task states, parts,
 * messages, artifacts and `kind`-tagged results. Used by `../../normalize.ts`; the rest
 * of observal only ever sees the v1.0 forms. See README.md for the lossy choices.
 * @module
 */
export { toCoreState } from "./_to_core_state.ts";
export { toCorePart } from "./_to_core_part.ts";
export { toCoreArtifact, toCoreMessage, toCoreParts } from "./_to_core_message.ts";
export { type CoreStreamResponse, toCoreStreamResponse } from "./_to_core_stream_response.ts";
