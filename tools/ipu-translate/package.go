package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"

	"github.com/ipuir/ipuir/conversion/exchangetotileasm"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/tools/optmain"
	"github.com/ipuir/ipuir/translate/pkgemit"
)

// emitPackage writes module's package to out, compiling a tensor-level
// module to tile-asm first.
func emitPackage(ctx *ir.Context, module *ir.Operation, in *optmain.Input, out io.Writer) error {
	tg, ok := target.FromEnv(in.Env)
	if !ok {
		return module.EmitError("--emit-package needs the module's target: an 'ipu.target' attribute or --target (known targets: %v)", target.Names())
	}
	opts := pkgemit.Options{Compiler: Version, Metadata: []ipupkg.Entry{{Key: "target", Value: tg.Name}}}
	if !pkgemit.HasTileAsm(module) {
		opts.Source = in.Source
		opts.SourceOps = pkgemit.SourceOps(module)
		pipeline := "builtin.module(" + exchangetotileasm.LowerToTileAsmPipeline + ")"
		pm, err := registry.NewPassRegistry().ParsePipeline(pipeline)
		if err != nil {
			return err
		}
		popts := passes.DefaultOptions()
		popts.Env, popts.Logger = in.Env, in.Logger
		if err := passes.NewPassManager(ctx, pm, popts).Run(module); err != nil {
			return err
		}
		opts.Metadata = append(opts.Metadata, ipupkg.Entry{Key: "pipeline", Value: pipeline})
	}
	in.Logger.Info("writing application package", "tiles", tg.Tiles)
	pkg, err := pkgemit.Build(module, tg, opts)
	if err != nil {
		return err
	}
	// The tile-asm verifier applies the device's rules; a package the
	// device would refuse is a compiler bug, never written.
	if err := sim.Validate(pkg); err != nil {
		return fmt.Errorf("BUG: the compiled package would be refused by the device: %v", err)
	}
	data := pkg.Encode()
	if _, err := out.Write(data); err != nil {
		return err
	}
	in.Logger.Info("application package written", "bytes", len(data), "buffers", len(pkg.Buffers), "instructions", len(pkg.Program), "exchange_tables", len(pkg.Exchanges))
	return nil
}

// dumpPackage validates the package at path and prints it.
func dumpPackage(path string, w io.Writer, log *slog.Logger) error {
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("cannot open '%s': %v", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	log.Info("reading application package", "path", path, "bytes", st.Size())
	pkg, sections, err := ipupkg.ReadFile(f, st.Size())
	if err != nil {
		return fmt.Errorf("%s: %v", path, err)
	}
	log.Info("application package read", "tiles", pkg.Tiles, "compiler", pkg.Compiler, "target", pkg.Target)
	return ipupkg.Dump(w, pkg, sections)
}
