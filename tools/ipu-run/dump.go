package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/check"
	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/npy"
)

// dumpIndex is index.json of a --dump-values folder: every value the run
// read back, in program order (the checkpoints, then the outputs), each
// named as the source names it (an imported model's ONNX node), with the
// .npy file that holds it.
type dumpIndex struct {
	Package string      `json:"package"`
	Values  []dumpValue `json:"values"`
}

type dumpValue struct {
	Name string `json:"name"`
	// Kind is "checkpoint" (an op's value, in the source's layout) or
	// "output".
	Kind  string  `json:"kind"`
	File  string  `json:"file"`
	DType string  `json:"dtype"`
	Shape []int64 `json:"shape"`
	// Source is the op's line and column in the package's source.
	Source string `json:"source,omitempty"`
}

// checkDumpDir refuses a --dump-values folder that exists and is not an
// empty folder (a link to one included), before the run.
func checkDumpDir(dir string) error {
	if fi, err := os.Lstat(dir); err == nil {
		entries, rerr := os.ReadDir(dir)
		if !fi.IsDir() || rerr != nil || len(entries) > 0 {
			return fmt.Errorf("--dump-values %s: it exists and is not an empty folder; name a new one", dir)
		}
	}
	return nil
}

// dumpValues writes every checkpoint and output of a run into a new folder
// dir: one .npy file each and index.json. The folder is built beside dir
// and renamed into place whole, so that dir holds all of it or is not
// there; a dir that exists is refused, unless it is an empty folder.
func dumpValues(dir, pkgFile string, pkg *ipupkg.Package, got check.Device) error {
	if err := checkDumpDir(dir); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(filepath.Dir(filepath.Clean(dir)), "."+filepath.Base(dir)+".partial-")
	if err != nil {
		return fmt.Errorf("--dump-values: %v", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	index := dumpIndex{Package: filepath.Base(pkgFile)}
	write := func(name, kind, source string, a *eval.Array) error {
		file := fmt.Sprintf("%04d.npy", len(index.Values))
		n, err := reference.ToNPY(a)
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		f, err := os.OpenFile(filepath.Join(tmp, file), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return err
		}
		if err := npy.Write(f, n); err != nil {
			f.Close()
			return fmt.Errorf("%s: %v", name, err)
		}
		if err := f.Close(); err != nil {
			return err
		}
		shape := make([]int64, len(a.Shape))
		for i, d := range a.Shape {
			shape[i] = int64(d)
		}
		index.Values = append(index.Values, dumpValue{Name: name, Kind: kind, File: file, DType: n.DType.Descr(), Shape: shape, Source: source})
		return nil
	}
	for i, c := range pkg.Checkpoints {
		if i >= len(got.Checkpoints) || got.Checkpoints[i] == nil {
			continue // not taken
		}
		if err := write(c.Name, "checkpoint", fmt.Sprintf("%d:%d", c.Line, c.Column), got.Checkpoints[i]); err != nil {
			return fmt.Errorf("--dump-values: %v", err)
		}
	}
	for i, s := range check.OutputStreams(pkg) {
		if i < len(got.Outputs) {
			if err := write(s.Name, "output", "", got.Outputs[i]); err != nil {
				return fmt.Errorf("--dump-values: %v", err)
			}
		}
	}
	var data bytes.Buffer
	enc := json.NewEncoder(&data)
	enc.SetEscapeHTML(false) // "<f2" as NumPy spells it
	enc.SetIndent("", "  ")
	err = enc.Encode(index)
	if err == nil {
		err = os.WriteFile(filepath.Join(tmp, "index.json"), data.Bytes(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp, dir)
	}
	if err != nil {
		return fmt.Errorf("--dump-values: %v", err)
	}
	done = true
	return nil
}
