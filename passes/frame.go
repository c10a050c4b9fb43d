package passes

import (
	"bytes"
	"io"

	"github.com/ipuir/ipuir/ir"
)

// frame collects what one task of the pass manager produces: diagnostics
// emitted by passes, errors of failed passes, IR dumps, times and failure
// records. Passes running in parallel on sibling ops each get their own
// frame; the frames are merged into their parent in IR order once all
// siblings are done, which makes the output of a parallel run the same as
// that of a sequential one.
type frame struct {
	// emitTo receives diagnostics at once (the top frame); nil buffers
	// them in emitted.
	emitTo  func(*ir.Diagnostic)
	emitted []*ir.Diagnostic
	errors  []*ir.Diagnostic
	// out receives IR dumps at once (the top frame); nil buffers them.
	out      io.Writer
	buffered bytes.Buffer
	times    timeAcc
	failures []*failure
	worker   int // the goroutine slot that ran the task, for timing
}

func newChildFrame(worker int) *frame { return &frame{worker: worker} }

func (f *frame) emit(d *ir.Diagnostic) {
	if f.emitTo != nil {
		f.emitTo(d)
		return
	}
	f.emitted = append(f.emitted, d)
}

func (f *frame) writer() io.Writer {
	if f.out != nil {
		return f.out
	}
	return &f.buffered
}

// mergeChildren appends the children's results to f, in order, and adds
// their times: per worker the times of its tasks add up; across workers
// wall time is the longest worker's and user time the sum.
func (f *frame) mergeChildren(children []*frame) {
	workers := map[int]timeAcc{}
	var order []int
	for _, c := range children {
		if c == nil {
			continue
		}
		for _, d := range c.emitted {
			f.emit(d)
		}
		f.errors = append(f.errors, c.errors...)
		if c.buffered.Len() > 0 {
			f.writer().Write(c.buffered.Bytes())
		}
		f.failures = append(f.failures, c.failures...)
		acc, ok := workers[c.worker]
		if !ok {
			acc = timeAcc{}
			workers[c.worker] = acc
			order = append(order, c.worker)
		}
		acc.addAll(c.times, false)
	}
	if len(order) == 1 {
		f.times.addAll(workers[order[0]], false)
		return
	}
	section := timeAcc{}
	for _, w := range order {
		section.addAll(workers[w], true)
	}
	f.times.addAll(section, false)
}
