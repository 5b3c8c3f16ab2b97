/**
 * A2A for observal, the heavy door: the JSON-RPC client for remote agents (reached through
 * the SSRF gate of lib/net, with the card's credentials) and the loop that follows a remote
 * task to its end. Only the worker that runs a remote task, and a cancel that must tell the
 * agent, need it; everything else imports the light door, `../mod.ts`. Card signatures are
 * checked through the light door, which loads jose and the A2A SDK on the first check.
 *
 * @example
 * ```ts ignore
 * import { createRemoteClient, followRemoteTask } from "./mod.ts";
 *
 * const client = createRemoteClient({ iface, card, env, allowPrivateHosts: [] });
 * const last = await followRemoteTask({
 *   client,
 *   input: { text: "Summarise the release notes" },
 *   timeoutMs: 60_000,
 *   clock: systemClock,
 *   onSnapshot: (snapshot) => console.log(snapshot.state),
 * });
 * ```
 * @module
 */
export * from "./remote_client.ts";
export * from "./follow_task.ts";
export * from "./remote_rpc_error.ts";
export * from "./remote_errors.ts";
export { CARD_SIGNATURE_ALGORITHMS } from "../card_signature_algorithms.ts";
