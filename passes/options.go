package passes

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Pass options are tagged struct fields:
//
//	MaxIterations int `pass:"max-iterations" help:"Max. iterations between applying patterns" default:"10"`
//
// Supported field types: bool, the signed and unsigned integer types,
// float64, string, []string, []int64, and any type whose pointer
// implements OptionValue (an enumeration, for instance). Values are
// spelled as LLVM's command-line parser spells them, because MLIR's
// pipeline syntax inherited its option syntax from it: integers may be
// written in hex (0x10), booleans as true/false/1/0 or bare (true), lists
// as comma-separated elements, optionally wrapped in {} or quotes.

// OptionValue is implemented by (pointers to) option types that parse and
// print themselves.
type OptionValue interface {
	Set(text string) error
	String() string
}

// OptionChoices is implemented by enumerated option types, so that
// --list-passes shows the accepted values.
type OptionChoices interface {
	Choices() []Choice
}

// Choice is one accepted value of an enumerated option.
type Choice struct {
	Value, Help string
}

// OptionInfo describes one option of a pass.
type OptionInfo struct {
	Name    string
	Help    string
	Default string // as written in the tag; "" when the field's zero value is the default
	// TypeName is what --list-passes shows after '=': long, ulong, int,
	// uint, number, string, value (enumerations); empty for booleans.
	TypeName string
	Choices  []Choice
	// Min, for integer options declared with a `min:"N"` tag, is the least
	// value accepted; a smaller one is an error when the option is set.
	Min   *int64
	field int
	list  bool
}

var optionValueType = reflect.TypeOf((*OptionValue)(nil)).Elem()

// optionTypeName classifies a field type, returning "" for bool and ok
// false when the type is not supported.
func optionTypeName(t reflect.Type) (name string, list, ok bool) {
	if reflect.PointerTo(t).Implements(optionValueType) {
		return "value", false, true
	}
	switch t.Kind() {
	case reflect.Bool:
		return "", false, true
	case reflect.Int, reflect.Int64:
		return "long", false, true
	case reflect.Int8, reflect.Int16, reflect.Int32:
		return "int", false, true
	case reflect.Uint, reflect.Uint64:
		return "ulong", false, true
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return "uint", false, true
	case reflect.Float32, reflect.Float64:
		return "number", false, true
	case reflect.String:
		return "string", false, true
	case reflect.Slice:
		switch t.Elem().Kind() {
		case reflect.String:
			return "string", true, true
		case reflect.Int64:
			return "long", true, true
		}
	}
	return "", false, false
}

// argTypeDesc is how LLVM names the kind of value an option expects in
// its "value invalid for ... argument" messages.
func argTypeDesc(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Int, reflect.Int64:
		return "long"
	case reflect.Int8, reflect.Int16, reflect.Int32:
		return "integer"
	case reflect.Uint, reflect.Uint64:
		return "ulong"
	case reflect.Uint8, reflect.Uint16, reflect.Uint32:
		return "uint"
	case reflect.Float32, reflect.Float64:
		return "floating point"
	}
	return t.String()
}

// setOption parses text into v, a settable field. hasValue is false for
// `name` written without `=`.
func setOption(opt *OptionInfo, v reflect.Value, text string, hasValue bool) error {
	if !balanced(text) {
		return fmt.Errorf("for the --%s option: '%s' has an unbalanced quote or brace", opt.Name, text)
	}
	if p, ok := v.Addr().Interface().(OptionValue); ok {
		if !hasValue {
			return fmt.Errorf("for the --%s option: requires a value!", opt.Name)
		}
		if err := p.Set(text); err != nil {
			return fmt.Errorf("for the --%s option: %v", opt.Name, err)
		}
		return nil
	}
	if v.Kind() == reflect.Bool {
		if !hasValue {
			v.SetBool(true)
			return nil
		}
		switch text {
		case "", "true", "TRUE", "True", "1":
			v.SetBool(true)
		case "false", "FALSE", "False", "0":
			v.SetBool(false)
		default:
			return fmt.Errorf("for the --%s option: '%s' is invalid value for boolean argument! Try 0 or 1", opt.Name, text)
		}
		return nil
	}
	if !hasValue {
		return fmt.Errorf("for the --%s option: requires a value!", opt.Name)
	}
	if v.Kind() == reflect.Slice {
		elems := splitList(text)
		out := reflect.MakeSlice(v.Type(), 0, len(elems))
		for _, e := range elems {
			ev := reflect.New(v.Type().Elem()).Elem()
			if err := setScalar(opt, ev, e); err != nil {
				return err
			}
			out = reflect.Append(out, ev)
		}
		v.Set(out)
		return nil
	}
	return setScalar(opt, v, text)
}

func setScalar(opt *OptionInfo, v reflect.Value, text string) error {
	bad := func() error {
		return fmt.Errorf("for the --%s option: '%s' value invalid for %s argument!", opt.Name, text, argTypeDesc(v.Type()))
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(text)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := parseLLVMInt(text)
		if err != nil || v.OverflowInt(n) {
			return bad()
		}
		if opt.Min != nil && n < *opt.Min {
			return fmt.Errorf("for the --%s option: '%s' is less than the least allowed value, %d!", opt.Name, text, *opt.Min)
		}
		v.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if strings.HasPrefix(text, "-") {
			return bad()
		}
		n, err := parseLLVMInt(text)
		if err != nil || n < 0 || v.OverflowUint(uint64(n)) {
			return bad()
		}
		if opt.Min != nil && n < *opt.Min {
			return fmt.Errorf("for the --%s option: '%s' is less than the least allowed value, %d!", opt.Name, text, *opt.Min)
		}
		v.SetUint(uint64(n))
	case reflect.Float32, reflect.Float64:
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || v.OverflowFloat(f) {
			return bad()
		}
		v.SetFloat(f)
	default:
		panic("BUG: unsupported option kind " + v.Kind().String())
	}
	return nil
}

