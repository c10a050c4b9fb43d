package tests

import (
	"bufio"
	"cmp"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/ipuir/ipuir/elem"
	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/check"
	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/numeric"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/sim"
	"github.com/ipuir/ipuir/target"
	"github.com/ipuir/ipuir/translate/onnximport"
	"github.com/ipuir/ipuir/translate/onnximport/onnxpb"
)

// The ONNX backend conformance tests (Debian's libonnx-testdata: ONNX's own
// node, pytorch-converted, pytorch-operator and simple model tests), run as
// a user would run them: each model imported, run on the reference
// interpreter with its test data's inputs and, where it compiles for
// tiles, on the simulated test16 device, every output compared with the
// expected one. A test that does not pass must be named, with the stage
// and reason it stops at, in conformanceRefusals; any other outcome (a
// wrong value, a refusal not listed, a listed test that now passes) fails.
// IPUIR_CONFORMANCE_UPDATE=1 rewrites the list from what happens; the
// diff is the review.

const conformanceRefusals = "onnx/conformance-refusals.txt"

// ONNX's tolerances for its backend tests (onnx/backend/test/runner), as
// numpy's assert_allclose applies them: |got - want| <= atol + rtol·|want|.
// f16 outputs are held to the rounding of f16 (half an ulp at 1 is
// 4.9e-4, so rtol 1e-3 admits one ulp), with the same atol.
const (
	conformanceRtol = 1e-3
	conformanceAtol = 1e-5
)

// conformanceCategories are the folders of the test data, in report order.
var conformanceCategories = []string{"node", "pytorch-converted", "pytorch-operator", "simple"}

// onnxTestData is the folder of ONNX's backend test data, or "" when the
// package is not installed: IPUIR_ONNX_TESTDATA, else where dpkg says
// libonnx-testdata put it.
func onnxTestData() string {
	if d := os.Getenv("IPUIR_ONNX_TESTDATA"); d != "" {
		return d
	}
	out, err := exec.Command("dpkg", "-L", "libonnx-testdata").Output()
	if err != nil {
		return ""
	}
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasSuffix(line, "/node/test_abs/model.onnx") {
			return strings.TrimSuffix(line, "/node/test_abs/model.onnx")
		}
	}
	return ""
}

// conformanceOutcome is what happened to one test: stage is "" when it
// passed, else where it stopped ("import", "data" when its test data does
// not read, "reference", "device") and why.
type conformanceOutcome struct {
	stage, reason string
	// wrong marks a result that differs from the expected one, never
	// acceptable as a refusal.
	wrong bool
	// compared counts the elements compared; device says whether the
	// device ran it too.
	compared int
	device   bool
	// binary64 is what the device made of a program with doubles
	// computed in binary64 in software: "" when it has none, "pass", or
	// why not; beyondF32 says its doubles leave f32's range, so that it
	// passes on the device only so.
	binary64  string
	beyondF32 bool
	ops       []string
	// larger is what the larger target made of a test test16 refused for
	// its memory (IPUIR_CONFORMANCE_LARGER): "" when not tried, "pass",
	// or why not.
	larger string
}

func (o conformanceOutcome) key() string { return o.stage + "\t" + o.reason }

