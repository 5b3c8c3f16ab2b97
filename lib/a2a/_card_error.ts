import { ObservalError, type ObservalErrorOptions } from "../core/mod.ts";

/** An `INVALID_AGENT_CARD` error (422 on the registry, exit 7 on the command line). */
export function cardError(message: string, options: ObservalErrorOptions = {}): ObservalError {
  return new ObservalError("INVALID_AGENT_CARD", message, options);
}
