package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"strings"
	"testing"
	"testing/iotest"
)

// npyFile assembles a file from a version, literal header text (no padding
// added) and data, so that tests can write any header, valid or not.
func npyFile(version Version, header string, data []byte) []byte {
	b := []byte(magic)
	b = append(b, version.Major, version.Minor)
	if version == V1 {
		b = binary.LittleEndian.AppendUint16(b, uint16(len(header)))
	} else {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(header)))
	}
	return append(append(b, header...), data...)
}

// dictWith returns a header dict with the given entries replacing or adding
// to a valid float32 (2,) one.
func dictWith(descr, fortran, shape string) string {
	return "{'descr': " + descr + ", 'fortran_order': " + fortran + ", 'shape': " + shape + ", }\n"
}

func TestMalformedFiles(t *testing.T) {
	valid := dictWith("'<f4'", "False", "(2,)")
	eight := make([]byte, 8)
	cases := []struct {
		name string
		file []byte
		want string
	}{
		{"empty input", nil, "input is empty"},
		{"bad magic", []byte("\x93NUMPZ\x01\x00\x10\x00"), "not a .npy file"},
		{"a zip (.npz) file", []byte("PK\x03\x04\x14\x00\x00\x00"), "not a .npy file"},
		{"text file", []byte("hello world"), "not a .npy file"},
		{"truncated magic", []byte("\x93NUM"), "truncated: the input ends after 4 bytes"},
		{"magic without version", []byte(magic), "truncated"},
		{"version 4.0", npyFile(Version{4, 0}, valid, eight), "unsupported format version 4.0"},
		{"version 1.1", npyFile(Version{1, 1}, valid, eight), "unsupported format version 1.1"},
		{"truncated length field", append([]byte(magic), 1, 0, 5), "inside the 2-byte header length"},
		{"truncated 2.0 length field", append([]byte(magic), 2, 0, 5, 0), "inside the 4-byte header length"},
		{"header shorter than its length", npyFile(V1, valid, nil)[:20], "truncated header: the length field says"},
		{"absurd header length", append([]byte(magic), 2, 0, 0xFF, 0xFF, 0xFF, 0xFF, '{'), "header length 4294967295 bytes is absurd"},
		{"header is a list", npyFile(V1, "[1, 2]\n", nil), "not a dict"},
		{"header is empty", npyFile(V1, "", nil), "expected a value"},
		{"missing colon", npyFile(V1, "{'descr' '<f4'}", nil), "expected ':' after a dict key"},
		{"missing comma", npyFile(V1, "{'descr': '<f4' 'shape': (2,)}", nil), "expected ',' or '}', found ':'"},
		{"unterminated string", npyFile(V1, "{'descr: '<f4'}", nil), "expected ':'"},
		{"string runs to the end", npyFile(V1, "{'descr': '<f4", nil), "unterminated string"},
		{"unclosed dict", npyFile(V1, "{'descr': '<f4', ", nil), "expected a value, found the end of the header"},
		{"garbage after dict", npyFile(V1, valid+"x", eight), "after the header dict"},
		{"a name", npyFile(V1, dictWith("'<f4'", "false", "(2,)"), eight), `unexpected name "false"`},
		{"a float in shape", npyFile(V1, dictWith("'<f4'", "False", "(2.0,)"), eight), "only plain decimal integers"},
		{"leading zero", npyFile(V1, dictWith("'<f4'", "False", "(02,)"), eight), "leading zero"},
		{"unknown escape", npyFile(V1, dictWith(`'<f\4'`, "False", "(2,)"), eight), `unsupported string escape \4`},
		{"deep nesting", npyFile(V1, strings.Repeat("(", 100000), nil), "nest more than 32 deep"},
		{"NUL in header", npyFile(V1, "{\x00}", nil), "NUL byte"},
		{"v3 header not UTF-8", npyFile(V3, "{'descr': '\xff'}", nil), "must be UTF-8"},
		{"Python 2 long in a 3.0 header", npyFile(V3, dictWith("'<f4'", "False", "(2L,)"), eight), "only plain decimal integers"},
		{"missing key", npyFile(V1, "{'descr': '<f4', 'shape': (2,)}", eight), "exactly the keys"},
		{"extra key", npyFile(V1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': 1}", eight), `it has "descr", "fortran_order", "shape", "x"`},
		{"non-string key", npyFile(V1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 1: 1}", eight), "a key of type int"},
		{"unknown dtype", npyFile(V1, dictWith("'<c8'", "False", "(1,)"), eight), `unsupported dtype descr "<c8"`},
		{"object dtype", npyFile(V1, dictWith("'|O'", "False", "(1,)"), eight), `unsupported dtype descr "|O"`},
		{"| on a multi-byte type", npyFile(V1, dictWith("'|f4'", "False", "(2,)"), eight), "only for one-byte types"},
		{"native byte order", npyFile(V1, dictWith("'=f4'", "False", "(2,)"), eight), "unsupported byte order"},
		{"structured dtype", npyFile(V1, dictWith("[('a', '<f4')]", "False", "(2,)"), eight), "structured dtypes"},
		{"descr not a string", npyFile(V1, dictWith("4", "False", "(2,)"), eight), "descr must be a string"},
		{"fortran_order not a bool", npyFile(V1, dictWith("'<f4'", "0", "(2,)"), eight), "fortran_order must be True or False"},
		{"shape a list", npyFile(V1, dictWith("'<f4'", "False", "[2]"), eight), "shape must be a tuple of ints, not a Python list"},
		{"shape a parenthesised int", npyFile(V1, dictWith("'<f4'", "False", "(2)"), eight), "shape must be a tuple of ints, not a Python int"},
		{"shape with a string", npyFile(V1, dictWith("'<f4'", "False", "('2',)"), eight), "shape entry 0 is a Python str"},
		{"negative dimension", npyFile(V1, dictWith("'<f4'", "False", "(2, -1)"), eight), "shape entry 1 is negative (-1)"},
		{"huge dimension", npyFile(V1, dictWith("'<f4'", "False", "(99999999999999999999,)"), eight), "is too large"},
		{"overflowing element count", npyFile(V1, dictWith("'<f4'", "False", "(4294967296, 4294967296)"), eight), "more elements than memory can address"},
		{"overflowing byte count", npyFile(V1, dictWith("'<f8'", "False", "(4611686018427387904,)"), eight), "more bytes than memory can address"},
		{"too many dimensions", npyFile(V1, dictWith("'<f4'", "False", "("+strings.Repeat("1, ", 65)+")"), nil), "65 dimensions"},
		{"data too short", npyFile(V1, valid, eight[:7]), "truncated data: shape (2,) of float32 needs 8 data bytes, but only 7"},
		{"no data", npyFile(V1, valid, nil), "truncated data"},
		{"data too long", npyFile(V1, valid, append(eight, 0)), "trailing data"},
		{"shape promises a terabyte", npyFile(V1, dictWith("'<f8'", "False", "(137438953472,)"), eight), "truncated data"},
	}
	for _, c := range cases {
		for _, read := range []struct {
			how string
			fn  func([]byte) (*Array, error)
		}{
			{"Decode", Decode},
			{"Read", func(b []byte) (*Array, error) { return Read(iotest.OneByteReader(bytes.NewReader(b))) }},
		} {
			a, err := read.fn(c.file)
			if err == nil {
				t.Errorf("%s: %s accepted it: %v", c.name, read.how, a)
				continue
			}
			var fe *FormatError
			if !errors.As(err, &fe) {
				t.Errorf("%s: %s: %v is not a *FormatError", c.name, read.how, err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("%s: %s: error %q does not contain %q", c.name, read.how, err, c.want)
			}
		}
	}
}

// Headers NumPy accepts that np.save does not write itself: other quoting,
// whitespace, key order, trailing commas, adjacent string literals, u”
// prefixes, repeated keys (the last wins, as in a Python dict), no padding,
// and Python 2 long suffixes in 1.0 and 2.0.
func TestLenientHeadersNumPyAccepts(t *testing.T) {
	eight := make([]byte, 8)
	for _, header := range []string{
		`{"descr": "<f4", "fortran_order": False, "shape": (2,)}`,
		"{'shape': (2,), 'descr': '<f4', 'fortran_order': False}",
		"  {\n 'descr' :'<f4' ,\n\t'fortran_order':False,'shape':( 2 , ) , }\r\n",
		"{'descr': '<' 'f4', 'fortran_order': False, 'shape': (2,)}",
		"{u'descr': u'<f4', 'fortran_order': False, 'shape': (2,)}",
		"{'descr': '<i8', 'descr': '<f4', 'fortran_order': False, 'shape': (2,)}",
		"{'descr': '<f4', 'fortran_order': False, 'shape': ((2,))}",
		"{'descr': '<f4', 'fortran_order': False, 'shape': (+2,)}",
		"{'descr': '<f4', 'fortran_order': False, 'shape': (2L,)}",
	} {
		for _, v := range []Version{V1, V2} {
			a, err := Decode(npyFile(v, header, eight))
			if err != nil || a.DType != Float32 || len(a.Shape) != 1 || a.Shape[0] != 2 {
				t.Errorf("version %v header %q: %v, %v", v, header, a, err)
			}
		}
	}
	// A 3.0 header is UTF-8 and a 1.0 header Latin-1: an extra non-ASCII
	// key is named in the error as decoded under each rule.
	_, err := Decode(npyFile(V3, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'größe': 1}", eight))
	if err == nil || !strings.Contains(err.Error(), `"größe"`) {
		t.Errorf("UTF-8 key in a 3.0 header: %v", err)
	}
	// The same bytes in a 1.0 header are Latin-1.
	_, err = Decode(npyFile(V1, "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), '\xe9': 1}", eight))
	if err == nil || !strings.Contains(err.Error(), `"é"`) {
		t.Errorf("Latin-1 key in a 1.0 header: %v", err)
	}
}