func TestONNXConformance(t *testing.T) {
	data := onnxTestData()
	if data == "" {
		t.Skip("ONNX's backend test data is not installed (Debian libonnx-testdata; or set IPUIR_ONNX_TESTDATA)")
	}
	var tests []string
	for _, c := range conformanceCategories {
		dirs, err := os.ReadDir(filepath.Join(data, c))
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range dirs {
			if d.IsDir() {
				tests = append(tests, c+"/"+d.Name())
			}
		}
	}
	tg, err := target.Lookup("test16")
	if err != nil {
		t.Fatal(err)
	}
	// The long suite runs the tests whose tensors test16's 768 KiB cannot
	// hold on ipu21, so that every test that passes on the reference with
	// float outputs is shown on a device (a few seconds and up to 1 GB of
	// simulated tile memory each).
	var larger *target.Target
	if os.Getenv("IPUIR_CONFORMANCE_LARGER") != "" {
		if larger, err = target.Lookup("ipu21"); err != nil {
			t.Fatal(err)
		}
	}
	outcomes := make([]conformanceOutcome, len(tests))
	var wg sync.WaitGroup
	work := make(chan int)
	for range runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				outcomes[i] = runConformanceTest(filepath.Join(data, tests[i]), tg, larger)
			}
		}()
	}
	for i := range tests {
		work <- i
	}
	close(work)
	wg.Wait()

	listPath := filepath.Join(moduleRoot(t), "tests", filepath.FromSlash(conformanceRefusals))
	if os.Getenv("IPUIR_CONFORMANCE_UPDATE") != "" {
		writeConformanceRefusals(t, listPath, tests, outcomes)
	}
	listed := readConformanceRefusals(t, listPath)
	compared, onDevice, inBinary64, binary64Matmuls, beyondF32 := 0, 0, 0, 0, 0
	for i, name := range tests {
		o := outcomes[i]
		compared += o.compared
		if o.device {
			onDevice++
		}
		switch {
		case o.binary64 == "pass":
			inBinary64++
		case o.binary64 != "" && !strings.Contains(o.binary64, "no AMP matmul for f"):
			t.Errorf("%s: refused with binary64 in software for another reason than the AMP's: %s", name, o.binary64)
		case o.binary64 != "":
			binary64Matmuls++
		}
		if o.device && o.beyondF32 {
			beyondF32++
		}
		want, isListed := listed[name]
		delete(listed, name)
		switch {
		case o.wrong:
			t.Errorf("%s: wrong at the %s: %s", name, o.stage, o.reason)
		case o.stage == "" && isListed:
			t.Errorf("%s: passes now, but %s lists it as refused at the %s (%s); take it off the list (IPUIR_CONFORMANCE_UPDATE=1)", name, conformanceRefusals, strings.Split(want, "\t")[0], strings.Split(want, "\t")[1])
		case o.stage != "" && !isListed:
			t.Errorf("%s: refused at the %s, and %s does not list it: %s", name, o.stage, conformanceRefusals, o.reason)
		case o.stage != "" && want != o.key():
			t.Errorf("%s: refused at the %s: %s\n\t%s lists: %s", name, o.stage, o.reason, conformanceRefusals, strings.ReplaceAll(want, "\t", ": "))
		}
	}
	for name := range listed {
		t.Errorf("%s lists %s, which is not in the test data", conformanceRefusals, name)
	}
	if larger != nil {
		onLarger := 0
		for i, o := range outcomes {
			switch {
			case o.larger == "pass":
				onLarger++
			case o.larger != "":
				t.Errorf("%s: test16 refused it for its memory (%s), and %s did not pass it: %s", tests[i], o.reason, larger.Name, o.larger)
			}
		}
		t.Logf("ONNX conformance: %d tests that test16's memory cannot hold pass on %s", onLarger, larger.Name)
	}
	table := conformanceTable(tests, outcomes)
	if p := os.Getenv("IPUIR_CONFORMANCE_TABLE"); p != "" {
		if err := os.WriteFile(p, []byte(table), 0o644); err != nil {
			t.Error(err)
		}
	}
	passed := 0
	for _, o := range outcomes {
		if !o.wrong && (o.stage == "" || o.stage == "device") {
			passed++
		}
	}
	t.Logf("ONNX conformance: %d of %d tests pass on the reference interpreter, %d of them on the test16 device too (%d only with binary64 in software, their doubles beyond f32's range); %d elements compared", passed, len(tests), onDevice, beyondF32, compared)
	t.Logf("ONNX conformance: %d programs with doubles also pass on test16 with binary64 in software; %d are refused so, for f64 matmuls (no AMP)", inBinary64, binary64Matmuls)
	if inBinary64 == 0 && os.Getenv("IPUIR_CONFORMANCE_UPDATE") == "" {
		t.Error("no program ran with binary64 in software")
	}
	for name, e := range conformanceErrata {
		t.Logf("ONNX conformance: %s, an erratum: %s", name, e.why)
	}
	if compared == 0 {
		t.Error("no element was compared")
	}
}

