// Package registry is the one place that lists every dialect and every
// pass of ipuir (MLIR's InitAllDialects and InitAllPasses). Every tool
// registers through it, so that ipu-opt, ipu-run, ipu-translate and
// ipu-dialect-doc know the same IR; a tool of a user's own calls it and
// then registers its own dialects and passes beside.
package registry

import (
	"github.com/ipuir/ipuir/asmformat"
	"github.com/ipuir/ipuir/conversion/exchangetotileasm"
	"github.com/ipuir/ipuir/conversion/tensortotiled"
	"github.com/ipuir/ipuir/conversion/tiledtoexchange"
	"github.com/ipuir/ipuir/dialects/exchange"
	funcd "github.com/ipuir/ipuir/dialects/func"
	"github.com/ipuir/ipuir/dialects/tensor"
	tensortransforms "github.com/ipuir/ipuir/dialects/tensor/transforms"
	"github.com/ipuir/ipuir/dialects/tileasm"
	"github.com/ipuir/ipuir/dialects/tiled"
	tiledtransforms "github.com/ipuir/ipuir/dialects/tiled/transforms"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/passes"
	"github.com/ipuir/ipuir/transforms"
)

// Dialects are ipuir's dialects, lowest level last (builtin is in every
// context already).
func Dialects() []*ir.Dialect {
	return []*ir.Dialect{funcd.Dialect, tensor.Dialect, tiled.Dialect, exchange.Dialect, tileasm.Dialect}
}

// RegisterDialects registers every dialect of Dialects with ctx, after
// checking their ops' assembly formats.
func RegisterDialects(ctx *ir.Context) error {
	for _, d := range Dialects() {
		if err := asmformat.CheckDialect(d); err != nil {
			return err
		}
		if err := ctx.RegisterDialect(d); err != nil {
			return err
		}
	}
	return nil
}

// NewContext returns a context with every dialect registered.
func NewContext() *ir.Context {
	ctx := ir.NewContext()
	if err := RegisterDialects(ctx); err != nil {
		panic("BUG: registering ipuir's dialects: " + err.Error())
	}
	return ctx
}

// Passes are every pass of ipuir, each once: the generic transforms, then
// the passes of single dialects, then the lowerings between dialects in
// lowering order. Pipelines says in which order the lowerings run.
func Passes() []passes.Pass {
	return []passes.Pass{
		// Generic transforms (package transforms).
		&transforms.Canonicalizer{}, &transforms.CSE{}, &transforms.DCE{}, &transforms.SymbolDCE{},
		// Passes of one dialect.
		&tensortransforms.TensorDecompose{}, &tensortransforms.MatmulPrecision{}, &tensortransforms.MatmulPartials{}, &tensortransforms.HostStrings{}, &tensortransforms.NarrowI64{}, &tensortransforms.NarrowF64{}, &tensortransforms.WidenUnsigned{}, &tensortransforms.WidenBF16{}, &tensortransforms.MatmulReassociate{}, &tensortransforms.SinkTransposes{}, &tiledtransforms.TiledEstimate{},
		// Lowerings between dialects (package conversion/...).
		&tensortotiled.PipelineStages{}, &tensortotiled.TiledPrepare{}, &tensortotiled.PlanGemms{}, &tensortotiled.TiledAssignLayouts{}, &tensortotiled.ConvertTensorToTiled{},
		&tiledtoexchange.ConvertTiledToExchange{},
		&exchangetotileasm.ConvertExchangeToTileAsm{},
	}
}

// RegisterPasses registers every pass of Passes and every pipeline of
// Pipelines.
func RegisterPasses(r *passes.Registry) error {
	for _, p := range Passes() {
		if err := r.Register(p); err != nil {
			return err
		}
	}
	return registerPipelines(r)
}

// NewPassRegistry returns a registry holding every pass and pipeline.
func NewPassRegistry() *passes.Registry {
	r := passes.NewRegistry()
	if err := RegisterPasses(r); err != nil {
		panic("BUG: registering ipuir's passes: " + err.Error())
	}
	return r
}

// DialectsAnd registers ipuir's dialects and then ds: the Dialects hook of
// a tool that adds dialects of its own (optmain.Tool).
func DialectsAnd(ds ...*ir.Dialect) func(*ir.Context) error {
	return func(ctx *ir.Context) error {
		if err := RegisterDialects(ctx); err != nil {
			return err
		}
		for _, d := range ds {
			if err := asmformat.CheckDialect(d); err != nil {
				return err
			}
			if err := ctx.RegisterDialect(d); err != nil {
				return err
			}
		}
		return nil
	}
}

// PassesAnd registers ipuir's passes and then those of more: the Passes
// hook of a tool that adds passes of its own.
func PassesAnd(more ...func(*passes.Registry) error) func(*passes.Registry) error {
	return func(r *passes.Registry) error {
		if err := RegisterPasses(r); err != nil {
			return err
		}
		for _, register := range more {
			if err := register(r); err != nil {
				return err
			}
		}
		return nil
	}
}
