/**
 * Network addresses, the light door: IP and CIDR parsing and the cloud metadata host check,
 * with no HTTP client and no resolver. The registry validates its settings and reads client
 * addresses through it without loading `node:http`, `node:https` and `node:dns`.
 *
 * @example
 * ```ts
 * import { ipInRange, parseIpAddress, parseIpRange } from "./mod.ts";
 *
 * ipInRange(parseIpAddress("10.1.2.3")!, parseIpRange("10.0.0.0/8")!); // true
 * ```
 * @module
 */
export { isMetadataHost } from "../check_endpoint_url.ts";
export {
  type IpGroups,
  ipInRange,
  type IpRange,
  isMappedIpv4,
  parseIpAddress,
  parseIpRange,
} from "../ip_range.ts";
