// Command gen writes the example programs of package examples into the
// current directory (go generate runs it in examples/), or checks them with
// -check.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

func main() {
	dir := flag.String("dir", ".", "directory to write the examples to")
	check := flag.Bool("check", false, "report files that differ from what would be generated, write nothing")
	flag.Parse()
	if err := run(*dir, *check); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

type file struct {
	name string
	data []byte
}

func run(dir string, check bool) error {
	stale := 0
	var files []file
	for _, v := range Variants {
		text, err := v.Text()
		if err != nil {
			return err
		}
		model, err := v.ONNX()
		if err != nil {
			return err
		}
		files = append(files, file{v.File, []byte(text)}, file{v.onnxFile(), model})
	}
	for _, e := range Encoders {
		files = append(files, file{e.File, []byte(e.Text())})
	}
	{
		for _, f := range files {
			path := filepath.Join(dir, f.name)
			if check {
				old, err := os.ReadFile(path)
				if err != nil || !bytes.Equal(old, f.data) {
					fmt.Fprintf(os.Stderr, "%s is stale: run go generate ./examples\n", path)
					stale++
				}
				continue
			}
			if err := os.WriteFile(path, f.data, 0o644); err != nil {
				return err
			}
		}
	}
	if stale > 0 {
		return fmt.Errorf("%d stale files", stale)
	}
	return nil
}
