package passes

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/ipuir/ipuir/internal/nearest"
)

// Registry maps pass and pipeline names to what they build. It is an
// explicit value rather than a global filled by init functions: a tool
// states which passes it offers (package registry's RegisterAllPasses plus
// its own),
// tests build registries with test passes without touching shared state,
// and a bad registration is an error returned to the caller instead of a
// panic during program start.
type Registry struct {
	passes    map[string]*PassInfo
	pipelines map[string]*PipelineInfo
}

// PassInfo is what the registry knows of a pass: read once from the
// pass's struct when it is registered.
type PassInfo struct {
	Name, Summary, Anchor, DisplayName string
	// Group is the heading --list-passes shows the pass under after the
	// ungrouped ones ("Test Passes"); "" for the tool's own passes.
	Group      string
	Options    []OptionInfo // in declaration order
	Statistics []StatisticInfo
	typ        reflect.Type // the struct type
}

// GoType names the pass's struct type: its package's import path and the
// type's name, where its doc comment is (the pass reference's description).
func (info *PassInfo) GoType() (pkgPath, name string) { return info.typ.PkgPath(), info.typ.Name() }

// PipelineInfo is a named pipeline: a flat list of passes (and nested
// pipelines) that a pipeline text may use as if it were one pass.
type PipelineInfo struct {
	Name, Summary, Text string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{passes: map[string]*PassInfo{}, pipelines: map[string]*PipelineInfo{}}
}

// validName accepts what a pipeline text can spell as one element name.
func validName(s string) bool {
	return s != "" && !strings.ContainsAny(s, " \t\n,(){}=") && strings.TrimSpace(s) == s
}

// Register adds the pass whose zero value proto is (a pointer to a
// struct). It checks the name (non-empty, spellable in a pipeline, not
// taken by a pass or pipeline), the summary, and every tagged field.
func (r *Registry) Register(proto Pass) error { return r.RegisterInGroup("", proto) }

// RegisterInGroup is Register for passes that --list-passes shows under a
// heading of their own after the others, such as the test passes.
func (r *Registry) RegisterInGroup(group string, proto Pass) error {
	info, err := describe(proto)
	if err != nil {
		return err
	}
	info.Group = group
	if _, dup := r.passes[info.Name]; dup {
		return fmt.Errorf("pass '%s' registered twice", info.Name)
	}
	if _, dup := r.pipelines[info.Name]; dup {
		return fmt.Errorf("pass '%s' has the name of a registered pipeline", info.Name)
	}
	r.passes[info.Name] = info
	return nil
}

// RegisterPipeline adds a named pipeline; text is a flat pipeline such as
// "canonicalize,cse" or "func.func(cse),symbol-dce". Its elements are
// resolved when a pipeline using it is parsed, so passes may be
// registered after it.
func (r *Registry) RegisterPipeline(name, summary, text string) error {
	if !validName(name) {
		return fmt.Errorf("invalid pipeline name %q", name)
	}
	if summary == "" {
		return fmt.Errorf("pipeline '%s' has no summary", name)
	}
	if _, dup := r.passes[name]; dup {
		return fmt.Errorf("pipeline '%s' has the name of a registered pass", name)
	}
	if _, dup := r.pipelines[name]; dup {
		return fmt.Errorf("pipeline '%s' registered twice", name)
	}
	if _, err := parseElements(text); err != nil {
		return fmt.Errorf("pipeline '%s': %v", name, err)
	}
	r.pipelines[name] = &PipelineInfo{Name: name, Summary: summary, Text: text}
	return nil
}

