package main

import (
	"fmt"
	"io"
	"log/slog"
	"path/filepath"

	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/translate/htmlreport"
)

// emitReport writes the HTML report of the package at path (and of other
// beside it) to -o, with cycles from a run on the simulated device.
func emitReport(path, other string, args []string, stdout io.Writer, log *slog.Logger) error {
	outs, out, err := earlyOutputs(args, stdout, [2]string{"--emit-report", path}, [2]string{"--compare", other})
	if err != nil {
		return err
	}
	defer outs.Abort()
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
	if err := out.Write(func(w io.Writer) error { return htmlreport.Write(w, d, o) }); err != nil {
		return err
	}
	return outs.Commit()
}

func reportOf(path string, log *slog.Logger) (*htmlreport.Data, error) {
	p, _, err := readPackage(path, log)
	if err != nil {
		return nil, err
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
