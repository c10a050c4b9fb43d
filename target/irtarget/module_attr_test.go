package irtarget

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/ir"
)

func TestTargetFromModule(t *testing.T) {
	ctx := ir.NewContext()
	ctx.AllowUnregisteredDialects = true
	module := ir.NewModule(ctx, ctx.FileLineCol("m.ipuir", 1, 1))
	fn := ir.NewOperation(ctx, &ir.OperationState{Name: "func.func", NumRegions: 1})
	ir.ModuleBody(module).Append(fn)

	_, err := FromModule(fn)
	wantModuleAttrErr(t, err, "m.ipuir:1:1: error: 'builtin.module' op has no 'ipu.target' attribute naming the target")
	if err := SetOnModule(module, "test16"); err != nil {
		t.Fatal(err)
	}
	if got := ir.AttrString(module.Attr(ModuleAttr)); got != `"test16"` {
		t.Fatalf("attribute %s", got)
	}
	// A function inside the module finds it.
	tgt, err := FromModule(fn)
	if err != nil || tgt.Name != "test16" {
		t.Fatalf("FromModule = %v, %v", tgt, err)
	}
	// --target overrides what the file says.
	if err := SetOnModule(module, "ipu21"); err != nil {
		t.Fatal(err)
	}
	if tgt, _ := FromModule(module); tgt.Name != "ipu21" {
		t.Fatalf("override gave %s", tgt.Name)
	}
	wantModuleAttrErr(t, SetOnModule(module, "ipu9"), `--target: unknown target "ipu9" (did you mean 'ipu2'?); known targets: `)
	wantModuleAttrErr(t, SetOnModule(fn, "ipu21"), "--target applies to a builtin.module, not 'func.func'")

	module.SetAttr(ctx, ModuleAttr, ctx.IntegerAttr(ctx.I(64), 3))
	_, err = FromModule(module)
	wantModuleAttrErr(t, err, "'builtin.module' op attribute 'ipu.target' must be a string naming a target, but is 3 : i64")
	module.SetAttr(ctx, ModuleAttr, ctx.String("nope"))
	_, err = FromModule(module)
	wantModuleAttrErr(t, err, `'builtin.module' op attribute 'ipu.target': unknown target "nope"`)

	loose := ir.NewOperation(ctx, &ir.OperationState{Name: "func.func", NumRegions: 1})
	_, err = FromModule(loose)
	wantModuleAttrErr(t, err, "'func.func' is not inside a builtin.module")
}

func wantModuleAttrErr(t *testing.T, err error, substr string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), substr) {
		t.Fatalf("error %v\nwant one containing %q", err, substr)
	}
}
