package filecheck

// DumpMode is the --dump-input setting; later values take precedence when
// the option is repeated, as in FileCheck.
type DumpMode int

// The --dump-input values.
const (
	DumpNever DumpMode = iota
	DumpFail
	DumpAlways
	DumpHelp
)

// DumpFilter is the --dump-input-filter setting, in precedence order.
type DumpFilter int

// The --dump-input-filter values.
const (
	FilterError DumpFilter = iota
	FilterAnnotation
	FilterAnnotationFull
	FilterAll
)

// Options are FileCheck's command-line settings (FileCheckRequest plus the
// input-dump options of the driver).
type Options struct {
	CheckPrefixes             []string // default CHECK
	CommentPrefixes           []string // default COM, RUN
	ImplicitCheckNot          []string
	Defines                   []string // -D: "VAR=VALUE" or "#VAR=EXPR"
	AllowEmptyInput           bool
	AllowUnusedPrefixes       bool
	EnableVarScope            bool
	AllowDeprecatedDagOverlap bool
	Verbose                   bool
	VerboseVerbose            bool
	StrictWhitespace          bool
	MatchFullLines            bool
	IgnoreCase                bool

	DumpInput        DumpMode
	DumpInputFilter  DumpFilter
	DumpInputContext int
	// DumpInputFilterSet records an explicit --dump-input-filter; without
	// one the filter follows DumpInput.
	DumpInputFilterSet bool
}

// DefaultOptions returns FileCheck's defaults.
func DefaultOptions() Options {
	return Options{DumpInput: DumpFail, DumpInputContext: 5}
}
