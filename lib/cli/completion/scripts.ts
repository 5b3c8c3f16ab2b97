/**
 * Completion scripts for bash, zsh and fish, written from the {@linkcode NodeSpec}s of the
 * command tree. Each script finds the command typed so far (words that name a subcommand,
 * skipping flags and the values of flags that take one), then offers its subcommands, its
 * flags after `-`, or a flag's values after a flag that takes a fixed set.
 * @module
 */
import type { FlagSpec, NodeSpec } from "./spec.ts";

/** The shells a script is written for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = typeof SHELLS[number];

/** A word in single quotes, for any of the three shells (fish reads `\'` inside them). */
function quoted(text: string, shell: Shell): string {
  return shell === "fish"
    ? `'${text.replace(/[\\']/g, (c) => `\\${c}`)}'`
    : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A flag's spellings: `--name`, and `-x` when it has a short form. */
function spellings(f: FlagSpec): string[] {
  return f.short ? [`--${f.long}`, `-${f.short}`] : [`--${f.long}`];
}

/** One line of a help text, without tabs or line breaks (for descriptions). */
function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

/**
 * Shell functions (bash and zsh read the same syntax here) that answer, for a command path
 * ("" for the root, "delegate run"), its subcommands, its flags, its flags that take a
 * value, and (for "PATH|FLAG") a flag's values.
 */
function lookupFunctions(nodes: NodeSpec[]): string {
  const fn = (name: string, cases: Array<[string, string[]]>) =>
    [
      `_observal_${name}() {`,
      `  case "$1" in`,
      ...cases.filter(([, words]) => words.length).map(([key, words]) =>
        `    ${quoted(key, "bash")}) echo ${quoted(words.join(" "), "bash")} ;;`
      ),
      `  esac`,
      `}`,
    ].join("\n");
  const key = (n: NodeSpec) => n.path.join(" ");
  return [
    fn("subcommands", nodes.map((n) => [key(n), n.subcommands.map((c) => c.name)])),
    fn("flags", nodes.map((n) => [key(n), n.flags.flatMap(spellings)])),
    fn(
      "valued",
      nodes.map((n) => [key(n), n.flags.filter((f) => f.valued).flatMap(spellings)]),
    ),
    fn(
      "choices",
      nodes.flatMap((n) =>
        n.flags.flatMap((f) => spellings(f).map((s) => [`${key(n)}|${s}`, f.choices]))
      ) as Array<[string, string[]]>,
    ),
  ].join("\n\n");
}

/** The loop both bash and zsh run over the words before the cursor to find the command. */
function findCommand(words: string, first: number, last: string): string {
  return `  local cmd="" word skip="" i
  for ((i = ${first}; i < ${last}; i++)); do
    word="\${${words}[i]}"
    if [[ -n $skip ]]; then skip=""; continue; fi
    if [[ $word == -* ]]; then
      if [[ $word != *=* && " $(_observal_valued "$cmd") " == *" $word "* ]]; then skip=1; fi
      continue
    fi
    if [[ " $(_observal_subcommands "$cmd") " == *" $word "* ]]; then cmd="\${cmd:+$cmd }$word"; fi
  done`;
}

function bash(nodes: NodeSpec[]): string {
  return `# bash completion for observal, written by \`observal completion bash\`.
${lookupFunctions(nodes)}

_observal() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" choices
${findCommand("COMP_WORDS", 1, "COMP_CWORD")}
  COMPREPLY=()
  # --flag=value: bash splits the word at "=".
  if [[ $prev == "=" && $COMP_CWORD -ge 2 ]]; then
    prev="\${COMP_WORDS[COMP_CWORD-2]}"
    skip=1
  fi
  if [[ -n $skip ]]; then
    choices="$(_observal_choices "$cmd|$prev")"
    if [[ -n $choices ]]; then
      mapfile -t COMPREPLY < <(compgen -W "$choices" -- "$cur")
    else
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    fi
    return 0
  fi
  if [[ $cur == -* ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$(_observal_flags "$cmd")" -- "$cur")
    return 0
  fi
  choices="$(_observal_subcommands "$cmd")"
  if [[ -n $choices ]]; then
    mapfile -t COMPREPLY < <(compgen -W "$choices" -- "$cur")
  else
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
  fi
  return 0
}

complete -F _observal observal
`;
}

function zsh(nodes: NodeSpec[]): string {
  const summaries = nodes.filter((n) => n.subcommands.length).map((n) =>
    `    ${quoted(n.path.join(" "), "zsh")}) print -rl -- ${
      n.subcommands.map((c) => quoted(`${c.name} -- ${oneLine(c.summary)}`, "zsh")).join(" ")
    } ;;`
  );
  return `#compdef observal
# zsh completion for observal, written by \`observal completion zsh\`.
${lookupFunctions(nodes)}

_observal_summaries() {
  case "$1" in
${summaries.join("\n")}
  esac
}

_observal() {
  local cur="\${words[CURRENT]}" prev="\${words[CURRENT-1]}"
  local -a found descriptions
${findCommand("words", 2, "CURRENT")}
  if [[ -n $skip ]]; then
    found=(\${=$(_observal_choices "$cmd|$prev")})
    if (( \${#found} )); then compadd -- "\${found[@]}"; else _files; fi
    return
  fi
  if [[ $cur == --*=* ]]; then
    found=(\${=$(_observal_choices "$cmd|\${cur%%=*}")})
    compadd -P "\${cur%%=*}=" -- "\${found[@]}"
    return
  fi
  if [[ $cur == -* ]]; then
    found=(\${=$(_observal_flags "$cmd")})
    compadd -- "\${found[@]}"
    return
  fi
  found=(\${=$(_observal_subcommands "$cmd")})
  if (( \${#found} )); then
    descriptions=("\${(@f)$(_observal_summaries "$cmd")}")
    compadd -l -d descriptions -- "\${found[@]}"
  else
    _files
  fi
}

# Loaded from $fpath by compinit, the file's body is the completion function; sourced, it
# registers one.
if [[ \${zsh_eval_context[-1]} == loadautofunc ]]; then
  _observal "$@"
else
  compdef _observal observal
fi
`;
}

function fish(nodes: NodeSpec[]): string {
  const list = (name: string, items: string[]) =>
    `set -g ${name} ${items.map((i) => quoted(i, "fish")).join(" ")}`;
  const subs = nodes.flatMap((n) => n.subcommands.map((c) => `${n.path.join(" ")}|${c.name}`));
  const valued = nodes.flatMap((n) =>
    n.flags.filter((f) => f.valued).flatMap((f) =>
      spellings(f).map((s) => `${n.path.join(" ")}|${s}`)
    )
  );
  const lines: string[] = [];
  for (const n of nodes) {
    const at = `-n ${quoted(`__observal_at ${quoted(n.path.join(" "), "fish")}`, "fish")}`;
    for (const c of n.subcommands) {
      lines.push(
        `complete -c observal ${at} -a ${quoted(c.name, "fish")} -d ${
          quoted(oneLine(c.summary), "fish")
        }`,
      );
    }
    for (const f of n.flags) {
      const parts = [`complete -c observal ${at} -l ${f.long}`];
      if (f.short) parts.push(`-s ${f.short}`);
      if (f.valued) {
        parts.push(f.choices.length ? `-x -a ${quoted(f.choices.join(" "), "fish")}` : "-r");
      }
      parts.push(`-d ${quoted(oneLine(f.description), "fish")}`);
      lines.push(parts.join(" "));
    }
  }
  return `# fish completion for observal, written by \`observal completion fish\`.
${list("__observal_subcommands", subs)}
${list("__observal_valued", valued)}

# The command typed so far ("" for none, "delegate run"): words naming a subcommand, past
# flags and the values of flags that take one.
function __observal_command
    set -l cmd ''
    set -l skip 0
    for word in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        if string match -q -- '-*' $word
            if not string match -q -- '*=*' $word; and contains -- "$cmd|$word" $__observal_valued
                set skip 1
            end
            continue
        end
        if contains -- "$cmd|$word" $__observal_subcommands
            if test -z "$cmd"
                set cmd $word
            else
                set cmd "$cmd $word"
            end
        end
    end
    echo $cmd
end

function __observal_at
    set -l cmd (__observal_command)
    test "$cmd" = "$argv[1]"
end

complete -c observal -f
${lines.join("\n")}
`;
}

/** The completion script for `shell`. */
export function completionScript(shell: Shell, nodes: NodeSpec[]): string {
  return shell === "bash" ? bash(nodes) : shell === "zsh" ? zsh(nodes) : fish(nodes);
}
