package main

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/atomicfile"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/target/irtarget"
	"github.com/ipuir/ipuir/tools/optmain"
	"github.com/ipuir/ipuir/translate/pkgemit"
)

// emitPackage writes module's package to out, compiling a tensor-level
// module to tile-asm first.
func emitPackage(ctx *ir.Context, module *ir.Operation, in *optmain.Input, out io.Writer) error {
	tg, ok := irtarget.FromEnv(in.Env)
	if !ok {
		return module.EmitError("--emit-package needs the module's target: an 'ipu.target' attribute or --target (known targets: %v)", target.Names())
	}
	opts := pkgemit.Options{Compiler: Version, Metadata: []ipupkg.Entry{{Key: "target", Value: tg.Name}}}
	if !pkgemit.HasTileAsm(module) {
		opts.SetSource(in.Source, module)
		pipeline := registry.ModulePipeline(registry.LowerToTileAsm)
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

// dumpPackage validates the package at path and prints it to -o.
func dumpPackage(path string, args []string, stdout io.Writer, log *slog.Logger) error {
	outs, out, err := earlyOutputs(args, stdout, [2]string{"--dump-package", path})
	if err != nil {
		return err
	}
	defer outs.Abort()
	pkg, sections, err := readPackage(path, log)
	if err != nil {
		return err
	}
	log.Info("application package read", "tiles", pkg.Tiles, "compiler", pkg.Compiler, "target", pkg.Target)
	if err := out.Write(func(w io.Writer) error { return ipupkg.Dump(w, pkg, sections) }); err != nil {
		return err
	}
	return outs.Commit()
}

// readPackage reads and validates the package at path (a regular file, or
// a pipe of at most ipupkg.MaxFileBytes).
func readPackage(path string, log *slog.Logger) (*ipupkg.Package, []ipupkg.SectionInfo, error) {
	data, err := atomicfile.ReadFile(path, ipupkg.MaxFileBytes)
	if err != nil {
		return nil, nil, err
	}
	log.Info("reading application package", "path", path, "bytes", len(data))
	pkg, sections, err := ipupkg.Decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	return pkg, sections, nil
}
