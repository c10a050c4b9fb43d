package passes

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
)

// A crash reproducer is a file that replays a failing pipeline: the IR
// followed by MLIR's resource block naming the pipeline,
//
//	{-#
//	  external_resources: {
//	    mlir_reproducer: {
//	      pipeline: "builtin.module(func.func(cse))",
//	      disable_threading: false,
//	      verify_each: true
//	    }
//	  }
//	#-}
//
// so that `ipu-opt FILE --run-reproducer` (and mlir-opt's) runs it again.
// The full form holds the IR before the whole pipeline; the local form
// holds the IR just before the failing pass and only that pass.

// ReproducerConfig is the mlir_reproducer entry of a reproducer.
type ReproducerConfig struct {
	Pipeline         string
	DisableThreading bool
	VerifyEach       bool
	// Found is set when a pipeline was read (ReproducerHandler).
	Found bool
}

// Apply sets the options the reproducer recorded.
func (c ReproducerConfig) Apply(o *Options) {
	o.DisableThreading = c.DisableThreading
	o.VerifyEach = c.VerifyEach
}

func (pm *PassManager) writeReproducer(top *ir.Operation, failures []*failure, snapshot *ir.Operation) *ir.Diagnostic {
	o := &pm.opts
	first := failures[0]
	var reproIR *ir.Operation
	pipeline := pm.pipeline.reproducerText()
	if o.LocalReproducer {
		reproIR = localReproducerIR(pm.ctx, top, first)
		var b strings.Builder
		for _, a := range first.anchors {
			b.WriteString(a + "(")
		}
		b.WriteString(first.pass.Name())
		if opts := optionsText(first.pass); opts != "" {
			b.WriteString("{" + opts + "}")
		}
		b.WriteString(strings.Repeat(")", len(first.anchors)))
		pipeline = b.String()
	} else {
		reproIR = snapshot
	}
	var buf bytes.Buffer
	err := o.printFunc()(&buf, reproIR)
	if err == nil {
		for bytes.HasSuffix(buf.Bytes(), []byte("\n")) {
			buf.Truncate(buf.Len() - 1)
		}
		fmt.Fprintf(&buf, "\n\n{-#\n  external_resources: {\n    mlir_reproducer: {\n      pipeline: %s,\n      disable_threading: %t,\n      verify_each: %t\n    }\n  }\n#-}\n",
			ir.AppendQuoted(nil, pipeline), o.DisableThreading, o.VerifyEach)
		err = os.WriteFile(o.CrashReproducer, buf.Bytes(), 0o644)
	}
	d := ir.Errorf(first.op.Loc(), "Failures have been detected while processing an MLIR pass pipeline")
	what := first.String()
	if len(failures) > 1 {
		parts := make([]string, len(failures))
		for i, f := range failures {
			parts[i] = f.String()
		}
		what = "[" + strings.Join(parts, ", ") + "]"
	}
	if err != nil {
		return d.AttachNote(nil, "Pipeline failed while executing %s: failed to write reproducer to `%s`: %v", what, o.CrashReproducer, err)
	}
	return d.AttachNote(nil, "Pipeline failed while executing %s: reproducer generated at `%s`", what, o.CrashReproducer)
}

// localReproducerIR is a copy of the top-level op in which the op the
// failing pass ran on is replaced by its state before that pass.
func localReproducerIR(ctx *ir.Context, top *ir.Operation, fl *failure) *ir.Operation {
	if fl.op == top {
		return fl.snapshot
	}
	// Path of positions from top down to the failing op.
	var path [][3]int
	for o := fl.op; o != top && o != nil; o = o.ParentOp() {
		reg := o.ParentRegion()
		blk := o.Block()
		pos := 0
		for p := blk.First(); p != o; p = p.Next() {
			pos++
		}
		path = append(path, [3]int{reg.Index(), blk.Index(), pos})
	}
	clone := top.Clone(ctx, nil)
	target := clone
	for i := len(path) - 1; i >= 0; i-- {
		p := path[i]
		target = target.Region(p[0]).Blocks()[p[1]].First()
		for k := 0; k < p[2]; k++ {
			target = target.Next()
		}
	}
	snap := fl.snapshot.Clone(ctx, nil)
	target.Block().InsertBefore(snap, target)
	target.ReplaceAllUsesWith(snap.Results())
	target.Erase()
	return clone
}

// ReproducerHandler returns the parser's handler of the mlir_reproducer
// external resource group, which fills cfg as mlir-opt reads it for
// --run-reproducer: pipeline (a string), disable_threading and verify_each
// (true or false); a later entry overrides an earlier one, and any other
// key is an error at the key. Values of the wrong kind are errors at the
// value, in mlir-opt's words.
func ReproducerHandler(cfg *ReproducerConfig) parser.ResourceHandler {
	return func(e *parser.ResourceEntry) error {
		var err error
		switch e.Key {
		case "pipeline":
			cfg.Pipeline, err = e.String()
			cfg.Found = err == nil
		case "disable_threading":
			cfg.DisableThreading, err = e.Bool()
		case "verify_each":
			cfg.VerifyEach, err = e.Bool()
		default:
			err = e.Errorf("unknown 'mlir_reproducer' resource key '%s'", e.Key)
		}
		return err
	}
}
