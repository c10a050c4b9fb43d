package target

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/alecthomas/participle/v2"
	"github.com/alecthomas/participle/v2/lexer"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/internal/nearest"
)

// Option is one figure of a target that a user may set, by name, on top of
// the built-in description: the facts marked "Assumption" in builtin.go
// whose value no public source fixes (the streaming and link rates and
// latencies), and the matmul fit's per-block constant, the cost model's most
// sensitive fact, for what-if studies. A target with options is named by its
// spec, NAME{option=value ...} (pass options' syntax), so the choice travels
// with the module's ipu.target and the package's target name, and every
// tool reads the same facts.
type Option struct {
	Name string
	Help string // what it sets, with its unit
	// MultiChip: only a target of several chips has the figure.
	MultiChip bool
	// Float: the value may be fractional; otherwise it is a whole number.
	Float bool
	// Min is the least value a whole-number option takes (0 unless set).
	Min int64
	get func(t *Target) float64
	set func(t *Target, v float64)
}

// Options are the settable figures, in the order `--show-targets` and the
// docs list them.
var Options = []Option{
	{Name: "span-chips", Help: "chips one program spans, joined in a line of IPU-Links, its tiles numbered chip after chip (a pipeline stage of several chips); 1, the default: one chip", Min: 1,
		get: func(t *Target) float64 { return float64(t.SpanChips()) },
		set: func(t *Target, v float64) { t.setSpan(int(v)) }},
	{Name: "exchange-latency-cycles", Help: "cycles added once per on-chip exchange phase for the first word in flight",
		get: func(t *Target) float64 { return float64(t.ExchangeLatencyCycles) },
		set: func(t *Target, v float64) { t.ExchangeLatencyCycles = int(v) }},
	{Name: "amp-pass-cycles", Help: "the AMP vertex's supervisor cycles per pass besides loading the weights, every vertex (PopLibs' estimator: 25)",
		get: func(t *Target) float64 { return float64(t.AMPVertices[0].PassCycles) },
		set: func(t *Target, v float64) {
			for i := range t.AMPVertices {
				t.AMPVertices[i].PassCycles = int(v)
			}
		}},
	{Name: "amp-f32-partials-conv-units", Help: "conv units of the vertex for f16 inputs with f32 partials (8: half the f16-partials rate; 16: the what-if that it runs at the full rate)", Min: 1,
		get: func(t *Target) float64 {
			v, _ := t.AMPVertexFor(elem.F16, elem.F32)
			return float64(v.ConvUnits)
		},
		set: func(t *Target, v float64) {
			for i := range t.AMPVertices {
				if t.AMPVertices[i].Elem == elem.F16 && t.AMPVertices[i].Partials == elem.F32 {
					t.AMPVertices[i].ConvUnits = int(v)
				}
			}
		}},
	{Name: "streaming-bytes", Help: "bytes of streaming memory behind each chip",
		get: func(t *Target) float64 { return float64(t.Streaming.BytesPerChip) },
		set: func(t *Target, v float64) { t.Streaming.BytesPerChip = int64(v) }},
	{Name: "streaming-bytes-per-cycle", Help: "the chip's streaming-memory rate in each direction, bytes per cycle", Float: true,
		get: func(t *Target) float64 { return t.Streaming.BytesPerCycle },
		set: func(t *Target, v float64) { t.Streaming.BytesPerCycle = v }},
	{Name: "streaming-latency-cycles", Help: "cycles added once per streaming load or store",
		get: func(t *Target) float64 { return float64(t.Streaming.LatencyCycles) },
		set: func(t *Target, v float64) { t.Streaming.LatencyCycles = int64(v) }},
	{Name: "io-tiles", Help: "tiles of each chip set aside to receive streamed weights while the others compute (PopART's numIOTiles), a multiple of the tile columns; 0, the default: streaming and compute take turns",
		get: func(t *Target) float64 { return float64(t.IOTiles) },
		set: func(t *Target, v float64) { t.Tiles, t.IOTiles = t.Tiles+t.IOTiles-int(v), int(v) }},
	{Name: "links-per-neighbour", Help: "IPU-Links joining two neighbouring chips", MultiChip: true, Min: 1,
		get: func(t *Target) float64 { return float64(t.Links.PerNeighbour) },
		set: func(t *Target, v float64) { t.Links.PerNeighbour = int(v) }},
	{Name: "link-bytes-per-cycle", Help: "one IPU-Link's rate in each direction, bytes per cycle", MultiChip: true, Float: true,
		get: func(t *Target) float64 { return t.Links.BytesPerCycle },
		set: func(t *Target, v float64) { t.Links.BytesPerCycle = v }},
	{Name: "link-latency-cycles", Help: "cycles added per link hop of a transfer between chips", MultiChip: true,
		get: func(t *Target) float64 { return float64(t.Links.LatencyCycles) },
		set: func(t *Target, v float64) { t.Links.LatencyCycles = int64(v) }},
	{Name: "chip-sync-cycles", Help: "cycles of one sync across every chip (the Sync-Link)", MultiChip: true,
		get: func(t *Target) float64 { return float64(t.Links.SyncCycles) },
		set: func(t *Target, v float64) { t.Links.SyncCycles = int64(v) }},
}

