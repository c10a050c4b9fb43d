package check

import (
	"fmt"
	"math"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/runtime/device"
	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// Phase marks the start of a long phase of a run ("loading", "running")
// and returns what ends it (for a progress line); nil is silent.
type Phase func(name string) (end func())

// ExecuteOptions are what Execute does besides running the program.
type ExecuteOptions struct {
	// Phase, when not nil, marks the long phases.
	Phase Phase
	// Outputs only: the checkpoints are left on the device (a run that
	// no check compares needs none of their values).
	OutputsOnly bool
}

// Execute runs pkg on dev, which is attached and initialised: it loads the
// package, opens a session, writes the inputs (one per input stream, in
// order), runs the program and reads what a check compares: every output
// stream and, unless opts.OutputsOnly, every checkpoint the device took
// (nil for one it did not).
func Execute(dev device.Device, pkg *ipupkg.Package, inputs []*eval.Array, opts ExecuteOptions) (Device, *device.Cycles, error) {
	phase := opts.Phase
	if phase == nil {
		phase = func(string) func() { return func() {} }
	}
	end := phase("loading the package on " + dev.Name())
	err := dev.Load(pkg)
	end()
	if err != nil {
		return Device{}, nil, fmt.Errorf("loading the package: %v", err)
	}
	sess, err := dev.Session()
	if err != nil {
		return Device{}, nil, err
	}
	ins := InputStreams(pkg)
	for i, a := range inputs {
		if i < len(ins) {
			var err error
			if a, err = toDevice(a, ins[i], pkg); err != nil {
				return Device{}, nil, &NarrowError{Input: i, Name: ins[i].Name, Err: err}
			}
		}
		if err := sess.Write(i, a.Bytes()); err != nil {
			return Device{}, nil, fmt.Errorf("input #%d: %v", i, err)
		}
	}
	end = phase("running on " + dev.Name())
	err = sess.Run()
	end()
	if err != nil {
		return Device{}, nil, err
	}
	streams := OutputStreams(pkg)
	out := Device{Outputs: make([]*eval.Array, len(streams)), Checkpoints: make([]*eval.Array, len(pkg.Checkpoints))}
	for i, s := range streams {
		data, err := sess.Read(i)
		if err == nil {
			out.Outputs[i], err = eval.FromBytes(data, pkg.Buffers[s.Buffer].Elem, s.Shape)
		}
		if err == nil && out.Outputs[i].Kind != s.Elem {
			// Widened to the host's type (i64 computed as i32, f64 as f32).
			out.Outputs[i], err = eval.Convert(out.Outputs[i], s.Elem)
		}
		if err == nil && s.Text {
			// Written as the host holds it: strings (host-strings).
			out.Outputs[i], err = eval.FormatNumbers(out.Outputs[i])
		}
		if err != nil {
			return Device{}, nil, fmt.Errorf("output #%d: %v", i, err)
		}
	}
	for i, c := range pkg.Checkpoints {
		if opts.OutputsOnly {
			break
		}
		data, err := sess.Checkpoint(i)
		if err != nil {
			continue // Run says it was not taken
		}
		buf := pkg.Buffers[c.Buffer]
		if out.Checkpoints[i], err = checkpointValue(c, data, buf); err != nil {
			return Device{}, nil, fmt.Errorf("checkpoint %d (%s): %v", i, c.Name, err)
		}
	}
	return out, sess.Cycles(), nil
}

// NarrowError is an input that the device cannot take in the narrower
// type it computes the stream's type in (an i64 beyond 32 bits, an f64
// beyond f32's range): the program is right, the data are beyond the
// machine.
type NarrowError struct {
	Input int
	Name  string
	Err   error
}

func (e *NarrowError) Error() string {
	if e.Name != "" {
		return fmt.Sprintf("input #%d '%s': %v", e.Input, e.Name, e.Err)
	}
	return fmt.Sprintf("input #%d: %v", e.Input, e.Err)
}

func (e *NarrowError) Unwrap() error { return e.Err }

// toDevice is a in the element type of stream s's buffer: itself, an
// i64 input narrowed to the i32 (an f64 one to the f32) the device
// computes it in, every value checked to be within the narrow type's
// range, or a text stream's strings parsed into numbers.
func toDevice(a *eval.Array, s ipupkg.Stream, pkg *ipupkg.Package) (*eval.Array, error) {
	dev := pkg.Buffers[s.Buffer].Elem
	switch {
	case s.Text && !a.IsStrings():
		return nil, fmt.Errorf("the stream takes strings (the host parses them into %v), but %s was given", dev, a.TypeString())
	case s.Text:
		return eval.ParseNumbers(a, dev)
	case a.IsStrings():
		return nil, fmt.Errorf("the stream takes %v, but strings were given", s.Elem)
	}
	if a.Kind == dev || a.Kind != s.Elem {
		return a, nil
	}
	for k, v := range a.Data {
		switch {
		case dev == elem.I32 && (v < math.MinInt32 || v > math.MaxInt32):
			return nil, fmt.Errorf("element %d is %d, beyond the i32 range [-2147483648, 2147483647] the device computes %v in", k, int64(v), s.Elem)
		case dev == elem.F32 && !math.IsInf(v, 0) && math.Abs(v) > math.MaxFloat32:
			return nil, fmt.Errorf("element %d is %g, beyond the range of the f32 the device computes %v in (a program whose module says ipu.f64 = \"binary64\", or compiled with ipu-translate --f64=binary64, computes binary64 in software)", k, v, s.Elem)
		}
	}
	return eval.Convert(a, dev)
}

// InputStreams are pkg's input streams in order (as OutputStreams).
func InputStreams(pkg *ipupkg.Package) []ipupkg.Stream { return pkg.Inputs() }

// OutputStreams are pkg's output streams in order (the reader checked
// that they are numbered 0 to n-1, each once).
func OutputStreams(pkg *ipupkg.Package) []ipupkg.Stream { return pkg.Outputs() }

// checkpointValue is checkpoint c's value, from its buffer's bytes, in the
// source op's order: transposed back when the program computed it with
// its axes rearranged (ipupkg.Checkpoint.Permutation).
func checkpointValue(c ipupkg.Checkpoint, data []byte, buf ipupkg.Buffer) (*eval.Array, error) {
	a, err := eval.FromBytes(data, buf.Elem, buf.Shape)
	if err != nil || len(c.Permutation) == 0 {
		return a, err
	}
	return eval.Transpose(a, c.Permutation)
}
