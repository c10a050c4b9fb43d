package passes

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ipuir/ipuir/ir"
)

// IRPrintOptions selects the IR dumps of --mlir-print-ir-*.
type IRPrintOptions struct {
	// Before and After list registry names of passes to dump before or
	// after (--mlir-print-ir-before=cse,canonicalize).
	Before, After []string
	// BeforeAll and AfterAll dump around every pass.
	BeforeAll, AfterAll bool
	// AfterChange restricts the dumps after a pass to passes that changed
	// the op they ran on.
	AfterChange bool
	// AfterFailure dumps after a pass only when it failed, and then for
	// every pass.
	AfterFailure bool
	// ModuleScope dumps the top-level op rather than the op the pass ran
	// on. It needs DisableThreading, as in MLIR.
	ModuleScope bool
	// TreeDir writes each dump to its own file under this directory, in a
	// tree of directories that follows the nesting of ops, instead of to
	// the output.
	TreeDir string
}

func (o *IRPrintOptions) enabled() bool {
	return o.BeforeAll || o.AfterAll || o.AfterFailure || len(o.Before) > 0 || len(o.After) > 0
}

func (o *IRPrintOptions) printBefore(p Pass) bool {
	return o.BeforeAll || slices.Contains(o.Before, p.Name())
}

// printAfter says whether a successful pass is dumped after (change
// aside); failures are dumped when this holds or AfterFailure is set.
func (o *IRPrintOptions) printAfter(p Pass) bool {
	return o.AfterAll || o.AfterFailure || slices.Contains(o.After, p.Name())
}

// irPrinter carries out the dumps.
type irPrinter struct {
	opts  IRPrintOptions
	print func(io.Writer, *ir.Operation) error
	top   *ir.Operation

	mu       sync.Mutex
	counters map[*ir.Operation]int // dumps per op, for TreeDir file names
}

// before dumps the IR before p ran on op when asked, and returns the
// fingerprint to compare after the pass when only changes are dumped.
func (ip *irPrinter) before(p Pass, op *ir.Operation, f *frame) (uint64, bool) {
	if ip.opts.printBefore(p) {
		ip.dump(f, op, "Before "+DisplayName(p)+" ("+p.Name()+")", p.Name())
	}
	if ip.opts.AfterChange && !ip.opts.AfterFailure && ip.opts.printAfter(p) {
		return fingerprint(op), true
	}
	return 0, false
}

func (ip *irPrinter) after(p Pass, op *ir.Operation, f *frame, fp uint64, haveFP bool) {
	if ip.opts.AfterFailure || !ip.opts.printAfter(p) {
		return
	}
	if haveFP && fingerprint(op) == fp {
		return
	}
	ip.dump(f, op, "After "+DisplayName(p)+" ("+p.Name()+")", p.Name())
}

func (ip *irPrinter) afterFailed(p Pass, op *ir.Operation, f *frame) {
	if !ip.opts.printAfter(p) {
		return
	}
	ip.dump(f, op, "After "+DisplayName(p)+" Failed ("+p.Name()+")", p.Name())
}

// dump writes `// -----// IR Dump <what> //----- //`, the op and a blank
// line, to the frame's output or to a file of the tree.
func (ip *irPrinter) dump(f *frame, op *ir.Operation, what, passName string) {
	printed := op
	if ip.opts.ModuleScope {
		printed = ip.top
		what += " (" + describeOp(op) + ")"
	}
	var buf bytes.Buffer
	buf.WriteString("// -----// IR Dump " + what + " //----- //\n")
	if err := ip.print(&buf, printed); err != nil {
		f.emit(ir.Errorf(op.Loc(), "failed to print the IR: %v", err))
		return
	}
	for bytes.HasSuffix(buf.Bytes(), []byte("\n")) {
		buf.Truncate(buf.Len() - 1)
	}
	buf.WriteString("\n\n")
	if ip.opts.TreeDir == "" {
		f.writer().Write(buf.Bytes())
		return
	}
	path := ip.treePath(op, passName)
	err := os.MkdirAll(filepath.Dir(path), 0o755)
	if err == nil {
		err = os.WriteFile(path, buf.Bytes(), 0o644)
	}
	if err != nil {
		f.emit(ir.Errorf(op.Loc(), "failed to write IR dump: %v", err))
	}
}

// treePath names the file of a dump as MLIR does: one directory per
// enclosing op (`func_func_f`, `builtin_module_no-symbol-name`), and a file
// `<counters>_<pass>.mlir` whose counters number the dumps of each
// enclosing op and of op itself.
func (ip *irPrinter) treePath(op *ir.Operation, passName string) string {
	ip.mu.Lock()
	defer ip.mu.Unlock()
	if ip.counters == nil {
		ip.counters = map[*ir.Operation]int{}
	}
	if _, ok := ip.counters[op]; !ok {
		ip.counters[op] = -1
	}
	ip.counters[op]++
	var dirs, counts []string
	for o := op; o != nil; o = o.ParentOp() {
		if _, ok := ip.counters[o]; !ok {
			ip.counters[o] = 0 // an enclosing op not dumped yet, as MLIR's map default
		}
		counts = append(counts, strconv.Itoa(ip.counters[o]))
		sym := "no-symbol-name"
		if s, ok := o.Attr(ir.SymbolAttrName).(*ir.StringAttr); ok {
			sym = s.Val
		}
		dirs = append(dirs, strings.ReplaceAll(o.Name(), ".", "_")+"_"+sym)
	}
	slices.Reverse(dirs)
	slices.Reverse(counts)
	return filepath.Join(append([]string{ip.opts.TreeDir}, append(dirs, strings.Join(counts, "_")+"_"+passName+".mlir")...)...)
}

// describeOp names an op as MLIR's pass messages do:
// `'func.func' operation: @f`, or `'builtin.module' operation`.
func describeOp(op *ir.Operation) string {
	if s, ok := op.Attr(ir.SymbolAttrName).(*ir.StringAttr); ok {
		return fmt.Sprintf("'%s' operation: @%s", op.Name(), s.Val) // unquoted, as MLIR writes it
	}
	return fmt.Sprintf("'%s' operation", op.Name())
}
