/**
 * The registry client and the registry's wire shapes.
 * @module
 */
export * from "./schemas.ts";
export { RegistryClient, type RegistryClientOptions, type Transport } from "./client.ts";
export { openRegistryClient, type OpenClientOptions } from "./open.ts";
