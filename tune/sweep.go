package tune

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/runtime/atomicfile"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/translate/htmlreport"
	"github.com/ipuir/ipuir/tune/store"
)

// SweepSpec is a grid: every model tuned on every target. A target is a
// spec, so a grid over a target's options is a list of specs
// ("ipu21", "ipu21{amp-f32-partials-conv-units=16}"). Model paths are
// relative to the spec's file.
//
//	{"models": ["attention.ipuir"], "targets": ["ipu21", "ipu2"], "seed": 1}
type SweepSpec struct {
	Models  []string `json:"models"`
	Targets []string `json:"targets"`
	Seed    uint64   `json:"seed"`
	// Function names the function to run in every model ("" for each
	// model's only one).
	Function string `json:"function"`
	// Finalists is the planner's finalists measured per matmul (0: 8).
	Finalists int `json:"finalists"`
}

// maxSpecBytes bounds a sweep spec; maxSweepCells its grid.
const (
	maxSpecBytes  = 1 << 20
	maxSweepCells = 10000
)

// ReadSweepSpec reads and checks the spec at path: known fields, at least
// one model and one target, every target a spec the compiler knows, a
// grid of at most maxSweepCells.
func ReadSweepSpec(path string) (*SweepSpec, error) {
	data, err := atomicfile.ReadFile(path, maxSpecBytes)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s SweepSpec
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("%s: not a sweep spec: %v", path, err)
	}
	if len(s.Models) == 0 || len(s.Targets) == 0 {
		return nil, fmt.Errorf("%s: a sweep needs models and targets", path)
	}
	if len(s.Models)*len(s.Targets) > maxSweepCells {
		return nil, fmt.Errorf("%s: %d models on %d targets is more than %d tunings", path, len(s.Models), len(s.Targets), maxSweepCells)
	}
	for _, t := range s.Targets {
		if _, err := target.Lookup(t); err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
	}
	base := filepath.Dir(path)
	for i, m := range s.Models {
		if !filepath.IsAbs(m) {
			s.Models[i] = filepath.Join(base, m)
		}
	}
	if s.Seed == 0 {
		s.Seed = 1
	}
	if s.Finalists == 0 {
		s.Finalists = 8
	}
	if s.Finalists < 0 || s.Finalists > 64 {
		return nil, fmt.Errorf("%s: finalists %d: from 1 to 64", path, s.Finalists)
	}
	return &s, nil
}

// SweepRow is one model on one target.
type SweepRow struct {
	Model, Target string
	// Status is "tuned", or why not ("error: ...").
	Status                       string
	DefaultCycles, TunedCycles   int64
	Candidates, Measured         int
	Best                         string
	Record                       *toolkit.Tuning
	defaultPackage, tunedPackage *ipupkg.Package
}

// Speedup is the default's cycles over the tuned package's.
func (r *SweepRow) Speedup() float64 {
	if r.TunedCycles <= 0 {
		return 0
	}
	return float64(r.DefaultCycles) / float64(r.TunedCycles)
}

// Sweep tunes every model of spec on every target with engine, in order,
// and compiles each cell's default and tuned packages for the report. A
// cell that cannot be tuned (its model does not fit the target, say) is a
// row that says why; an engine or store failure ends the sweep.
func Sweep(ctx context.Context, spec *SweepSpec, engine Engine, st *store.Store, compiler string, progress func(*SweepRow)) ([]*SweepRow, error) {
	var jobs []*Job
	for _, model := range spec.Models {
		src, err := atomicfile.ReadFile(model, 1<<30)
		if err != nil {
			return nil, err
		}
		for _, tg := range spec.Targets {
			jobs = append(jobs, &Job{File: model, Source: src, Target: tg, Function: spec.Function, Seed: spec.Seed, Compiler: compiler, Keep: spec.Finalists})
		}
	}
	// An engine that runs the whole grid runs it; otherwise each cell is
	// searched in turn.
	var outs []*Outcome
	var errs []error
	if gs, ok := engine.(GridSearcher); ok {
		var err error
		if outs, errs, err = gs.SearchAll(ctx, jobs); err != nil {
			return nil, err
		}
		if len(outs) != len(jobs) || len(errs) != len(jobs) {
			return nil, fmt.Errorf("the engine returned %d outcomes for %d searches", len(outs), len(jobs))
		}
	}
	var rows []*SweepRow
	for i, job := range jobs {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		row := &SweepRow{Model: job.File, Target: job.Target}
		var out *Outcome
		var err error
		if outs != nil {
			out, err = outs[i], errs[i]
		} else {
			out, err = Search(ctx, job, engine, st, nil)
		}
		{
			switch {
			case ctx.Err() != nil:
				return nil, ctx.Err()
			case err != nil && out == nil:
				return nil, err
			case err != nil:
				row.Status = "error: " + firstLine(err.Error())
			default:
				row.Status = "tuned"
				row.DefaultCycles, row.TunedCycles, row.Best = out.Default.Cycles, out.Best.Cycles, out.BestCandidate.Short()
				row.Record = out.Record(job)
				if row.defaultPackage, err = job.Compile(Candidate{}); err == nil {
					row.tunedPackage, err = job.Compile(out.BestCandidate)
				}
				if err != nil {
					return nil, fmt.Errorf("%s on %s: %v", job.File, job.Target, err)
				}
			}
			if out != nil {
				row.Candidates, row.Measured = out.Measured, out.Measured-out.Recalled
			}
			rows = append(rows, row)
			if progress != nil {
				progress(row)
			}
		}
	}
	return rows, nil
}

