/**
 * The registry client and the registry's wire shapes.
 * @module
 */
export * from "./schemas.ts";
export { RegistryClient, type RegistryClientOptions, type Transport } from "./client.ts";
export { type OpenClientOptions, openRegistryClient } from "./open.ts";
