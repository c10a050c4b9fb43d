package reference

import (
	"testing"

	funcd "github.com/ipuir/ipuir/dialects/func"
	"github.com/ipuir/ipuir/dialects/tensor"
	"github.com/ipuir/ipuir/ir"
)

// tensorContext is a context with the dialects the interpreter runs:
// func and tensor.
func tensorContext(t testing.TB) *ir.Context {
	t.Helper()
	ctx := ir.NewContext()
	for _, register := range []func(*ir.Context) error{funcd.Register, tensor.Register} {
		if err := register(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return ctx
}
