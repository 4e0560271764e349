package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// completionCmd prints a completion script for bash or zsh, made from the
// command table and the flags each command registers, so that it never
// drifts from what the command line accepts.
func completionCmd(*flag.FlagSet) func(context.Context, *env, []string) error {
	return func(_ context.Context, e *env, args []string) error {
		if len(args) != 1 {
			return usagef("completion: name one shell: bash or zsh (e.g. source <(skills completion bash))")
		}
		spec := completionSpec()
		switch args[0] {
		case "bash":
			writeBashCompletion(e.stdout, spec)
		case "zsh":
			writeZshCompletion(e.stdout, spec)
		default:
			return usagef("completion: unknown shell %q: bash or zsh", args[0])
		}
		return nil
	}
}

// completionFlag is one flag as completion sees it.
type completionFlag struct {
	name  string
	usage string
	// value is "" for a boolean flag, else what its value is: "dir",
	// "file" or "value" (anything).
	value string
}

// completionCommand is one command with its flags (the global ones included).
type completionCommand struct {
	name, summary string
	flags         []completionFlag
	// args completes the positional arguments: "dir", "shell" or "" (none).
	args string
}

// fileFlags and dirFlags are the flags whose values are paths.
var (
	fileFlags = []string{"config", "queries", "server-ca", "client-cert", "client-key"}
	dirFlags  = []string{"skills-dir"}
)

func completionSpec() []completionCommand {
	var out []completionCommand
	for _, c := range commands() {
		fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
		new(globals).register(fs)
		c.setup(fs)
		cc := completionCommand{name: c.name, summary: c.summary}
		fs.VisitAll(func(f *flag.Flag) {
			cf := completionFlag{name: f.Name, usage: firstLine(f.Usage)}
			if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
				switch {
				case slices.Contains(fileFlags, f.Name):
					cf.value = "file"
				case slices.Contains(dirFlags, f.Name):
					cf.value = "dir"
				default:
					cf.value = "value"
				}
			}
			cc.flags = append(cc.flags, cf)
		})
		sort.Slice(cc.flags, func(i, j int) bool { return cc.flags[i].name < cc.flags[j].name })
		switch c.name {
		case "lint":
			cc.args = "dir"
		case "completion":
			cc.args = "shell"
		case "help":
			cc.args = "command"
		}
		out = append(out, cc)
	}
	return out
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return strings.NewReplacer("`", "", "'", "", "[", "(", "]", ")", ":", " -").Replace(s)
}

func commandNames(spec []completionCommand) []string {
	names := make([]string, len(spec))
	for i, c := range spec {
		names[i] = c.name
	}
	return names
}