// parseLLVMInt reads an integer as LLVM's getAsInteger with radix 0 does:
// decimal, 0x hex, 0b binary, 0o or leading-0 octal. Go's base-0 parsing
// agrees except that it accepts '_' separators, which LLVM does not.
func parseLLVMInt(s string) (int64, error) {
	if strings.Contains(s, "_") {
		return 0, strconv.ErrSyntax
	}
	return strconv.ParseInt(s, 0, 64)
}

// splitList splits a list option's value at top-level commas.
func splitList(s string) []string {
	var out []string
	var n nesting
	start := 0
	for i := 0; i < len(s); i++ {
		if n.step(s[i]) && s[i] == ',' {
			out = append(out, unwrapValue(s[start:i]))
			start = i + 1
		}
	}
	return append(out, unwrapValue(s[start:]))
}

// unwrapValue trims a value and drops one pair of quotes or braces that
// encloses all of it, as MLIR's option parser does for values longer than
// two bytes (MLIR looks only at the first and last byte, which would also
// strip `{a},{b}`; here the pair must match).
func unwrapValue(s string) string {
	s = strings.TrimSpace(s)
	if len(s) <= 2 {
		return s
	}
	switch s[0] {
	case '\'', '"':
		if strings.IndexByte(s[1:], s[0]) == len(s)-2 {
			return strings.TrimSpace(s[1 : len(s)-1])
		}
	case '{':
		depth := 0
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					if i == len(s)-1 {
						return strings.TrimSpace(s[1 : len(s)-1])
					}
					return s
				}
			}
		}
	}
	return s
}

// formatOption prints a field's value as the pipeline syntax spells it.
func formatOption(v reflect.Value) string {
	if p, ok := v.Addr().Interface().(OptionValue); ok {
		return p.String()
	}
	switch v.Kind() {
	case reflect.Bool:
		return strconv.FormatBool(v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return strconv.FormatUint(v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		f := v.Float()
		if f == math.Trunc(f) && math.Abs(f) < 1e15 {
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	case reflect.String:
		return escapeOptionString(v.String())
	case reflect.Slice:
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = formatOption(v.Index(i))
		}
		return strings.Join(parts, ",")
	}
	panic("BUG: unsupported option kind " + v.Kind().String())
}

// escapeOptionString wraps a string in braces when it would not read back
// as itself: it holds a space or a comma (which would split it), or starts
// with a quote or a brace (which would be stripped). MLIR wraps strings
// with spaces the same way.
func escapeOptionString(s string) string {
	if strings.ContainsAny(s, " ,") || (s != "" && strings.ContainsRune("{'\"", rune(s[0]))) {
		return "{" + s + "}"
	}
	return s
}

// balanced reports whether quotes close and braces match in an option
// value, which is what lets it print back in braces and read back the same.
func balanced(s string) bool {
	var n nesting
	for i := 0; i < len(s); i++ {
		n.step(s[i])
	}
	return n.balanced()
}

// nesting follows an option value byte by byte through quoted text ('...'
// or "...") and braces, the two ways a value keeps separators inside it;
// one walker serves splitting lists, finding where a value ends and
// checking balance, so the three can never disagree about what is nested.
type nesting struct {
	depth int  // open braces outside quotes
	quote byte // the open quote, or 0
	stray bool // a '}' closed nothing (depth stays 0 so scanning goes on)
}

// step takes the next byte c and reports whether it stands at top level:
// outside quotes and braces, and itself neither a quote nor a brace.
func (n *nesting) step(c byte) (topLevel bool) {
	switch {
	case n.quote != 0:
		if c == n.quote {
			n.quote = 0
		}
	case c == '"' || c == '\'':
		n.quote = c
	case c == '{':
		n.depth++
	case c == '}':
		if n.depth == 0 {
			n.stray = true
		} else {
			n.depth--
		}
	default:
		return n.depth == 0
	}
	return false
}

// balanced reports whether every quote and brace seen so far was closed.
func (n nesting) balanced() bool { return !n.stray && n.quote == 0 && n.depth == 0 }

// optionArg is one `name=value` of an option string.
type optionArg struct {
	name, value string
	hasValue    bool
}

// splitOptionString splits the text between a pass's braces into
// arguments separated by spaces, keeping quoted and braced values whole.
func splitOptionString(s string) []optionArg {
	var args []optionArg
	s = strings.TrimSpace(s)
	for s != "" {
		i := 0
		for i < len(s) && s[i] != ' ' && s[i] != '=' {
			i++
		}
		arg := optionArg{name: strings.TrimSpace(s[:i])}
		if i < len(s) && s[i] == '=' {
			arg.hasValue = true
			s = s[i+1:]
			j := valueEnd(s)
			arg.value = unwrapValue(s[:j])
			s = s[j:]
		} else {
			s = s[i:]
		}
		args = append(args, arg)
		s = strings.TrimLeft(s, " ")
	}
	return args
}

// valueEnd finds the space that ends a value, skipping quoted and braced
// text.
func valueEnd(s string) int {
	var n nesting
	for i := 0; i < len(s); i++ {
		if n.step(s[i]) && s[i] == ' ' {
			return i
		}
	}
	return len(s)
}

// sortedOptions returns the options ordered by name, the order in which
// pipelines print them.
func sortedOptions(opts []OptionInfo) []OptionInfo {
	out := append([]OptionInfo(nil), opts...)
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}