// conformanceErrata are tests whose expected outputs were computed with
// another model than the one they ship: each is run with the model its
// data was made from (apply changes the model), so that it is checked,
// not listed; why says where the two differ.
// Or, where it is the expected data that follows an older rule than the
// spec's, want recomputes it, first checking that the data is what the
// older rule gives (an error says where it is not).
var conformanceErrata = map[string]struct {
	why   string
	apply func(*onnxpb.ModelProto)
	want  func(inputs, want []*onnximport.Tensor) error
}{
	// ONNX 1.12's generator (backend/test/case/node/cast.py) made the
	// bfloat16 data by truncating the f32 bits; the spec's Cast, ONNX
	// 1.14's regenerated data, ONNX Runtime and ipuir round to nearest
	// even.
	"node/test_cast_FLOAT_to_BFLOAT16": {why: "the expected outputs truncate f32 to bfloat16 (ONNX 1.12's generator); Cast rounds to nearest even", want: func(inputs, want []*onnximport.Tensor) error {
		in, out := inputs[0], want[0]
		if len(in.Values) != len(out.Values) {
			return fmt.Errorf("%d inputs for %d outputs", len(in.Values), len(out.Values))
		}
		for i, x := range in.Values {
			truncated := float64(math.Float32frombits(math.Float32bits(float32(x)) &^ 0xFFFF))
			if out.Values[i] != truncated && !(math.IsNaN(x) && math.IsNaN(out.Values[i])) {
				return fmt.Errorf("element %d: the data has %v where truncating %v gives %v", i, out.Values[i], x, truncated)
			}
			out.Values[i] = numeric.Round(x, elem.BF16)
		}
		return nil
	}},
	// ONNX's generator (backend/test/case/node/adam.py, export_adam_multiple)
	// computes the outputs with epsilon = 1e-2 but does not set it on the
	// node, whose default is 1e-6 (onnx/defs/training/defs.cc): the data
	// is 0.75913626 where the spec's model gives 0.75595933.
	"node/test_adam_multiple": {why: "the expected outputs use epsilon = 1e-2, which the node leaves at its default 1e-6", apply: func(m *onnxpb.ModelProto) {
		n := m.GetGraph().GetNode()[0]
		if n.GetOpType() != "Adam" || slices.ContainsFunc(n.GetAttribute(), func(a *onnxpb.AttributeProto) bool { return a.GetName() == "epsilon" }) {
			return // not the model this erratum is for: checked as it is
		}
		n.Attribute = append(n.Attribute, &onnxpb.AttributeProto{Name: proto.String("epsilon"), Type: onnxpb.AttributeProto_FLOAT.Enum(), F: proto.Float32(1e-2)})
	}},
}

