package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// enum describes a flag that accepts one of a few values: the choices
// shown in --help and offered by completion, and how an accepted string
// becomes the typed value the command reads. Checking the value while the
// command line is parsed makes a typo a usage error (exit 2) before any
// input is read, with the choices in the message.
type enum[T any] struct {
	// choices are the values users are offered. A choice ending in "=N"
	// (deletes-more-than=N) stands for a family of values and is completed
	// as its prefix, "deletes-more-than=".
	choices []string
	// parse returns the typed value of s, or an error when s is not
	// accepted. It may accept more than choices (aliases, other cases).
	parse func(s string) (T, error)
}

// oneOf is the enum of exactly the given values.
func oneOf[T ~string](choices ...T) enum[T] {
	texts := make([]string, len(choices))
	for i, c := range choices {
		texts[i] = string(c)
	}
	return enum[T]{choices: texts, parse: func(s string) (T, error) {
		for _, c := range choices {
			if string(c) == s {
				return c, nil
			}
		}
		return *new(T), fmt.Errorf("unknown value %q", s)
	}}
}

// enumVar defines the flag --name (and -short) on cmd, storing the typed
// value of its argument in *p. def is the default as a user would type it;
// it is always accepted, even when not a choice (why-stuck's "" picks the
// format by what is shown). A def that does not parse is a programming
// error and panics when the command is built, which every test does.
func enumVar[T any](cmd *cobra.Command, p *T, name, short, def string, e enum[T], usage string) {
	v := &enumValue[T]{enum: e, def: def, text: def, store: func(t T) { *p = t }}
	if def != "" {
		t, err := e.parse(def)
		if err != nil {
			panic(fmt.Sprintf("the default of --%s: %v", name, err))
		}
		*p, v.defValue = t, t
	}
	cmd.Flags().VarP(v, name, short, v.usage(usage))
	v.registerCompletion(cmd, name)
}

// enumArrayVar defines the repeatable flag --name on cmd: each occurrence
// appends its typed value to *p.
func enumArrayVar[T any](cmd *cobra.Command, p *[]T, name string, e enum[T], usage string) {
	v := &enumValue[T]{enum: e, repeated: true, store: func(t T) { *p = append(*p, t) }}
	cmd.Flags().Var(v, name, v.usage(usage))
	v.registerCompletion(cmd, name)
}

// enumValue is the pflag.Value behind enumVar and enumArrayVar.
type enumValue[T any] struct {
	enum[T]
	store    func(T)
	repeated bool
	def      string
	defValue T
	text     string   // the last value given, or def
	given    []string // every value given, for a repeated flag
}

func (v *enumValue[T]) Set(s string) error {
	if !v.repeated && s == v.def {
		v.store(v.defValue)
		v.text = s
		return nil
	}
	t, err := v.parse(s)
	if err != nil {
		// A value of a family (deletes-more-than=x) has its own
		// mistake to explain; anything else is a choice mistyped.
		if v.family(s) {
			return err
		}
		return fmt.Errorf("use one of %s", strings.Join(v.choices, ", "))
	}
	v.store(t)
	v.text = s
	if v.repeated {
		v.given = append(v.given, s)
	}
	return nil
}

func (v *enumValue[T]) String() string {
	if !v.repeated {
		return v.text
	}
	// Empty, so that --help shows no default, as for a stringArray.
	if len(v.given) == 0 {
		return ""
	}
	return "[" + strings.Join(v.given, ",") + "]"
}

// Type names the value in --help as pflag's own flags do; cobra's
// completion also reads "Array" in it to offer the flag again.
func (v *enumValue[T]) Type() string {
	if v.repeated {
		return "stringArray"
	}
	return "string"
}

// usage appends the choices, cli/cli style: "output format: {tree|table}".
func (v *enumValue[T]) usage(text string) string {
	return text + ": {" + strings.Join(v.choices, "|") + "}"
}

// family reports whether s belongs to a choice like deletes-more-than=N.
func (v *enumValue[T]) family(s string) bool {
	for _, c := range v.choices {
		if prefix, ok := strings.CutSuffix(c, "=N"); ok && strings.HasPrefix(s, prefix+"=") {
			return true
		}
	}
	return false
}

// completions are the choices that start with toComplete, a family as its
// prefix. When only prefixes are left the shell adds no space, so the
// user types N next.
func (v *enumValue[T]) completions(toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	onlyPrefixes := true
	for _, c := range v.choices {
		if prefix, ok := strings.CutSuffix(c, "=N"); ok {
			c = prefix + "="
		}
		if !strings.HasPrefix(c, toComplete) {
			continue
		}
		out = append(out, c)
		onlyPrefixes = onlyPrefixes && strings.HasSuffix(c, "=")
	}
	directive := cobra.ShellCompDirectiveNoFileComp
	if len(out) > 0 && onlyPrefixes {
		directive |= cobra.ShellCompDirectiveNoSpace
	}
	return out, directive
}

func (v *enumValue[T]) registerCompletion(cmd *cobra.Command, name string) {
	// The only error is a flag registered twice, which the tests catch.
	_ = cmd.RegisterFlagCompletionFunc(name, func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return v.completions(toComplete)
	})
}
