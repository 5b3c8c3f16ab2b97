/**
 * The registry client and the registry's wire shapes. The client takes its transport from
 * whoever builds it: HTTP to an Observal server, or the embedded registry in this
 * process (the CLI sets that up; this folder never loads the server).
 * @module
 */
export * from "./schemas.ts";
export {
  type EntryKind,
  entryKind,
  httpTransport,
  type RegistryAnswer,
  type RegistryCall,
  RegistryClient,
  type RegistryClientOptions,
  type Transport,
} from "./client.ts";
export { type PinnedEndpoint, pinnedEndpoint } from "./pinned_endpoint.ts";