// runConformanceTest imports, runs and checks the test in dir.
func runConformanceTest(dir string, tg, larger *target.Target) (out conformanceOutcome) {
	fail := func(stage, format string, args ...any) conformanceOutcome {
		out.stage, out.reason = stage, fmt.Sprintf(format, args...)
		return out
	}
	wrong := func(stage, format string, args ...any) conformanceOutcome {
		out = fail(stage, format, args...)
		out.wrong = true
		return out
	}
	raw, err := os.ReadFile(filepath.Join(dir, "model.onnx"))
	if err != nil {
		return wrong("import", "%v", err)
	}
	model, ok := onnximport.Decode(raw)
	if !ok {
		return fail("import", "not an ONNX model")
	}
	fix := conformanceErrata[filepath.Base(filepath.Dir(dir))+"/"+filepath.Base(dir)]
	if fix.apply != nil {
		fix.apply(model)
	}
	for _, n := range model.GetGraph().GetNode() {
		if !slices.Contains(out.ops, n.GetOpType()) {
			out.ops = append(out.ops, n.GetOpType())
		}
	}
	// The first data set; the others repeat it with other values. Data
	// that does not read is only an error once the model imports: sequence
	// and optional tests hold other protos than tensors there.
	set := filepath.Join(dir, "test_data_set_0")
	inputs, inputsErr := readTensors(set, "input")
	want, wantErr := readTensors(set, "output")
	// Graph inputs in the order the data set gives them: the inputs that
	// no initializer fills.
	inits := map[string]bool{}
	for _, t := range model.GetGraph().GetInitializer() {
		inits[t.GetName()] = true
	}
	var names []string
	var declared []*onnxpb.ValueInfoProto
	for _, in := range model.GetGraph().GetInput() {
		if !inits[in.GetName()] {
			names = append(names, in.GetName())
			declared = append(declared, in)
		}
	}
	asBfloat16(inputs, declared)
	asBfloat16(want, model.GetGraph().GetOutput())
	if fix.want != nil && inputsErr == nil && wantErr == nil {
		if err := fix.want(inputs, want); err != nil {
			return wrong("data", "the erratum does not explain the data: %v", err)
		}
	}
	// Inputs that shape the graph are given at import, as a user gives
	// them with --input-value; the rest are the run's inputs.
	opts := onnximport.Options{File: filepath.Base(filepath.Dir(dir)) + "/" + filepath.Base(dir) + "/model.onnx", Target: tg.Name, InputValues: map[string]*onnximport.Tensor{}}
	// Free dimensions are pinned to the data set's shapes, as a user pins
	// them with --input-shape.
	if inputsErr == nil && len(inputs) == len(names) {
		opts.InputShapes = map[string][]int64{}
		for i, name := range names {
			opts.InputShapes[name] = inputs[i].Shape
		}
	}
	var text []byte
	for {
		text, err = onnximport.Import(model, opts)
		var ie *onnximport.Error
		if err == nil || !errors.As(err, &ie) || ie.NeedsValue == "" || opts.InputValues[ie.NeedsValue] != nil {
			break
		}
		k := slices.Index(names, ie.NeedsValue)
		if inputsErr != nil || k < 0 || k >= len(inputs) {
			break
		}
		opts.InputValues[ie.NeedsValue] = inputs[k]
	}
	if err != nil {
		return fail("import", "%s", conformanceReason(err.Error()))
	}
	if err := cmp.Or(inputsErr, wantErr); err != nil {
		// Not a wrong result: ONNX 1.12 stores bfloat16 test data as
		// UINT16, which ReadTensor refuses as it refuses such an input.
		return fail("data", "the model imports, but its test data does not read: %s", conformanceReason(err.Error()))
	}
	if len(names) != len(inputs) {
		return wrong("import", "%d graph inputs, %d in the data set", len(names), len(inputs))
	}
	var runInputs []*eval.Array
	for i, name := range names {
		if opts.InputValues[name] == nil {
			a, err := tensorArray(inputs[i])
			if err != nil {
				// The reference interpreter holds floats, i64 and i1.
				return fail("reference", "input '%s': %v", name, err)
			}
			runInputs = append(runInputs, a)
		}
	}

	ctx := registry.NewContext()
	module, err := parser.ParseSourceString(ctx, text, parser.Config{Filename: "imported.ipuir"})
	if err != nil {
		return wrong("import", "the importer wrote IR that does not parse: %v", err)
	}
	fn, err := reference.LookupFunction(module, "main")
	if err != nil {
		return wrong("import", "%v", err)
	}
	got, err := reference.Run(fn, runInputs, nil)
	if err != nil {
		return fail("reference", "%s", conformanceReason(err.Error()))
	}
	n, err := compareOutputs(got, want)
	out.compared += n
	if err != nil {
		return wrong("reference", "%v", err)
	}

	refusal, n, err := runConformanceOn(tg, string(text), runInputs, want)
	out.compared += n
	if err == nil && strings.Contains(string(text), "f64") {
		// A program with doubles runs again with binary64 in software
		// (ipu.f64 = "binary64", ipu-translate --f64=binary64): where its
		// doubles leave f32's range this is how it runs at all, as the
		// refusal says, and elsewhere it tests the software path.
		binary64 := strings.Replace(string(text), `ipu.target = "`+tg.Name+`"`, `ipu.target = "`+tg.Name+`", ipu.f64 = "binary64"`, 1)
		refusal64, n, err64 := runConformanceOn(tg, binary64, runInputs, want)
		out.compared += n
		out.binary64 = cmp.Or(refusal64, "pass")
		if err64 != nil {
			return wrong("device", "with binary64 in software: %v", err64)
		}
		if strings.Contains(refusal, "beyond the range of the f32 the device computes f64 in") {
			refusal = refusal64
			out.beyondF32 = true
		}
	}
	switch {
	case err != nil:
		return wrong("device", "%v", err)
	case refusal != "" && larger != nil && memoryRefusal(refusal):
		text := strings.Replace(string(text), `ipu.target = "`+tg.Name+`"`, `ipu.target = "`+larger.Name+`"`, 1)
		refusal2, n, err := runConformanceOn(larger, text, runInputs, want)
		out.compared += n
		out.larger = cmp.Or(refusal2, "pass")
		if err != nil {
			out.larger = err.Error()
		}
		return fail("device", "%s", refusal)
	case refusal != "":
		return fail("device", "%s", refusal)
	}
	out.device = true
	return out
}

