package toolkit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/ipuir/ipuir/runtime/atomicfile"
)

// Outputs are the files one run of a tool writes, under one rule for
// every flag that names a file:
//
//   - before any work, each output is refused if it is the same file as
//     an input or as another output (the same file where it exists, the
//     same path where it does not), naming both flags, or if it cannot be
//     written there (no such folder, a link to nothing);
//   - each output is written to a temporary file beside it, and all of
//     them are renamed into place together when the run succeeds
//     (Commit); a failed run (Abort) leaves every existing file as it was;
//   - "-" is stdout, and a target that is not a regular file (/dev/stdout,
//     /dev/fd/N, a pipe, a device) is written through as the run produces
//     it, never renamed over.
type Outputs struct {
	stdout  io.Writer
	inputs  []named
	outputs []*Output
}

type named struct{ flag, path string }

// Output is one output file of a run.
type Output struct {
	Flag, Path string
	outs       *Outputs
	pending    *atomicfile.Pending
}

// NewOutputs starts a run's outputs; "-" writes to stdout.
func NewOutputs(stdout io.Writer) *Outputs { return &Outputs{stdout: stdout} }

// Input records a file the run reads, named in messages by flag ("the
// input file", "--inputs"). Standard input ("-" or "") is no file.
func (o *Outputs) Input(flag, path string) {
	if path != "-" && path != "" {
		o.inputs = append(o.inputs, named{flag, path})
	}
}

// Add registers an output named by flag, and checks it against the inputs
// and the outputs added before it. An empty path is no output (nil, nil).
func (o *Outputs) Add(flag, path string) (*Output, error) {
	if path == "" {
		return nil, nil
	}
	out := &Output{Flag: flag, Path: path, outs: o}
	for _, prev := range o.outputs {
		if same(prev.Path, path) {
			return nil, fmt.Errorf("%s '%s' is %s too: refusing to write one file twice", flag, path, describe(prev.Flag))
		}
	}
	if path != "-" {
		for _, in := range o.inputs {
			if atomicfile.SameFile(in.path, path) {
				return nil, fmt.Errorf("%s '%s' is %s: refusing to overwrite an input", flag, path, describe(in.flag))
			}
		}
		if _, _, _, err := atomicfile.Resolve(path); err != nil {
			return nil, fmt.Errorf("%s: %v", flag, err)
		}
	}
	o.outputs = append(o.outputs, out)
	return out, nil
}

// describe names a file by its flag ("the file --inputs names"), or by
// the description a tool gave ("the input file").
func describe(flag string) string {
	if strings.HasPrefix(flag, "-") {
		return "the file " + flag + " names"
	}
	return flag
}

func same(a, b string) bool {
	if a == "-" || b == "-" {
		return a == b
	}
	return atomicfile.SameFile(a, b)
}

// Write produces the output with write, through a buffer: to stdout for
// "-", straight to a target that is not a regular file, and otherwise to a
// temporary file that Commit renames into place (a second Write replaces
// what the first wrote). The temporary file is made when the first bytes
// are ready, not when the work starts, so that a run stopped while it
// works (a signal, a kill) leaves nothing beside the output; one stopped
// while it writes leaves nothing either when the tool removes its
// temporaries on the signal (RemoveOutputsOnSignal). An error of write is
// returned as it is; one of the output itself names the file.
func (out *Output) Write(write func(io.Writer) error) error {
	if out.pending != nil {
		out.pending.Discard()
		out.pending = nil
	}
	var dst io.Writer = out.outs.stdout
	var createErr error
	if out.Path != "-" {
		dst = &lazyFile{out: out, err: &createErr}
	}
	var writeErr error
	bw := bufio.NewWriterSize(recordingWriter{dst, &writeErr}, 256<<10)
	err := write(bw)
	if ferr := bw.Flush(); err == nil {
		err = ferr
	}
	if createErr != nil {
		return createErr
	}
	if err != nil && writeErr != nil && errors.Is(err, writeErr) {
		return fmt.Errorf("cannot write '%s': %v", out.Path, writeErr)
	}
	if err == nil && out.Path != "-" && out.pending == nil {
		// Nothing was written: the output is an empty file.
		if _, err := (&lazyFile{out: out, err: &createErr}).Write(nil); err != nil {
			return err
		}
	}
	return err
}

// lazyFile creates out's temporary file at its first write.
type lazyFile struct {
	out *Output
	err *error // the creation's error, for Write to return as it is
}

func (l *lazyFile) Write(b []byte) (int, error) {
	if l.out.pending == nil {
		p, err := atomicfile.Create(l.out.Path)
		if err != nil {
			*l.err = fmt.Errorf("%s: %v", l.out.Flag, err)
			return 0, *l.err
		}
		l.out.pending = p
	}
	return l.out.pending.Writer().Write(b)
}

// WriteData writes data as the output.
func (out *Output) WriteData(data []byte) error {
	return out.Write(func(w io.Writer) error { _, err := w.Write(data); return err })
}

// Commit puts every output written in place, in the order they were
// added. Outputs never written are left alone.
func (o *Outputs) Commit() error {
	for _, out := range o.outputs {
		if out.pending == nil {
			continue
		}
		if err := out.pending.Commit(); err != nil {
			o.Abort()
			return fmt.Errorf("%s: %v", out.Flag, err)
		}
	}
	return nil
}

// Abort drops every output not yet committed.
func (o *Outputs) Abort() {
	for _, out := range o.outputs {
		if out.pending != nil {
			out.pending.Discard()
		}
	}
}

// recordingWriter notes the first error of w in *err.
type recordingWriter struct {
	w   io.Writer
	err *error
}

func (r recordingWriter) Write(b []byte) (int, error) {
	n, err := r.w.Write(b)
	if err != nil && *r.err == nil {
		*r.err = err
	}
	return n, err
}

// WriteOutput writes data to the file called name (stdout for "-" or ""),
// whole or not at all, for a tool with one output; inputs are the files
// it read, which it refuses to overwrite.
func WriteOutput(name string, data []byte, stdout io.Writer, inputs ...string) error {
	if name == "" {
		name = "-"
	}
	outs := NewOutputs(stdout)
	for _, in := range inputs {
		outs.Input("the input file", in)
	}
	out, err := outs.Add("-o", name)
	if err != nil {
		return err
	}
	if err := out.WriteData(data); err != nil {
		outs.Abort()
		return err
	}
	return outs.Commit()
}
