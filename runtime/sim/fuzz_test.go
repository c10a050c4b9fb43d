package sim

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"os"
	"strings"
	"testing"

	"github.com/ipuir/ipuir/eval"
	"github.com/ipuir/ipuir/execution/check"
	"github.com/ipuir/ipuir/execution/reference"
	"github.com/ipuir/ipuir/ir"
	"github.com/ipuir/ipuir/parser"
	"github.com/ipuir/ipuir/registry"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/target"
)

// reseal fixes up a package's checksums and digest, so that the fuzzer's
// changes reach the simulator instead of the reader's checksums.
func reseal(data []byte) []byte {
	const fileHeader, sectionHeader, trailer = len(ipupkg.Magic) + 8, 16, len(ipupkg.TrailerMagic) + sha256.Size
	out := bytes.Clone(data)
	if len(out) < fileHeader+trailer {
		return out
	}
	body := len(out) - trailer
	table := crc32.MakeTable(crc32.Castagnoli)
	off := fileHeader
	for range int(binary.LittleEndian.Uint32(out[len(ipupkg.Magic)+4:])) {
		if off+sectionHeader > body {
			break
		}
		length := binary.LittleEndian.Uint64(out[off+4:])
		start := off + sectionHeader
		if length > uint64(body-start) {
			break
		}
		binary.LittleEndian.PutUint32(out[off+12:], crc32.Checksum(out[start:start+int(length)], table))
		off = start + int(length)
	}
	copy(out[body:], ipupkg.TrailerMagic)
	sum := sha256.Sum256(out[:body])
	copy(out[body+len(ipupkg.TrailerMagic):], sum[:])
	return out
}

// FuzzSimulate runs whatever valid package the fuzzer makes (resealed, on
// test16): the simulator answers with a fault or an error, or runs, and
// never panics. A package that carries a source whose function its streams
// match runs on generated inputs and is checked against the reference
// (execution/check): the check must not fail to run, and a PASS must have
// compared every element of every output in both checks. The seed package
// itself must PASS, so the fuzzer starts from a differential test.
func FuzzSimulate(f *testing.F) {
	real, err := os.ReadFile("../ipupkg/testdata/attention-tiny.ipupkg")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(real)
	p, _ := gather(f)
	f.Add(p.Encode())
	p, _ = pairedGather(f)
	f.Add(p.Encode())
	tg, err := target.Lookup("test16")
	if err != nil {
		f.Fatal(err)
	}
	if rep, ran := simulateAndCheck(f, real, tg); !ran || rep == nil || !rep.Pass() {
		f.Fatalf("the seed package does not pass: %v", rep)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, ran := simulateAndCheck(t, reseal(data), tg)
		if !ran || rep == nil || !rep.Pass() {
			return
		}
		p, _, _ := ipupkg.Decode(reseal(data))
		want := int64(0)
		for _, st := range p.Streams {
			if st.Output {
				n := int64(1)
				for _, d := range st.Shape {
					n *= d
				}
				want += 2 * n
			}
		}
		outputs := int64(0)
		for _, v := range rep.Values {
			if strings.HasPrefix(v.What, "output") {
				outputs += int64(v.Elements)
			}
		}
		if outputs != want {
			t.Fatalf("a PASS compared %d output elements of %d", outputs, want)
		}
	})
}

// simulateAndCheck decodes data and runs it on a test16 device; when the
// package's source matches its streams it checks the run and returns the
// report. ran says the device ran the program.
func simulateAndCheck(t testing.TB, data []byte, tg *target.Target) (*check.Report, bool) {
	p, _, err := ipupkg.Decode(data)
	if err != nil || p.Target != tg.Name {
		return nil, false
	}
	var fn *ir.Operation
	var inputs []*eval.Array
	if len(p.Source) > 0 && len(p.Source) < 1<<16 {
		if module, err := parser.ParseSourceString(registry.NewContext(), p.Source, parser.Config{Filename: "source"}); err == nil {
			if f, err := reference.LookupFunction(module, "attention"); err == nil && check.Signature(f, p) == nil {
				types, _ := reference.ArgumentTypes(f)
				g, _ := reference.ParseGenerator("gaussian:seed=1")
				if inputs, err = g.Generate(types, reference.FanIns(f)); err == nil {
					fn = f
				}
			}
		}
	}
	if fn == nil {
		// No reference: zero inputs of each stream's size.
		for _, st := range p.Streams {
			if st.Output {
				continue
			}
			n := int64(1)
			for _, x := range st.Shape {
				n *= x
			}
			if n > 1<<20 {
				return nil, false
			}
			a, err := eval.FromBytes(make([]byte, n*int64(st.Elem.Bytes())), st.Elem, st.Shape)
			if err != nil {
				return nil, false
			}
			inputs = append(inputs, a)
		}
	}
	d := New(tg, nil)
	d.Attach()
	got, _, err := check.Execute(d, p, inputs, check.ExecuteOptions{})
	if err != nil || fn == nil {
		return nil, err == nil
	}
	rep, err := check.Run(fn, p, inputs, got, check.Options{})
	if err != nil {
		t.Fatalf("the check failed to run on a package the device ran: %v", err)
	}
	return rep, true
}
