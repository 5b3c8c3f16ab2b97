/** Opens the registry client for a command and always closes it. */
import type { Context } from "../../core/mod.ts";
import { openRegistryClient, type RegistryClient } from "../../registry/mod.ts";

export async function withClient<T>(
  ctx: Context,
  fn: (client: RegistryClient) => Promise<T>,
): Promise<T> {
  const client = openRegistryClient(ctx);
  try {
    return await fn(client);
  } finally {
    client.close();
  }
}

/** Shortens long text for a table cell. */
export function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
