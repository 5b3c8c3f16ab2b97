import type { Artifact, Message, Part } from "../../task.ts";
import { toCorePart } from "./_to_core_part.ts";

/**
 * A message of either version as a v1.0 message: `kind` dropped, role `user` →
 * `ROLE_USER`, anything else → `ROLE_AGENT` (a remote result speaks for the agent), parts
 * normalised. A value that is not an object yields `undefined`.
 */
export function toCoreMessage(value: unknown): Message | undefined {
  if (!isRecord(value)) return undefined;
  const role = typeof value.role === "string" ? value.role.trim().toUpperCase() : "";
  const message: Message = {
    messageId: typeof value.messageId === "string" ? value.messageId : "",
    role: role === "USER" || role === "ROLE_USER" ? "ROLE_USER" : "ROLE_AGENT",
    parts: toCoreParts(value.parts),
  };
  if (typeof value.taskId === "string") message.taskId = value.taskId;
  if (typeof value.contextId === "string") message.contextId = value.contextId;
  if (isRecord(value.metadata)) message.metadata = value.metadata;
  return message;
}

/**
 * An artifact of either version as a v1.0 artifact, parts normalised. One without an
 * `artifactId` is given `fallbackId`; a value that is not an object yields `undefined`.
 */
export function toCoreArtifact(value: unknown, fallbackId: string): Artifact | undefined {
  if (!isRecord(value)) return undefined;
  const artifact: Artifact = {
    artifactId: typeof value.artifactId === "string" && value.artifactId !== ""
      ? value.artifactId
      : fallbackId,
    parts: toCoreParts(value.parts),
  };
  if (typeof value.name === "string") artifact.name = value.name;
  if (typeof value.description === "string") artifact.description = value.description;
  if (isRecord(value.metadata)) artifact.metadata = value.metadata;
  return artifact;
}

/** Parts of either version; entries that are not objects are dropped. */
export function toCoreParts(value: unknown): Part[] {
  if (!Array.isArray(value)) return [];
  return value.map(toCorePart).filter((p): p is Part => p !== undefined);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
