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
	b.WriteString("# bash completion for skills; load it with: source <(skills completion bash)\n")
	b.WriteString("_skills() {\n")
	b.WriteString("  local cur prev cmd i\n")
	b.WriteString("  COMPREPLY=()\n")
	b.WriteString("  cur=\"${COMP_WORDS[COMP_CWORD]}\"\n")
	b.WriteString("  prev=\"${COMP_WORDS[COMP_CWORD-1]}\"\n")
	b.WriteString("  for ((i = 1; i < COMP_CWORD; i++)); do\n")
	b.WriteString("    case \"${COMP_WORDS[i]}\" in\n")
	b.WriteString("      -*) ;;\n")
	fmt.Fprintf(&b, "      %s) cmd=\"${COMP_WORDS[i]}\"; break ;;\n", strings.Join(commandNames(spec), "|"))
	b.WriteString("    esac\n")
	b.WriteString("  done\n")
	b.WriteString("  case \"$prev\" in\n")
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
	b.WriteString("  esac\n")
	b.WriteString("  case \"$cmd\" in\n")
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
	b.WriteString("  esac\n")
	b.WriteString("}\n")
	b.WriteString("complete -F _skills skills\n")
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
	b.WriteString("#compdef skills\n")
	b.WriteString("# zsh completion for skills; load it with: source <(skills completion zsh)\n")
	b.WriteString("# (or save it as _skills in a folder of $fpath)\n")
	b.WriteString("_skills() {\n")
	b.WriteString("  local curcontext=\"$curcontext\" state line\n")
	b.WriteString("  typeset -A opt_args\n")
	b.WriteString("  local -a commands\n")
	b.WriteString("  commands=(\n")
	for _, c := range spec {
		fmt.Fprintf(&b, "    '%s:%s'\n", c.name, zshQuote(c.summary))
	}
	b.WriteString("  )\n")
	b.WriteString("  _arguments -C '--version[print the version]' '1: :->command' '*:: :->args'\n")
	b.WriteString("  case $state in\n")
	b.WriteString("    command) _describe -t commands 'skills command' commands ;;\n")
	b.WriteString("    args)\n")
	b.WriteString("      case $line[1] in\n")
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
	b.WriteString("      esac ;;\n")
	b.WriteString("  esac\n")
	b.WriteString("}\n")
	// Loaded from $fpath, the file is the function; sourced, it registers it.
	b.WriteString("if [ \"$funcstack[1]\" = \"_skills\" ]; then _skills \"$@\"; else compdef _skills skills; fi\n")
	_, _ = io.WriteString(w, b.String())
}

// zshQuote makes s safe inside a single-quoted zsh spec.
func zshQuote(s string) string {
	return strings.NewReplacer("'", "", ":", " -", "[", "(", "]", ")").Replace(s)
}
