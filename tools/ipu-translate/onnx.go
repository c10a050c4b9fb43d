package main

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/atomicfile"
	"github.com/ipuir/ipuir/runtime/npy"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/toolkit"
	"github.com/ipuir/ipuir/translate/onnximport"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// importONNX reads the model at path, imports it, checks that the module
// parses and verifies, and writes it to -o (stdout by default), whole or
// not at all.
func importONNX(path string, args []string, opts onnximport.Options, stdout io.Writer, log *slog.Logger) error {
	// -o is the driver's: read it from the command line again, since this
	// translation reads no IR.
	if opts.Target == "" {
		return fmt.Errorf("--import-onnx needs --target, the machine the module is for (known targets: %s)", strings.Join(target.Names(), ", "))
	}
	if _, err := target.Lookup(opts.Target); err != nil {
		return fmt.Errorf("--target: %w", err)
	}
	outs, out, err := earlyOutputs(args, stdout, [2]string{"--import-onnx", path})
	if err != nil {
		return err
	}
	defer outs.Abort()
	data, err := atomicfile.ReadFile(path, maxModelBytes)
	if err != nil {
		return err
	}
	log.Info("reading ONNX model", "path", path, "bytes", len(data))
	// The model's initializers refer to data, and the text to them: the
	// weights are held once, and written out in hex as the text is.
	var model onnxpb.ModelProto
	if err := onnximport.Unmarshal(data, &model); err != nil {
		return fmt.Errorf("%s: not an ONNX model: %v", path, err)
	}
	opts.File, opts.Dir = filepath.Base(path), filepath.Dir(path)
	text, err := onnximport.ImportText(&model, opts)
	if err != nil {
		return err
	}
	// The module must parse and verify: a failure here is the importer's.
	// Its skeleton (each weight cut to a splat of its type) is what is
	// checked, so that the weights' hex is never held whole.
	loader := &toolkit.Loader{Setup: registry.RegisterDialects, Env: irtarget.EnvOfModule}
	var diag bytes.Buffer
	if _, err := loader.LoadSource(filepath.Base(path)+" (imported)", text.Skeleton(), &diag); err != nil {
		return fmt.Errorf("the imported module does not verify (an importer bug):\n%s%v", diag.String(), err)
	}
	log.Info("imported ONNX model", "path", path, "bytes", text.Len())
	if err := out.Write(func(w io.Writer) error { _, err := text.WriteTo(w); return err }); err != nil {
		return err
	}
	return outs.Commit()
}

// parseInputShapes reads --input-shape NAME=D0,D1,... flags, one per
// input; a rank-0 input is NAME= (no dimensions).
func parseInputShapes(flags []string) (map[string][]int64, error) {
	pins := map[string][]int64{}
	for _, f := range flags {
		name, dims, ok := strings.Cut(f, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("--input-shape=%s: expected NAME=D0,D1,... (for example --input-shape x=1,3,224,224)", f)
		}
		if _, dup := pins[name]; dup {
			return nil, fmt.Errorf("--input-shape: input '%s' is given twice", name)
		}
		shape := []int64{}
		if dims != "" {
			for _, d := range strings.Split(dims, ",") {
				n, err := strconv.ParseInt(strings.TrimSpace(d), 10, 64)
				if err != nil || n < 0 {
					return nil, fmt.Errorf("--input-shape=%s: dimension '%s' is not a whole number of at least 0", f, d)
				}
				shape = append(shape, n)
			}
		}
		pins[name] = shape
	}
	return pins, nil
}

// readInputValues reads --input-value NAME=FILE flags: FILE is a .npy
// array or a serialized ONNX TensorProto (a conformance test's
// input_K.pb), told apart by the .npy magic.
func readInputValues(flags []string) (map[string]*onnximport.Tensor, error) {
	values := map[string]*onnximport.Tensor{}
	for _, f := range flags {
		name, file, ok := strings.Cut(f, "=")
		if !ok || name == "" || file == "" {
			return nil, fmt.Errorf("--input-value=%s: expected NAME=FILE (a .npy file or a serialized TensorProto)", f)
		}
		if _, dup := values[name]; dup {
			return nil, fmt.Errorf("--input-value: input '%s' is given twice", name)
		}
		data, err := atomicfile.ReadFile(file, maxModelBytes)
		if err != nil {
			return nil, fmt.Errorf("--input-value %s: %v", name, err)
		}
		if bytes.HasPrefix(data, []byte("\x93NUMPY")) {
			a, err := npy.Decode(data)
			if err != nil {
				return nil, fmt.Errorf("--input-value %s: %s: %v", name, file, err)
			}
			shape := make([]int64, len(a.Shape))
			for i, d := range a.Shape {
				shape[i] = int64(d)
			}
			values[name] = &onnximport.Tensor{Elem: a.DType.Elem(), Shape: shape, Values: a.Float64s()}
			continue
		}
		t, err := onnximport.ReadTensor(data, file)
		if err != nil {
			return nil, fmt.Errorf("--input-value %s: %v", name, err)
		}
		values[name] = t
	}
	return values, nil
}

// maxModelBytes is the largest ONNX model file read: protobuf's own limit
// on a message (initializers beyond it are external data).
const maxModelBytes = 2 << 30

// earlyOutputs is -o for a translation that runs before the driver reads
// any IR: read from the command line again, and registered with the run's
// outputs against the translation's input files (flag, path).
func earlyOutputs(args []string, stdout io.Writer, inputs ...[2]string) (*toolkit.Outputs, *toolkit.Output, error) {
	fs := pflag.NewFlagSet("ipu-translate", pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.SetOutput(io.Discard)
	output := fs.StringP("output", "o", "-", "")
	_ = fs.Parse(args)
	outs := toolkit.NewOutputs(stdout)
	for _, in := range inputs {
		outs.Input(in[0], in[1])
	}
	out, err := outs.Add("-o", *output)
	if err != nil {
		return nil, nil, err
	}
	return outs, out, nil
}
