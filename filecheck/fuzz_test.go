package filecheck

import (
	"io"
	"testing"
)

// optionsFromBits turns fuzzer bits into a combination of options.
func optionsFromBits(bits uint16) Options {
	opts := DefaultOptions()
	opts.StrictWhitespace = bits&1 != 0
	opts.MatchFullLines = bits&2 != 0
	opts.IgnoreCase = bits&4 != 0
	opts.EnableVarScope = bits&8 != 0
	opts.AllowEmptyInput = bits&16 != 0
	opts.AllowDeprecatedDagOverlap = bits&32 != 0
	opts.Verbose = bits&64 != 0
	opts.VerboseVerbose = bits&128 != 0
	if bits&256 != 0 {
		opts.ImplicitCheckNot = []string{"{{err(or)?}}"}
	}
	if bits&512 != 0 {
		opts.CheckPrefixes = []string{"CHECK", "A"}
		opts.AllowUnusedPrefixes = true
	}
	if bits&1024 != 0 {
		opts.Defines = []string{"V=x", "#N=2"}
	}
	opts.DumpInput = DumpMode(bits >> 11 & 3)
	if opts.DumpInput == DumpHelp {
		opts.DumpInput = DumpAlways
	}
	return opts
}

func addCornerSeeds(f *testing.F, withInput bool) {
	for i, c := range cornerCases {
		if i%3 != 0 {
			continue
		}
		if withInput {
			f.Add(c.check, c.input, uint16(i*37))
		} else {
			f.Add(c.check, uint16(i*37))
		}
	}
}

// FuzzCheckFile feeds arbitrary check files to the parser: it must report
// a status of 0, 1 or 2 and never panic.
func FuzzCheckFile(f *testing.F) {
	addCornerSeeds(f, false)
	input := []byte("func @f\n  %0 = add %a, %b : i32\n\n  ret %0\n")
	f.Fuzz(func(t *testing.T, check string, bits uint16) {
		if len(check) > 4000 {
			return
		}
		code := Run(optionsFromBits(bits), "check", []byte(check), "input", input, io.Discard, nil)
		if code < 0 || code > 2 {
			t.Fatalf("exit status %d", code)
		}
	})
}

// FuzzMatch runs arbitrary check files on arbitrary inputs. Besides not
// panicking, the verdict must not depend on whether an input dump was
// asked for, since the dump only renders what matching recorded.
func FuzzMatch(f *testing.F) {
	addCornerSeeds(f, true)
	f.Fuzz(func(t *testing.T, check, input string, bits uint16) {
		if len(check) > 4000 || len(input) > 4000 {
			return
		}
		opts := optionsFromBits(bits)
		code := Run(opts, "check", []byte(check), "input", []byte(input), io.Discard, nil)
		if code < 0 || code > 2 {
			t.Fatalf("exit status %d", code)
		}
		opts.DumpInput = DumpNever
		if again := Run(opts, "check", []byte(check), "input", []byte(input), io.Discard, nil); again != code {
			t.Fatalf("exit status %d with an input dump, %d without", code, again)
		}
	})
}
