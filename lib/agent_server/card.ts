/**
 * The Agent Card a served registry Agent publishes, made from its approved registry entry:
 * the A2A v1.0 card, and for clients that ask without `A2A-Version` (v0.3 clients) the
 * same card with v0.3's top-level fields added, as dual-version servers serve it.
 * @module
 */
import { MAX_REPO_STATE_BYTES, REPO_STATE_EXTENSION, type RepoStateParams } from "../a2a/mod.ts";
import type { EntryDocument } from "../registry/mod.ts";

/** The media type of the `changes.patch` artifact. */
export const PATCH_MEDIA_TYPE = "text/x-diff";

/** What the card says beyond the entry. */
export interface CardOptions {
  /** The JSON-RPC endpoint (both protocol versions answer there). */
  rpcUrl: string;
  /** Who provides the agent: the registry it was approved in, or this server. */
  providerUrl: string;
  /** Callers must send `Authorization: Bearer <token>`. */
  bearer?: boolean;
  /** Runs start from a repository of the server's (`--repo`), not an empty folder. */
  repository: boolean;
}

/** The name the card gives its one security scheme. */
const SCHEME = "bearer";

/** A card's skill id: the entry's name, lower-cased, with anything but [a-z0-9-] as "-". */
function skillId(name: string): string {
  return name.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "") || "agent";
}

/**
 * The v1.0 card (ProtoJSON names) for `entry`.
 *
 * @param entry the registry Agent, as resolved and checked approved
 * @param options where it is served
 * @returns the card as JSON
 */
export function servedCard(entry: EntryDocument, options: CardOptions): Record<string, unknown> {
  const name = entry.displayName ?? entry.identifier;
  const description = entry.description || `${name}, a registry Agent served by observal`;
  const harnesses = entry["obs:supportedHarnesses"] ?? [];
  return {
    name,
    description,
    version: entry.version ?? "0.0.0",
    supportedInterfaces: [
      { url: options.rpcUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: options.rpcUrl, protocolBinding: "JSONRPC", protocolVersion: "0.3" },
    ],
    provider: { organization: "observal", url: options.providerUrl },
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extensions: [repoStateExtension(options.repository)],
    },
    ...options.bearer
      ? {
        securitySchemes: { [SCHEME]: { httpAuthSecurityScheme: { scheme: "Bearer" } } },
        securityRequirements: [{ schemes: { [SCHEME]: { list: [] } } }],
      }
      : {},
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain", PATCH_MEDIA_TYPE],
    skills: [{
      id: skillId(name),
      name,
      description:
        `${description}. It works in a fresh copy of the served repository and answers with ` +
        `a result and, when it changed files, a changes.patch (${PATCH_MEDIA_TYPE}).`,
      tags: ["observal", "registry-agent", ...harnesses],
    }],
  };
}

/** The repository-state extension as the card declares it. */
function repoStateExtension(repository: boolean) {
  const params: RepoStateParams = { maxBytes: MAX_REPO_STATE_BYTES, repository };
  return {
    uri: REPO_STATE_EXTENSION,
    description: "Send your repository (a git bundle of HEAD and your uncommitted work) " +
      "with the brief: the run then works on exactly your tree, and its changes.patch " +
      "applies to it.",
    required: false,
    params,
  };
}

/**
 * The card for a request that names no `A2A-Version` (v0.3 clients): the v1.0 card with
 * v0.3's `url`, `preferredTransport` and `protocolVersion` added. A v1.0 client still
 * reads `supportedInterfaces` from it, as from any such "hybrid" card.
 */
export function hybridCard(card: Record<string, unknown>, rpcUrl: string): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...card,
    protocolVersion: "0.3.0",
    url: rpcUrl,
    preferredTransport: "JSONRPC",
  };
  // v0.3 spells the scheme with a `type`, and the requirement without the wrapper.
  if (card.securitySchemes) {
    delete out.securityRequirements;
    out.securitySchemes = { [SCHEME]: { type: "http", scheme: "bearer" } };
    out.security = [{ [SCHEME]: [] }];
  }
  return out;
}
