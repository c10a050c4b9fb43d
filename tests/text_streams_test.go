package tests

import (
	"strings"
	"testing"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/check"
	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/target"
)

// A program that reads numbers as text and writes them so runs on test16
// (host-strings: the host parses and formats at the streams) and --check
// compares it: the numbers in between against their bounds, the text
// exactly. A device output changed by one string fails the check, naming
// the element.
func TestTextStreamsAreChecked(t *testing.T) {
	const src = `module attributes {ipu.target = "test16"} {
  func.func @main(%x: tensor<2x3x!tensor.string> {ipu.name = "x"}) -> (tensor<2x3x!tensor.string> {ipu.name = "y"}, tensor<2x3xf32> {ipu.name = "z"}) {
    %n = tensor.string_parse %x : tensor<2x3x!tensor.string> -> tensor<2x3xf32>
    %t = tensor.mul %n, %n : tensor<2x3xf32>
    %s = tensor.string_format %t : tensor<2x3xf32> -> tensor<2x3x!tensor.string>
    return %s, %t : tensor<2x3x!tensor.string>, tensor<2x3xf32>
  }
}`
	tg, err := target.Lookup("test16")
	if err != nil {
		t.Fatal(err)
	}
	pkg, refused, err := compileProgram(src, tg)
	if err != nil || refused != "" {
		t.Fatalf("does not compile: %v%s", err, refused)
	}
	texts := 0
	for _, s := range pkg.Streams {
		if s.Text {
			texts++
		}
	}
	if texts != 2 {
		t.Fatalf("%d text streams, want the input and the first output", texts)
	}
	module, err := parser.ParseSourceString(registry.NewContext(), []byte(src), parser.Config{Filename: "text.ipuir"})
	if err != nil {
		t.Fatal(err)
	}
	fn, err := reference.LookupFunction(module, "main")
	if err != nil {
		t.Fatal(err)
	}
	x, err := eval.NewStrings([]int{2, 3}, []string{"0.5", "-1.25", "3", "1e-3", "0.1", "-0"})
	if err != nil {
		t.Fatal(err)
	}
	dev := sim.New(tg, nil)
	if err := dev.Attach(); err != nil {
		t.Fatal(err)
	}
	if err := dev.Initialize(); err != nil {
		t.Fatal(err)
	}
	got, _, err := check.Execute(dev, pkg, []*eval.Array{x}, check.ExecuteOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"0.25", "1.5625", "9", "1.0000001e-06", "0.010000001", "0"}; strings.Join(got.Outputs[0].Strs, " ") != strings.Join(want, " ") {
		t.Errorf("the device wrote %q, want %q", got.Outputs[0].Strs, want)
	}
	rep, err := check.Run(fn, pkg, []*eval.Array{x}, got, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Pass() || rep.Compared < 12 {
		t.Fatalf("check: %s", rep.Summary())
	}
	got.Outputs[0].Strs[4] = "0.01"
	rep, err = check.Run(fn, pkg, []*eval.Array{x}, got, check.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pass() || !strings.Contains(rep.Summary(), `element 4, is "0.01" on the device and "0.010000001" in the reference`) {
		t.Errorf("a changed string passed or was not named: %s", rep.Summary())
	}
	// A source whose text has another shape does not match the stream.
	other, err := parser.ParseSourceString(registry.NewContext(), []byte(strings.ReplaceAll(src, "2x3", "3x2")), parser.Config{Filename: "other.ipuir"})
	if err != nil {
		t.Fatal(err)
	}
	otherFn, err := reference.LookupFunction(other, "main")
	if err != nil {
		t.Fatal(err)
	}
	if err := check.Signature(otherFn, pkg); err == nil || !strings.Contains(err.Error(), "is text of shape [2 3]") {
		t.Errorf("text of another shape matched: %v", err)
	}
	if err := check.Signature(fn, pkg); err != nil {
		t.Errorf("the source does not match its own package: %v", err)
	}
	// Numbers given for text, and text for numbers, are refused.
	if _, _, err := check.Execute(dev, pkg, []*eval.Array{got.Outputs[1]}, check.ExecuteOptions{}); err == nil || !strings.Contains(err.Error(), "takes strings") {
		t.Errorf("numbers for a text stream: %v", err)
	}
	t.Logf("%d elements compared, text and numbers", rep.Compared)
}
