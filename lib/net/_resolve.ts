/**
 * Resolves a name to every address the system resolver knows, in its own order. node:dns
 * loads on the first call: an IP address is never resolved, and under Deno loading it
 * starts the Node layer.
 */
export async function systemResolve(hostname: string): Promise<string[]> {
  const { lookup } = await import("node:dns/promises");
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}
