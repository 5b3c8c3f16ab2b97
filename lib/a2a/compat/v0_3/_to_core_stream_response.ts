/** A v1.0 `StreamResponse`: exactly one member names what the payload is. */
export type CoreStreamResponse =
  | { task: Record<string, unknown> }
  | { message: Record<string, unknown> }
  | { statusUpdate: Record<string, unknown> }
  | { artifactUpdate: Record<string, unknown> };

const KINDS = {
  "task": "task",
  "message": "message",
  "status-update": "statusUpdate",
  "artifact-update": "artifactUpdate",
} as const;

/**
 * A v0.3 result tagged with `kind` (`task`, `message`, `status-update`,
 * `artifact-update`) wrapped the v1.0 way, under the member that names it. Returns
 * `undefined` when the value carries no known `kind`, so the caller can try v1.0 forms.
 */
export function toCoreStreamResponse(
  value: Record<string, unknown>,
): CoreStreamResponse | undefined {
  const kind = typeof value.kind === "string" ? value.kind.trim().toLowerCase() : "";
  if (!Object.hasOwn(KINDS, kind)) return undefined;
  const member = KINDS[kind as keyof typeof KINDS];
  return { [member]: value } as CoreStreamResponse;
}