// writeBashCompletion writes a bash script: commands, then each command's
// flags, folders and files for the flags that take them.
func writeBashCompletion(w io.Writer, spec []completionCommand) {
	var b strings.Builder
	b.WriteString(`# bash completion for skills; load it with: source <(skills completion bash)
_skills() {
  local cur prev cmd i
  COMPREPLY=()
  cur="${COMP_WORDS[COMP_CWORD]}"
  prev="${COMP_WORDS[COMP_CWORD-1]}"
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "${COMP_WORDS[i]}" in
      -*) ;;
`)
	fmt.Fprintf(&b, "      %s) cmd=\"${COMP_WORDS[i]}\"; break ;;\n", strings.Join(commandNames(spec), "|"))
	b.WriteString(`    esac
  done
  case "$prev" in
`)
	fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -d -- \"$cur\")); return ;;\n", dashed(dirFlags))
	fmt.Fprintf(&b, "    %s) COMPREPLY=($(compgen -f -- \"$cur\")); return ;;\n", dashed(fileFlags))
	var valued []string
	for _, c := range spec {
		for _, f := range c.flags {
			if f.value == "value" && !slices.Contains(valued, f.name) {
				valued = append(valued, f.name)
			}
		}
	}
	sort.Strings(valued)
	fmt.Fprintf(&b, "    %s) return ;;\n", dashed(valued))
	b.WriteString(`  esac
  case "$cmd" in
`)
	fmt.Fprintf(&b, "    \"\") COMPREPLY=($(compgen -W \"%s --version --help\" -- \"$cur\")); return ;;\n", strings.Join(commandNames(spec), " "))
	for _, c := range spec {
		names := make([]string, len(c.flags))
		for i, f := range c.flags {
			names[i] = "--" + f.name
		}
		fmt.Fprintf(&b, "    %s)\n", c.name)
		fmt.Fprintf(&b, "      if [[ \"$cur\" == -* ]]; then COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")); return; fi\n", strings.Join(names, " "))
		switch c.args {
		case "dir":
			b.WriteString("      COMPREPLY=($(compgen -d -- \"$cur\")) ;;\n")
		case "shell":
			b.WriteString("      COMPREPLY=($(compgen -W \"bash zsh\" -- \"$cur\")) ;;\n")
		case "command":
			fmt.Fprintf(&b, "      COMPREPLY=($(compgen -W \"%s\" -- \"$cur\")) ;;\n", strings.Join(commandNames(spec), " "))
		default:
			b.WriteString("      ;;\n")
		}
	}
	b.WriteString(`  esac
}
complete -F _skills skills
`)
	_, _ = io.WriteString(w, b.String())
}

func dashed(names []string) string {
	out := make([]string, 0, 2*len(names))
	for _, n := range names {
		out = append(out, "--"+n, "-"+n)
	}
	return strings.Join(out, "|")
}

// writeZshCompletion writes a zsh script (compsys): commands with their
// summaries, then each command's flags with their help.
func writeZshCompletion(w io.Writer, spec []completionCommand) {
	var b strings.Builder
	b.WriteString(`#compdef skills
# zsh completion for skills; load it with: source <(skills completion zsh)
# (or save it as _skills in a folder of $fpath)
_skills() {
  local curcontext="$curcontext" state line
  typeset -A opt_args
  local -a commands
  commands=(
`)
	for _, c := range spec {
		fmt.Fprintf(&b, "    '%s:%s'\n", c.name, zshQuote(c.summary))
	}
	b.WriteString(`  )
  _arguments -C '--version[print the version]' '1: :->command' '*:: :->args'
  case $state in
    command) _describe -t commands 'skills command' commands ;;
    args)
      case $line[1] in
`)
	for _, c := range spec {
		fmt.Fprintf(&b, "        %s)\n          _arguments", c.name)
		for _, f := range c.flags {
			spec := fmt.Sprintf("--%s[%s]", f.name, zshQuote(f.usage))
			switch f.value {
			case "dir":
				spec += ":folder:_files -/"
			case "file":
				spec += ":file:_files"
			case "value":
				spec += ":" + f.name + ": "
			}
			fmt.Fprintf(&b, " \\\n            '%s'", spec)
		}
		switch c.args {
		case "dir":
			b.WriteString(" \\\n            '*:folder:_files -/'")
		case "shell":
			b.WriteString(" \\\n            '1:shell:(bash zsh)'")
		case "command":
			fmt.Fprintf(&b, " \\\n            '1:command:(%s)'", strings.Join(commandNames(spec), " "))
		}
		b.WriteString(" ;;\n")
	}
	b.WriteString(`      esac ;;
  esac
}
`)
	// Loaded from $fpath, the file is the function; sourced, it registers it.
	b.WriteString("if [ \"$funcstack[1]\" = \"_skills\" ]; then _skills \"$@\"; else compdef _skills skills; fi\n")
	_, _ = io.WriteString(w, b.String())
}

// zshQuote makes s safe inside a single-quoted zsh spec.
func zshQuote(s string) string {
	return strings.NewReplacer("'", "", ":", " -", "[", "(", "]", ")").Replace(s)
}
