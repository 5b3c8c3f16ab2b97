/** Limits of delegated runs, shared by the service (which records them) and the workers. */

/** Default for OBSERVAL_DELEGATION_MAX_DEPTH. */
export const DEFAULT_MAX_DEPTH = 2;

/** Longest a local run may take unless the caller says otherwise (30 minutes). */
export const LOCAL_TIMEOUT_SECONDS = 30 * 60;