// maxWholeOption bounds a whole-number option: every figure fits an int32
// or is a byte count, and float64 holds whole numbers exactly up to 2^53.
const maxWholeOption = 1 << 53

// OptionNamed returns the option called name.
func OptionNamed(name string) (*Option, bool) {
	i := slices.IndexFunc(Options, func(o Option) bool { return o.Name == name })
	if i < 0 {
		return nil, false
	}
	return &Options[i], true
}

// OptionNames lists the options' names.
func OptionNames() []string {
	names := make([]string, len(Options))
	for i, o := range Options {
		names[i] = o.Name
	}
	return names
}

// Value returns the option's value on t, as a spec writes it.
func (o *Option) Value(t *Target) string { return o.format(o.get(t)) }

func (o *Option) format(v float64) string {
	if o.Float {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatInt(int64(v), 10)
}

// parse reads a value of the option: a positive number, or for a whole
// one a whole number of at least 0 (the int32 fields' range where the
// figure is an int).
func (o *Option) parse(s string) (float64, error) {
	if o.Float {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("want a positive number")
		}
		return v, nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	limit := int64(maxWholeOption)
	if o.Name != "streaming-bytes" {
		limit = math.MaxInt32
	}
	if err != nil || v < o.Min || v > limit {
		return 0, fmt.Errorf("want a whole number from %d to %d", o.Min, limit)
	}
	return float64(v), nil
}

// Spec is a parsed target spec: a built-in target's name and the options
// set on it.
type Spec struct {
	Pos     lexer.Position
	Name    string        `parser:"@Ident"`
	Options []*specOption `parser:"( '{' @@* '}' )?"`
}

type specOption struct {
	Pos   lexer.Position
	Key   string `parser:"@Ident '='"`
	Value string `parser:"@Number"`
}

var specLexer = lexer.MustSimple([]lexer.SimpleRule{
	{Name: "Number", Pattern: `[0-9][0-9]*(\.[0-9]+)?([eE][+-]?[0-9]+)?`},
	{Name: "Ident", Pattern: `[A-Za-z_][A-Za-z0-9_-]*`},
	{Name: "Punct", Pattern: `[{}=]`},
	{Name: "Whitespace", Pattern: `[ \t]+`},
})

var specParser = participle.MustBuild[Spec](participle.Lexer(specLexer), participle.Elide("Whitespace"))

// optionValue is a value as the spec's lexer reads one Number.
var optionValue = regexp.MustCompile(`^[0-9][0-9]*(\.[0-9]+)?([eE][+-]?[0-9]+)?$`)

// maxSpecBytes bounds a spec: every option set once is far shorter.
const maxSpecBytes = 1024

// ParseSpec parses NAME or NAME{option=value ...}.
func ParseSpec(s string) (*Spec, error) {
	if len(s) > maxSpecBytes {
		return nil, fmt.Errorf("target spec of %d bytes (at most %d)", len(s), maxSpecBytes)
	}
	spec, err := specParser.ParseString("", s)
	if err != nil {
		if pe, ok := err.(participle.Error); ok {
			return nil, fmt.Errorf("target spec %q: column %d: %s", s, pe.Position().Column, pe.Message())
		}
		return nil, fmt.Errorf("target spec %q: %v", s, err)
	}
	return spec, nil
}

// WithOptions returns the spec of name with opts (KEY=VALUE each, as
// --target-option takes them) added to the options it already sets; a
// repeated key is refused.
func WithOptions(name string, opts []string) (string, error) {
	if len(opts) == 0 {
		return name, nil
	}
	spec, err := ParseSpec(name)
	if err != nil {
		return "", err
	}
	for _, o := range opts {
		k, v, ok := strings.Cut(o, "=")
		if !ok || k == "" || v == "" {
			return "", fmt.Errorf("target option %q is not KEY=VALUE (known keys: %s)", o, strings.Join(OptionNames(), ", "))
		}
		// One flag sets one option: a value is one number, or it would
		// be read as more of the spec ("io-tiles=4 exchange-latency-cycles=1").
		if !optionValue.MatchString(v) {
			return "", fmt.Errorf("target option %q: the value %q is not one number (each --target-option sets one KEY=VALUE)", o, v)
		}
		spec.Options = append(spec.Options, &specOption{Key: k, Value: v})
	}
	return spec.String(), nil
}

// String writes the spec with its options in the order of Options, the
// canonical form Lookup names a target by.
func (s *Spec) String() string {
	if len(s.Options) == 0 {
		return s.Name
	}
	opts := slices.Clone(s.Options)
	order := func(k string) int { return slices.Index(OptionNames(), k) }
	slices.SortStableFunc(opts, func(a, b *specOption) int { return order(a.Key) - order(b.Key) })
	parts := make([]string, len(opts))
	for i, o := range opts {
		parts[i] = o.Key + "=" + o.Value
	}
	return s.Name + "{" + strings.Join(parts, " ") + "}"
}

// apply sets the spec's options on t (the built-in target it names),
// checks the result, and names it by its canonical spec.
func (s *Spec) apply(t *Target) (*Target, error) {
	if len(s.Options) == 0 {
		return t, nil
	}
	changed := map[string]bool{}
	canon := &Spec{Name: s.Name}
	// span-chips first: it decides whether the link options apply, and
	// the tiles the others see.
	opts := slices.Clone(s.Options)
	slices.SortStableFunc(opts, func(a, b *specOption) int {
		return boolRank(a.Key != spanChipsOption) - boolRank(b.Key != spanChipsOption)
	})
	for _, so := range opts {
		o, ok := OptionNamed(so.Key)
		if !ok {
			return nil, fmt.Errorf("target %s: unknown option %q%s; known: %s", s.Name, so.Key, nearest.Paren(so.Key, OptionNames()), strings.Join(OptionNames(), ", "))
		}
		if changed[o.Name] {
			return nil, fmt.Errorf("target %s: option %s is set twice", s.Name, o.Name)
		}
		changed[o.Name] = true
		if o.MultiChip && !t.MultiChip() && t.SpanChips() < 2 {
			return nil, fmt.Errorf("target %s has one chip: option %s applies only to targets of several chips (%s, or a chip's with span-chips)",
				s.Name, o.Name, strings.Join(multiChipNames(), ", "))
		}
		v, err := o.parse(so.Value)
		if err != nil {
			return nil, fmt.Errorf("target %s: option %s=%s: %v", s.Name, o.Name, so.Value, err)
		}
		o.set(t, v)
		canon.Options = append(canon.Options, &specOption{Key: o.Name, Value: o.format(v)})
	}
	t.Name = canon.String()
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

const spanChipsOption = "span-chips"

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}

// multiChipNames lists the built-in targets of several chips.
func multiChipNames() []string {
	var names []string
	for _, n := range Names() {
		if builtins[n]().MultiChip() {
			names = append(names, n)
		}
	}
	return names
}
