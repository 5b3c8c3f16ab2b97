/** Opens the registry client for a command and always closes it. */
import type { Context } from "../../core/mod.ts";
import type { RegistryClient } from "../../registry/mod.ts";
import { openRegistryClient } from "../open_registry_client.ts";

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

export { clip } from "../clip.ts";