func describe(proto Pass) (*PassInfo, error) {
	if proto == nil {
		return nil, fmt.Errorf("registering a nil pass")
	}
	pt := reflect.TypeOf(proto)
	if pt.Kind() != reflect.Pointer || pt.Elem().Kind() != reflect.Struct {
		return nil, fmt.Errorf("pass %T is not a pointer to a struct", proto)
	}
	info := &PassInfo{Name: proto.Name(), Summary: proto.Summary(), Anchor: proto.Anchor(),
		DisplayName: DisplayName(proto), typ: pt.Elem()}
	if !validName(info.Name) {
		return nil, fmt.Errorf("pass %T has an invalid name %q", proto, info.Name)
	}
	if info.Summary == "" {
		return nil, fmt.Errorf("pass '%s' has no summary", info.Name)
	}
	if info.Anchor == "any" {
		return nil, fmt.Errorf("pass '%s': an anchor on any op is written \"\", not \"any\"", info.Name)
	}
	seen := map[string]bool{}
	statType := reflect.TypeOf(Statistic{})
	for i := 0; i < info.typ.NumField(); i++ {
		f := info.typ.Field(i)
		optName, isOpt := f.Tag.Lookup("pass")
		statName, isStat := f.Tag.Lookup("statistic")
		help := f.Tag.Get("help")
		switch {
		case isOpt && isStat:
			return nil, fmt.Errorf("pass '%s': field %s is both an option and a statistic", info.Name, f.Name)
		case isStat:
			if f.Type != statType {
				return nil, fmt.Errorf("pass '%s': statistic field %s must have type passes.Statistic", info.Name, f.Name)
			}
			if !validName(statName) || help == "" {
				return nil, fmt.Errorf("pass '%s': statistic field %s needs a name and help", info.Name, f.Name)
			}
			if seen["stat:"+statName] {
				return nil, fmt.Errorf("pass '%s': statistic '%s' declared twice", info.Name, statName)
			}
			seen["stat:"+statName] = true
			info.Statistics = append(info.Statistics, StatisticInfo{Name: statName, Help: help, field: i})
		case isOpt:
			if !f.IsExported() {
				return nil, fmt.Errorf("pass '%s': option field %s must be exported", info.Name, f.Name)
			}
			if !validName(optName) || help == "" {
				return nil, fmt.Errorf("pass '%s': option field %s needs a name and help", info.Name, f.Name)
			}
			if seen[optName] {
				return nil, fmt.Errorf("pass '%s': option '%s' declared twice", info.Name, optName)
			}
			seen[optName] = true
			typeName, list, ok := optionTypeName(f.Type)
			if !ok {
				return nil, fmt.Errorf("pass '%s': option '%s' has unsupported type %s", info.Name, optName, f.Type)
			}
			opt := OptionInfo{Name: optName, Help: help, Default: f.Tag.Get("default"), TypeName: typeName, field: i, list: list}
			if c, ok := reflect.New(f.Type).Interface().(OptionChoices); ok {
				opt.Choices = c.Choices()
			}
			if m, ok := f.Tag.Lookup("min"); ok {
				k := f.Type.Kind()
				n, err := parseLLVMInt(m)
				if err != nil || (k < reflect.Int || k > reflect.Uint64) || reflect.PointerTo(f.Type).Implements(optionValueType) {
					return nil, fmt.Errorf("pass '%s': option '%s' has a min tag %q, but min needs an integer option and an integer", info.Name, optName, m)
				}
				opt.Min = &n
			}
			if def, ok := f.Tag.Lookup("default"); ok {
				if err := setOption(&opt, reflect.New(f.Type).Elem(), def, true); err != nil {
					return nil, fmt.Errorf("pass '%s': bad default: %v", info.Name, err)
				}
			}
			info.Options = append(info.Options, opt)
		default:
			if f.Type == statType {
				return nil, fmt.Errorf("pass '%s': statistic field %s has no statistic tag", info.Name, f.Name)
			}
			if _, ok := f.Tag.Lookup("default"); ok || help != "" {
				return nil, fmt.Errorf("pass '%s': field %s has help or a default but no pass tag", info.Name, f.Name)
			}
		}
	}
	return info, nil
}

// Lookup returns the pass registered under name, or nil.
func (r *Registry) Lookup(name string) *PassInfo { return r.passes[name] }

// LookupPipeline returns the pipeline registered under name, or nil.
func (r *Registry) LookupPipeline(name string) *PipelineInfo { return r.pipelines[name] }

