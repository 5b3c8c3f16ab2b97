import { lookup } from "node:dns/promises";

/** Resolves a name to every address the system resolver knows, in its own order. */
export async function systemResolve(hostname: string): Promise<string[]> {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map((answer) => answer.address);
}
