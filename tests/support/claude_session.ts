/**
 * The start of a stand-in Claude Code (`claude -p --output-format json`) that keeps
 * sessions as Claude does: it reads the brief into `$brief`, takes the session it resumes
 * (`--resume`, also in `$resumed`, else `none`) or starts (`--session-id`) into `$id`, and
 * appends the brief to that session's file, by id under a project folder of its state
 * folder. A test adds what the harness then does and answers.
 */
export const CLAUDE_SESSION_HEAD = `#!/bin/sh
brief="$(cat)"
id=""; resumed=none
while [ $# -gt 0 ]; do
  case "$1" in
    --session-id) id="$2"; shift ;;
    --resume) id="$2"; resumed="$2"; shift ;;
  esac
  shift
done
dir="\${CLAUDE_CONFIG_DIR:-$HOME/.claude}/projects/$(pwd | tr / -)"
mkdir -p "$dir" && printf '%s\\n' "$brief" >> "$dir/$id.jsonl"
`;
