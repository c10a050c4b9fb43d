package check

import (
	"fmt"
	"math"
	"slices"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/runtime/device"
	"github.com/ipuir/ipuir/runtime/ipupkg"
)

// Phase marks the start of a long phase of a run ("loading", "running")
// and returns what ends it (for a progress line); nil is silent.
type Phase func(name string) (end func())

// Execute runs pkg on dev, which is attached and initialised: it loads the
// package, opens a session, writes the inputs (one per input stream, in
// order), runs the program and reads what a check compares: every output
// stream and every checkpoint the device took (nil for one it did not).
func Execute(dev device.Device, pkg *ipupkg.Package, inputs []*eval.Array, phase Phase) (Device, *device.Cycles, error) {
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
				return Device{}, nil, fmt.Errorf("input #%d: %v", i, err)
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
			// Widened to the host's type (i64 computed as i32).
			out.Outputs[i], err = eval.Convert(out.Outputs[i], s.Elem)
		}
		if err != nil {
			return Device{}, nil, fmt.Errorf("output #%d: %v", i, err)
		}
	}
	for i, c := range pkg.Checkpoints {
		data, err := sess.Checkpoint(i)
		if err != nil {
			continue // Run says it was not taken
		}
		buf := pkg.Buffers[c.Buffer]
		if out.Checkpoints[i], err = eval.FromBytes(data, buf.Elem, buf.Shape); err != nil {
			return Device{}, nil, fmt.Errorf("checkpoint %d (%s): %v", i, c.Name, err)
		}
	}
	return out, sess.Cycles(), nil
}

// toDevice is a in the element type of stream s's buffer: itself, or an
// i64 input narrowed to the i32 the device computes it in, every value
// checked to fit.
func toDevice(a *eval.Array, s ipupkg.Stream, pkg *ipupkg.Package) (*eval.Array, error) {
	dev := pkg.Buffers[s.Buffer].Elem
	if a.Kind == dev || a.Kind != s.Elem {
		return a, nil
	}
	for k, v := range a.Data {
		if v < math.MinInt32 || v > math.MaxInt32 {
			return nil, fmt.Errorf("element %d is %d, beyond the 32 bits the device computes %v in", k, int64(v), s.Elem)
		}
	}
	return eval.Convert(a, dev)
}

// InputStreams are pkg's input streams in order (as OutputStreams).
func InputStreams(pkg *ipupkg.Package) []ipupkg.Stream {
	var out []ipupkg.Stream
	for _, s := range pkg.Streams {
		if !s.Output {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b ipupkg.Stream) int { return a.Index - b.Index })
	return out
}

// OutputStreams are pkg's output streams in order (the reader checked
// that they are numbered 0 to n-1, each once).
func OutputStreams(pkg *ipupkg.Package) []ipupkg.Stream {
	var out []ipupkg.Stream
	for _, s := range pkg.Streams {
		if s.Output {
			out = append(out, s)
		}
	}
	slices.SortFunc(out, func(a, b ipupkg.Stream) int { return a.Index - b.Index })
	return out
}
