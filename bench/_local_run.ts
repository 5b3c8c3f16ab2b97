/**
 * What the local-run benches share: the `--runs` flag, the stand-in harness and medians.
 * @module
 */
import process from "node:process";
import { parseArgs } from "node:util";

/** Rounds to run: `--runs N`, 9 by default. */
export function runsFlag(): number {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { runs: { type: "string", default: "9" } },
  });
  return Number(values.runs);
}

/** Edits the copy and prints Claude's JSON result, as `claude -p` would. */
export const STAND_IN = `#!/bin/sh
cat > /dev/null
printf 'edited\\n' >> edit.txt
printf '{"type":"result","result":"Done.","is_error":false,"session_id":"s"}\\n'
`;

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
