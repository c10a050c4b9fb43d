package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/runtime/atomicfile"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/translate/htmlreport"
)

// emitReport writes the HTML report of the package at path (and of other
// beside it) to -o, with cycles from a run on the simulated device.
func emitReport(path, other string, args []string, stdout io.Writer, log *slog.Logger) error {
	fs := pflag.NewFlagSet("ipu-translate", pflag.ContinueOnError)
	fs.ParseErrorsAllowlist.UnknownFlags = true
	fs.SetOutput(io.Discard)
	output := fs.StringP("output", "o", "-", "")
	_ = fs.Parse(args)
	d, err := reportOf(path, log)
	if err != nil {
		return err
	}
	var o *htmlreport.Data
	if other != "" {
		if o, err = reportOf(other, log); err != nil {
			return err
		}
	}
	if *output == "-" {
		return htmlreport.Write(stdout, d, o)
	}
	return atomicfile.WriteFile(*output, func(w io.Writer) error { return htmlreport.Write(w, d, o) })
}

func reportOf(path string, log *slog.Logger) (*htmlreport.Data, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot open '%s': %v", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	p, _, err := ipupkg.ReadFile(f, st.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	tg, err := target.Lookup(p.Target)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	log.Info("simulating for the report's cycles", "path", path, "tiles", p.Tiles)
	cycles, err := htmlreport.Cycles(p, tg)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return htmlreport.Build(filepath.Base(path), p, tg, cycles)
}