// Compile compiles c into a package.
func (j *Job) Compile(c Candidate) (*ipupkg.Package, error) {
	ctx, module, tg, err := j.parse()
	if err != nil {
		return nil, err
	}
	return toolkit.CompilePackageWith(ctx, module, j.Source, irtarget.EnvKey.With(nil, tg), slog.New(slog.DiscardHandler), tg, j.Compiler,
		toolkit.TunedPipeline(c.Options()))
}

var sweepColumns = []string{"model", "target", "status", "default_cycles", "tuned_cycles", "speedup", "candidates", "measured", "best"}

func (r *SweepRow) cells() []string {
	return []string{filepath.Base(r.Model), r.Target, r.Status, strconv.FormatInt(r.DefaultCycles, 10), strconv.FormatInt(r.TunedCycles, 10),
		strconv.FormatFloat(r.Speedup(), 'f', 3, 64), strconv.Itoa(r.Candidates), strconv.Itoa(r.Measured), r.Best}
}

// WriteCSV writes the rows as CSV with a header.
func WriteCSV(w io.Writer, rows []*SweepRow) error {
	cw := csv.NewWriter(w)
	cw.Write(sweepColumns)
	for _, r := range rows {
		cw.Write(r.cells())
	}
	cw.Flush()
	return cw.Error()
}

// WriteMarkdown writes the rows as a Markdown table.
func WriteMarkdown(w io.Writer, rows []*SweepRow) error {
	line := func(cells []string) string {
		for i, c := range cells {
			cells[i] = strings.ReplaceAll(c, "|", `\|`)
		}
		return "| " + strings.Join(cells, " | ") + " |\n"
	}
	var b strings.Builder
	b.WriteString(line(append([]string(nil), sweepColumns...)))
	b.WriteString(strings.Repeat("| --- ", len(sweepColumns)) + "|\n")
	for _, r := range rows {
		b.WriteString(line(r.cells()))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteReport writes the row's HTML comparison: the tuned package's
// report beside the default's (htmlreport, as ipu-translate --emit-report
// --compare draws it). It reports false for a row that was not tuned.
func (r *SweepRow) WriteReport(w io.Writer) (bool, error) {
	if r.tunedPackage == nil {
		return false, nil
	}
	tg, err := target.Lookup(r.Target)
	if err != nil {
		return false, err
	}
	build := func(title string, p *ipupkg.Package) (*htmlreport.Data, error) {
		cycles, err := htmlreport.Cycles(p, tg)
		if err != nil {
			return nil, err
		}
		return htmlreport.Build(title, p, tg, cycles)
	}
	name := filepath.Base(r.Model)
	tuned, err := build(fmt.Sprintf("%s on %s, tuned (%s)", name, r.Target, r.Best), r.tunedPackage)
	if err != nil {
		return false, err
	}
	def, err := build(fmt.Sprintf("%s on %s, default", name, r.Target), r.defaultPackage)
	if err != nil {
		return false, err
	}
	return true, htmlreport.Write(w, tuned, def)
}

// FileStem names a row's files: model and target, made safe for a path.
func (r *SweepRow) FileStem() string {
	stem := strings.TrimSuffix(filepath.Base(r.Model), filepath.Ext(r.Model)) + "-" + r.Target
	return strings.Map(func(c rune) rune {
		if c == '{' || c == '}' || c == ' ' || c == '=' || c == '/' {
			return '_'
		}
		return c
	}, stem)
}
