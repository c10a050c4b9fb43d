package main

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/ipuir/ipuir/elem/irelem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/runtime/npy"
)

// deliver writes the outputs to the --outputs files, or summarises them on
// stdout (every value with --print).
func deliver(o *options, who string, outputs []*eval.Array, stdout io.Writer) error {
	summarise(o, outputs, stdout)
	return writeOutputs(o, who, outputs)
}

// summarise prints a line per output (and every value with --print)
// unless --outputs writes them.
func summarise(o *options, outputs []*eval.Array, stdout io.Writer) {
	if len(o.outputs) == 0 || o.print {
		for i, a := range outputs {
			fmt.Fprintf(stdout, "%s: %s\n", outputLabel(o.outputNames, i), summary(a))
			if o.print {
				fmt.Fprintln(stdout, values(a))
			}
		}
	}
}

// writeOutputs writes the --outputs files (put in place when the whole
// run succeeds).
func writeOutputs(o *options, who string, outputs []*eval.Array) error {
	if len(o.outFiles) == 0 {
		return nil
	}
	if len(o.outFiles) != len(outputs) {
		return fmt.Errorf("%s returns %s, but --outputs names %s", who, count(len(outputs), "result"), count(len(o.outFiles), "file"))
	}
	for i, a := range outputs {
		n, err := reference.ToNPY(a)
		if err == nil {
			err = o.outFiles[i].Write(func(w io.Writer) error { return npy.Write(w, n) })
		}
		if err != nil {
			return fmt.Errorf("%s (%s): %w", outputLabel(o.outputNames, i), o.outFiles[i].Path, err)
		}
	}
	return nil
}

// outputLabel names output i in messages: output #0 'logits', or output #0.
func outputLabel(names []string, i int) string {
	if i < len(names) && names[i] != "" {
		return fmt.Sprintf("output #%d '%s'", i, names[i])
	}
	return fmt.Sprintf("output #%d", i)
}

// summary is a line of statistics: type, min, max, mean, and the count of
// non-finite values when there are any.
func summary(a *eval.Array) string {
	lo, hi, sum, bad := math.Inf(1), math.Inf(-1), 0.0, 0
	for _, v := range a.Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			bad++
			continue
		}
		lo, hi, sum = math.Min(lo, v), math.Max(hi, v), sum+v
	}
	s := a.TypeString()
	if finite := len(a.Data) - bad; finite > 0 {
		s += fmt.Sprintf(" min=%s max=%s mean=%s", num(lo), num(hi), num(sum/float64(finite)))
	}
	if bad > 0 {
		s += fmt.Sprintf(" non-finite=%d", bad)
	}
	return s
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// values prints the array as nested brackets, row major.
func values(a *eval.Array) string {
	var b strings.Builder
	var rec func(shape []int, off int) int
	rec = func(shape []int, off int) int {
		if len(shape) == 0 {
			b.WriteString(num(a.Data[off]))
			return off + 1
		}
		b.WriteByte('[')
		for i := 0; i < shape[0]; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			off = rec(shape[1:], off)
		}
		b.WriteByte(']')
		return off
	}
	rec(a.Shape, 0)
	return b.String()
}

// compare checks each output of who (a function or a package) against the
// --compare file at its position and prints one line per output; any
// error above --atol fails the run. ctx makes the outputs' types.
func compare(o *options, who string, ctx *ir.Context, outputs []*eval.Array, stdout io.Writer) error {
	if len(o.compare) == 0 {
		return nil
	}
	if len(o.compare) != len(outputs) {
		return fmt.Errorf("%s returns %s, but --compare names %s", who, count(len(outputs), "result"), count(len(o.compare), "file"))
	}
	failed := 0
	for i, path := range o.compare {
		n, err := npy.ReadFile(path)
		if err != nil {
			return fmt.Errorf("--compare #%d: %w", i, err)
		}
		want, err := reference.FromNPY(n, typeOf(ctx, outputs[i]))
		if err != nil {
			return fmt.Errorf("--compare #%d (%s): %w", i, path, err)
		}
		diff, err := eval.MaxAbsDiff(outputs[i], want)
		if err != nil {
			return fmt.Errorf("--compare #%d (%s): %w", i, path, err)
		}
		verdict := "PASS"
		if !(diff <= o.atol) {
			verdict = "FAIL"
			failed++
		}
		fmt.Fprintf(stdout, "%s: max abs error %s against %s (atol %s): %s\n", outputLabel(o.outputNames, i), num(diff), path, num(o.atol), verdict)
	}
	if failed > 0 {
		return fmt.Errorf("%s out of tolerance", count(failed, "output"))
	}
	return nil
}

// typeOf is the IR type of a value: a tensor type, or the element type for
// a scalar.
func typeOf(ctx *ir.Context, a *eval.Array) ir.Type {
	et := irelem.Type(ctx, a.Kind)
	if a.Rank() == 0 {
		return et
	}
	dims := make([]int64, len(a.Shape))
	for i, d := range a.Shape {
		dims[i] = int64(d)
	}
	return ctx.Tensor(dims, et)
}
