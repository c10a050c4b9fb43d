package sim

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"hash/crc32"
	"os"
	"testing"

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
// test16) with zero inputs: the simulator answers with a fault or an
// error, or runs, and never panics.
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
	f.Fuzz(func(t *testing.T, data []byte) {
		p, _, err := ipupkg.Decode(reseal(data))
		if err != nil || p.Target != tg.Name {
			return
		}
		d := New(tg, nil)
		d.Attach()
		if err := d.Load(p); err != nil {
			return
		}
		s, err := d.Session()
		if err != nil {
			return
		}
		for _, st := range p.Streams {
			if !st.Output {
				n := int64(st.Elem.Bytes())
				for _, x := range st.Shape {
					n *= x
				}
				if n > 1<<20 {
					return
				}
				s.Write(st.Index, make([]byte, n))
			}
		}
		s.Run()
	})
}
