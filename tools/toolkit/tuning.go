package toolkit

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/atomicfile"
)

// A tuning record is what a tuner (ipu-tune, the tune module) found
// fastest for one program on one target: the compile options that differ
// from the defaults, so that `ipu-translate --emit-package --tuning=FILE`
// builds the tuned package again without searching. It is JSON:
//
//	{"format": "ipuir-tuning", "version": 1, "target": "ipu21",
//	 "source_sha256": "…", "plan_gemms": {"weights": "auto", "constraints": "source_operation = 0, …"},
//	 "cycles": 151000, "default_cycles": 152408, "candidates": 23, "compiler": "…"}
//
// The figures after plan_gemms are what the tuner measured, for the
// reader; compiling reads only the target, the source's hash and the
// options.
type Tuning struct {
	Format       string           `json:"format"`
	Version      int              `json:"version"`
	Target       string           `json:"target"`
	SourceSHA256 string           `json:"source_sha256"`
	PlanGemms    PlanGemmsOptions `json:"plan_gemms"`
	// TiledPrepare is tiled-prepare's options (empty: its defaults).
	TiledPrepare TiledPrepareOptions `json:"tiled_prepare"`
	// Cycles are the tuned package's simulated cycles, DefaultCycles the
	// default compile's, Candidates how many were measured.
	Cycles        int64  `json:"cycles"`
	DefaultCycles int64  `json:"default_cycles"`
	Candidates    int    `json:"candidates"`
	Compiler      string `json:"compiler"`
}

// PlanGemmsOptions are plan-gemms' options a candidate sets: where
// weights live, and each matmul's plan pinned by source_operation (the
// pass's constraints option, ';'-separated).
type PlanGemmsOptions struct {
	Weights     string `json:"weights"`
	Constraints string `json:"constraints"`
}

// TiledPrepareOptions are tiled-prepare's options a candidate sets:
// whether matmuls that share their left operand (Q, K and V) are planned
// as one wider matmul (nil: the pass's default, they are).
type TiledPrepareOptions struct {
	FuseSharedLHS *bool `json:"fuse_shared_lhs,omitempty"`
}

// CompileOptions are the passes' options a tuning sets.
type CompileOptions struct {
	PlanGemms    PlanGemmsOptions
	TiledPrepare TiledPrepareOptions
}

// TuningFormat and TuningVersion identify a tuning record.
const (
	TuningFormat  = "ipuir-tuning"
	TuningVersion = 1
	// maxTuningBytes bounds a record: one constraint per matmul is some
	// hundred bytes, and no program has a hundred thousand matmuls.
	maxTuningBytes = 16 << 20
)

// weightPlacements are plan-gemms' weights option's values.
var weightPlacements = []string{"", "auto", "resident", "home"}

// SourceSHA256 is the hash a tuning record names its program by.
func SourceSHA256(source []byte) string {
	sum := sha256.Sum256(source)
	return hex.EncodeToString(sum[:])
}

// ReadTuning reads and validates the tuning record at path.
func ReadTuning(path string) (*Tuning, error) {
	data, err := atomicfile.ReadFile(path, maxTuningBytes)
	if err != nil {
		return nil, err
	}
	t, err := ParseTuning(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return t, nil
}

// ParseTuning decodes and validates a tuning record: its format and
// version, no unknown field, a weights placement plan-gemms knows, and
// constraints without a quote (which would end the pass option).
func ParseTuning(data []byte) (*Tuning, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var t Tuning
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("not a tuning record: %v", err)
	}
	if dec.More() {
		return nil, fmt.Errorf("not a tuning record: data after the record")
	}
	switch {
	case t.Format != TuningFormat:
		return nil, fmt.Errorf("not a tuning record: format %q, want %q", t.Format, TuningFormat)
	case t.Version != TuningVersion:
		return nil, fmt.Errorf("tuning record version %d; this compiler reads version %d", t.Version, TuningVersion)
	case t.Target == "":
		return nil, fmt.Errorf("the tuning record names no target")
	case len(t.SourceSHA256) != 64:
		return nil, fmt.Errorf("the tuning record's source_sha256 %q is not a SHA-256", t.SourceSHA256)
	case !slices.Contains(weightPlacements, t.PlanGemms.Weights):
		return nil, fmt.Errorf("plan_gemms.weights %q: want auto, resident or home", t.PlanGemms.Weights)
	case strings.ContainsAny(t.PlanGemms.Constraints, "\"\\{}"):
		return nil, fmt.Errorf("plan_gemms.constraints holds a quote, backslash or brace: %q", t.PlanGemms.Constraints)
	}
	return &t, nil
}

// Encode writes the record as indented JSON.
func (t *Tuning) Encode() []byte {
	data, _ := json.MarshalIndent(t, "", "  ") // plain strings and numbers: cannot fail
	return append(data, '\n')
}

// Options are the record's pass options.
func (t *Tuning) Options() CompileOptions {
	return CompileOptions{PlanGemms: t.PlanGemms, TiledPrepare: t.TiledPrepare}
}

// Pipeline is lower-to-tile-asm with its passes set as the record says.
func (t *Tuning) Pipeline() string { return TunedPipeline(t.Options()) }

// TunedPipeline is lower-to-tile-asm's passes with the options o sets.
func TunedPipeline(o CompileOptions) string {
	return "builtin.module(" + strings.Join(o.Passes(registry.PipelinePasses(registry.LowerToTileAsm)), ",") + ")"
}

// Passes is steps, a list of pass names, with the options o sets on
// plan-gemms and tiled-prepare.
func (o CompileOptions) Passes(steps []string) []string {
	var plan []string
	if o.PlanGemms.Weights != "" {
		plan = append(plan, "weights="+o.PlanGemms.Weights)
	}
	if o.PlanGemms.Constraints != "" {
		plan = append(plan, `constraints="`+o.PlanGemms.Constraints+`"`)
	}
	var prep []string
	if f := o.TiledPrepare.FuseSharedLHS; f != nil {
		prep = append(prep, fmt.Sprintf("fuse-shared-lhs=%t", *f))
	}
	out := slices.Clone(steps)
	for i, s := range out {
		switch {
		case s == "plan-gemms" && len(plan) > 0:
			out[i] = "plan-gemms{" + strings.Join(plan, " ") + "}"
		case s == "tiled-prepare" && len(prep) > 0:
			out[i] = "tiled-prepare{" + strings.Join(prep, " ") + "}"
		}
	}
	return out
}

// Check says whether the record applies to a program of source for target
// spec.
func (t *Tuning) Check(source []byte, spec string) error {
	if t.Target != spec {
		return fmt.Errorf("the tuning record is for target %s, the program is compiled for %s", t.Target, spec)
	}
	if got := SourceSHA256(source); got != t.SourceSHA256 {
		return fmt.Errorf("the tuning record is for another program (source SHA-256 %.12s…, this one's %.12s…): tune this one again", t.SourceSHA256, got)
	}
	return nil
}
