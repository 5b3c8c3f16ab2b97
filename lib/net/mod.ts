/**
 * Safe fetching of URLs that come from outside (A2A Agent Cards, signing keys, remote
 * agent endpoints): URL normalisation, SSRF checks on host names and every resolved
 * address ({@linkcode pinAddress}), a connection pinned to the checked address, no
 * redirects, and size and time limits.
 *
 * @example
 * ```ts ignore
 * import { normalizeCardUrl, safeFetchJson } from "./mod.ts";
 * const { json } = await safeFetchJson(normalizeCardUrl("https://agents.example.com"), {
 *   allowPrivateHosts: settings.a2aPrivateHosts,
 *   label: "Agent Card",
 * });
 * ```
 * @module
 */
export { normalizeCardUrl } from "./normalize_card_url.ts";
export { isBlockedAddress } from "./is_blocked_address.ts";
export { isBlockedHostname } from "./is_blocked_hostname.ts";
export { safeFetch, type SafeFetchOptions, type SafeResponse } from "./safe_fetch.ts";
export { safeFetchJson, type SafeJson } from "./safe_fetch_json.ts";
export { safeFetchCardJson } from "./safe_fetch_card_json.ts";
export { checkEndpointUrl, type CheckEndpointUrlOptions } from "./check_endpoint_url.ts";
// IP and CIDR parsing and the metadata host check, also behind their own light door.
export * from "./addresses/mod.ts";
export type { PinnedRequest, RawResponse, Requester } from "./requester.ts";
export { nodeRequest } from "./node_request.ts";
export { hostRequest } from "./host_request.ts";
export { pinAddress, type PinAddressOptions, type Resolve } from "./pin_address.ts";
export { resolveWithOverrides } from "./resolve_with_overrides.ts";