// Passes lists the registered passes by name.
func (r *Registry) Passes() []*PassInfo {
	out := make([]*PassInfo, 0, len(r.passes))
	for _, p := range r.passes {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Pipelines lists the registered pipelines by name.
func (r *Registry) Pipelines() []*PipelineInfo {
	out := make([]*PipelineInfo, 0, len(r.pipelines))
	for _, p := range r.pipelines {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// New builds the pass registered under name with its defaults, then
// applies options, the text between the braces of `name{...}`. Errors
// read as mlir-opt's.
func (r *Registry) New(name, options string) (Pass, error) {
	info := r.passes[name]
	if info == nil {
		return nil, fmt.Errorf("'%s' does not refer to a registered pass or pass pipeline%s", name, nearest.Suffix(name, r.names()))
	}
	p := info.newDefault()
	if err := info.apply(p, options); err != nil {
		return nil, fmt.Errorf("%v\nfailed to add `%s` with options `%s`", err, name, options)
	}
	return p, nil
}

func (info *PassInfo) newDefault() Pass {
	v := reflect.New(info.typ)
	for i := range info.Options {
		o := &info.Options[i]
		if def, ok := info.typ.Field(o.field).Tag.Lookup("default"); ok {
			if err := setOption(o, v.Elem().Field(o.field), def, true); err != nil {
				panic("BUG: default checked at registration failed: " + err.Error())
			}
		}
	}
	return v.Interface().(Pass)
}

func (info *PassInfo) option(name string) *OptionInfo {
	for i := range info.Options {
		if info.Options[i].Name == name {
			return &info.Options[i]
		}
	}
	return nil
}

// apply parses an option string into p.
func (info *PassInfo) apply(p Pass, options string) error {
	v := reflect.ValueOf(p).Elem()
	for _, a := range splitOptionString(options) {
		o := info.option(a.name)
		if o == nil {
			return fmt.Errorf("<Pass-Options-Parser>: no such option %s", a.name)
		}
		if err := setOption(o, v.Field(o.field), a.value, a.hasValue); err != nil {
			return err
		}
	}
	return nil
}

// WithDefaults sets p's options to their tagged defaults and returns it,
// for passes built in Go rather than from a pipeline text:
// pm.AddPass(passes.WithDefaults(&passes.Canonicalizer{})).
func WithDefaults[P Pass](p P) P {
	info, err := describe(p)
	if err != nil {
		panic("BUG: " + err.Error())
	}
	reflect.ValueOf(p).Elem().Set(reflect.ValueOf(info.newDefault()).Elem())
	return p
}

// SetOptions parses an option string (`max-iterations=3 top-down=false`)
// into p, for passes built in Go.
func SetOptions(p Pass, options string) error {
	info, err := describe(p)
	if err != nil {
		return err
	}
	return info.apply(p, options)
}

// passInfoOf describes a pass for printing; passes built in Go need not
// be registered.
func passInfoOf(p Pass) *PassInfo {
	info, err := describe(p)
	if err != nil {
		panic("BUG: pass in a pipeline does not describe itself: " + err.Error())
	}
	return info
}

// optionsText prints p's options, sorted by name, as `a=1 b=true`; empty
// when p has none. Empty lists print as nothing between their separators,
// as MLIR prints them.
func optionsText(p Pass) string {
	info := passInfoOf(p)
	if len(info.Options) == 0 {
		return ""
	}
	v := reflect.ValueOf(p).Elem()
	var parts []string
	for _, o := range sortedOptions(info.Options) {
		f := v.Field(o.field)
		if o.list && f.Len() == 0 {
			parts = append(parts, "")
			continue
		}
		parts = append(parts, o.Name+"="+formatOption(f))
	}
	return strings.Join(parts, " ")
}

// statistics returns p's statistics with their current values.
func statistics(p Pass) []statValue {
	info := passInfoOf(p)
	v := reflect.ValueOf(p).Elem()
	out := make([]statValue, len(info.Statistics))
	for i, s := range info.Statistics {
		out[i] = statValue{s.Name, s.Help, v.Field(s.field).Addr().Interface().(*Statistic).Value()}
	}
	return out
}

type statValue struct {
	name, help string
	value      uint64
}

// CheckPassNames checks that every name is a registered pass, as mlir-opt
// checks the names given to --mlir-print-ir-before and -after; flag names
// the option in the message.
func (r *Registry) CheckPassNames(flag string, names []string) error {
	for _, n := range names {
		if r.passes[n] == nil {
			return fmt.Errorf("for the --%s option: Cannot find option named '%s'!%s", flag, n, nearest.Suffix(n, r.names()))
		}
	}
	return nil
}

// names lists every registered pass and pipeline name, for suggestions.
func (r *Registry) names() []string {
	out := make([]string, 0, len(r.passes)+len(r.pipelines))
	for n := range r.passes {
		out = append(out, n)
	}
	for n := range r.pipelines {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
