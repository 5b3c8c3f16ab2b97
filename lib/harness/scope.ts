/**
 * Where an agent is installed. Kept apart from the harness registry so the wire schema of
 * an install (and the registry client that reads it) does not load the registry's facts.
 * @module
 */
import { z } from "zod";

/** Where an agent is installed: the project directory or the user's home. */
export const ScopeSchema = z.enum(["project", "user"]);
/** Where an agent is installed: the project directory or the user's home. */
export type Scope = z.infer<typeof ScopeSchema>;
