package tensor

import (
	"testing"

	"github.com/ipuir/ipuir/asmformat"
)

// Every op's assembly format compiles against its OpDef: each operand,
// attribute and result type is bound or inferable.
func TestAssemblyFormatsCompile(t *testing.T) {
	if err := asmformat.CheckDialect(Dialect); err != nil {
		t.Fatal(err)
	}
}