// memoryRefusal reports whether a device-stage refusal is for the
// target's memory (a shard, a buffer or a plan that does not fit).
func memoryRefusal(reason string) bool {
	return strings.Contains(reason, "does not fit") || strings.Contains(reason, "no plan fits")
}

// runConformanceOn compiles the imported program text for tg, runs it on
// a simulated tg with inputs and compares its outputs with want. It
// returns why the program or its data is refused (a refusal, not a wrong
// result), the elements compared, and an error for a wrong result.
func runConformanceOn(tg *target.Target, text string, inputs []*eval.Array, want []*onnximport.Tensor) (string, int, error) {
	pkg, refusal, err := compileProgram(text, tg)
	if err != nil || refusal != "" {
		return refusal, 0, err
	}
	dev := sim.New(tg, nil)
	if err := dev.Attach(); err != nil {
		return "", 0, err
	}
	if err := dev.Initialize(); err != nil {
		return "", 0, err
	}
	ran, _, err := check.Execute(dev, pkg, inputs, check.ExecuteOptions{})
	if narrow := (*check.NarrowError)(nil); errors.As(err, &narrow) {
		return conformanceReason(err.Error()), 0, nil
	}
	if err != nil {
		return "", 0, fmt.Errorf("the device refused or faulted: %v", err)
	}
	n, err := compareOutputs(ran.Outputs, want)
	return "", n, err
}

// conformanceReason is an error's message as the list keeps it: without
// the file, and without the list of operators the importer takes (which
// grows).
func conformanceReason(msg string) string {
	if i := strings.LastIndex(msg, ".pb: "); i >= 0 {
		msg = filepath.Base(msg[:i]) + ".pb: " + msg[i+len(".pb: "):]
	}
	if i := strings.Index(msg, ".onnx: "); i >= 0 {
		msg = msg[i+len(".onnx: "):]
	}
	if i := strings.Index(msg, " (the importer takes "); i >= 0 {
		msg = msg[:i]
	}
	if i := strings.IndexByte(msg, '\n'); i >= 0 {
		msg = msg[:i]
	}
	return strings.ReplaceAll(msg, "\t", " ")
}

// readTensors reads dir's KIND_0.pb, KIND_1.pb, ... in order.
func readTensors(dir, kind string) ([]*onnximport.Tensor, error) {
	var out []*onnximport.Tensor
	for i := 0; ; i++ {
		path := filepath.Join(dir, fmt.Sprintf("%s_%d.pb", kind, i))
		raw, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		t, err := onnximport.ReadTensor(raw, path)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
}

// asBfloat16 reads the uint16 data the backend tests hold for bfloat16
// values (numpy has no bfloat16: ONNX's generator stores the bits) as the
// bfloat16 values the model declares.
func asBfloat16(data []*onnximport.Tensor, declared []*onnxpb.ValueInfoProto) {
	for i, t := range data {
		if i < len(declared) && t.Elem == elem.U16 &&
			declared[i].GetType().GetTensorType().GetElemType() == int32(onnxpb.TensorProto_BFLOAT16) {
			for j, v := range t.Values {
				t.Values[j] = numeric.BF16ToFloat64(uint16(v))
			}
			t.Elem = elem.BF16
		}
	}
}

func tensorArray(t *onnximport.Tensor) (*eval.Array, error) {
	shape := make([]int, len(t.Shape))
	for i, d := range t.Shape {
		shape[i] = int(d)
	}
	if t.Strings != nil {
		return eval.NewStrings(shape, t.Strings)
	}
	return eval.FromValues(shape, t.Elem, t.Values)
}

// compareOutputs compares got with want as ONNX's backend tests do, and
// returns the elements compared.
func compareOutputs(got []*eval.Array, want []*onnximport.Tensor) (int, error) {
	if len(got) != len(want) {
		return 0, fmt.Errorf("%d outputs, %d expected", len(got), len(want))
	}
	n := 0
	for i, g := range got {
		w := want[i]
		shape := make([]int, len(w.Shape))
		for k, d := range w.Shape {
			shape[k] = int(d)
		}
		if g.IsStrings() != (w.Strings != nil) || g.Kind != w.Elem || !slices.Equal(g.Shape, shape) {
			return n, fmt.Errorf("output %d is %s, expected %v %v", i, g.TypeString(), w.Elem, shape)
		}
		if g.IsStrings() {
			for k, s := range g.Strs {
				n++
				if s != w.Strings[k] {
					return n, fmt.Errorf("output %d element %d is %q, expected %q", i, k, s, w.Strings[k])
				}
			}
			continue
		}
		worst, at := 0.0, -1
		for k, x := range g.Data {
			y := w.Values[k]
			n++
			if math.IsNaN(x) && math.IsNaN(y) || x == y {
				continue
			}
			excess := math.Abs(x-y) - (conformanceAtol + conformanceRtol*math.Abs(y))
			if !w.Elem.IsFloat() || math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
				excess = math.Inf(1)
			}
			if excess > 0 && (at < 0 || excess > worst) {
				worst, at = excess, k
			}
		}
		if at >= 0 {
			return n, fmt.Errorf("output %d element %d is %g, expected %g (rtol %g, atol %g)", i, at, g.Data[at], w.Values[at], conformanceRtol, conformanceAtol)
		}
	}
	return n, nil
}

// readConformanceRefusals reads the list: "TEST<tab>STAGE<tab>REASON"
// lines; # starts a comment line.
func readConformanceRefusals(t *testing.T, path string) map[string]string {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		parts := strings.SplitN(text, "\t", 3)
		if len(parts) != 3 {
			t.Fatalf("%s:%d: want TEST<tab>STAGE<tab>REASON", path, line)
		}
		if _, dup := out[parts[0]]; dup {
			t.Fatalf("%s:%d: %s is listed twice", path, line, parts[0])
		}
		out[parts[0]] = parts[1] + "\t" + parts[2]
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func writeConformanceRefusals(t *testing.T, path string, tests []string, outcomes []conformanceOutcome) {
	var b strings.Builder
	b.WriteString(`# ONNX backend conformance tests that ipuir does not pass, with the stage
# each stops at and why (tests/onnx_conformance_test.go). Every test not
# listed must pass on the reference interpreter and, where it compiles for
# tiles, on the simulated test16 device. A wrong result is never listed.
# Regenerate with IPUIR_CONFORMANCE_UPDATE=1 go test -run TestONNXConformance ./tests/
`)
	for i, name := range tests {
		if o := outcomes[i]; o.stage != "" && !o.wrong {
			fmt.Fprintf(&b, "%s\t%s\t%s\n", name, o.stage, o.reason)
		}
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// conformanceTable is the Markdown summary: by category, then by
// operator (a test counts for each operator its graph uses).
func conformanceTable(tests []string, outcomes []conformanceOutcome) string {
	type row struct{ tests, reference, device, refusedImport, refusedReference, refusedDevice, wrong int }
	add := func(r *row, o conformanceOutcome) {
		r.tests++
		switch {
		case o.wrong:
			r.wrong++
		case o.stage == "import":
			r.refusedImport++
		case o.stage == "reference" || o.stage == "data":
			r.refusedReference++
		default:
			r.reference++
			if o.device {
				r.device++
			} else {
				r.refusedDevice++
			}
		}
	}
	byCat, byOp := map[string]*row{}, map[string]*row{}
	total := &row{}
	for i, name := range tests {
		c := strings.Split(name, "/")[0]
		if byCat[c] == nil {
			byCat[c] = &row{}
		}
		add(byCat[c], outcomes[i])
		add(total, outcomes[i])
		for _, op := range outcomes[i].ops {
			if byOp[op] == nil {
				byOp[op] = &row{}
			}
			add(byOp[op], outcomes[i])
		}
	}
	var b strings.Builder
	line := func(name string, r *row) {
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %d | %d | %d |\n", name, r.tests, r.reference, r.device, r.refusedImport, r.refusedReference+r.refusedDevice, r.wrong)
	}
	b.WriteString("| category | tests | pass (reference) | pass (test16 device too) | refused at import | refused later | wrong |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	for _, c := range conformanceCategories {
		if byCat[c] != nil {
			line(c, byCat[c])
		}
	}
	line("all", total)
	b.WriteString("\n| operator | tests | pass (reference) | pass (test16 device too) | refused at import | refused later | wrong |\n| --- | --- | --- | --- | --- | --- | --- |\n")
	ops := slices.Collect(func(yield func(string) bool) {
		for op := range byOp {
			if !yield(op) {
				return
			}
		}
	})
	slices.SortFunc(ops, func(a, b string) int { return cmp.Compare(a, b) })
	for _, op := range ops {
		line(op, byOp[op])
	}
	return b.String()
}
