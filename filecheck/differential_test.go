package filecheck

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestDifferentialAgainstFileCheck19 runs every generated and hand-written
// case through this package and through LLVM's FileCheck-19, and requires
// the same exit status and the same first line of diagnostics. It also
// counts how often the whole stderr agrees, which it logs.
func TestDifferentialAgainstFileCheck19(t *testing.T) {
	oracle, err := exec.LookPath("FileCheck-19")
	if err != nil {
		t.Skip("FileCheck-19 is not on PATH")
	}
	cases := differentialCases()
	dir := t.TempDir()
	type outcome struct {
		c                   diffCase
		wantCode, gotCode   int
		wantErr, gotErr     string
		codeOK, firstLineOK bool
	}
	results := make([]outcome, len(cases))
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				c := cases[i]
				caseDir := filepath.Join(dir, c.name)
				if err := os.MkdirAll(caseDir, 0o755); err != nil {
					panic(err)
				}
				wantCode, wantErr := runOracle(oracle, caseDir, c)
				gotCode, gotErr := runOurs(c)
				results[i] = outcome{c: c, wantCode: wantCode, gotCode: gotCode, wantErr: wantErr, gotErr: gotErr,
					codeOK: wantCode == gotCode, firstLineOK: firstLine(wantErr) == firstLine(gotErr)}
			}
		}()
	}
	for i := range cases {
		work <- i
	}
	close(work)
	wg.Wait()

	agreeCode, agreeFirst, agreeAll := 0, 0, 0
	for _, r := range results {
		if r.codeOK {
			agreeCode++
		}
		if r.firstLineOK {
			agreeFirst++
		}
		if r.wantErr == r.gotErr && r.codeOK {
			agreeAll++
		}
		if !r.codeOK || !r.firstLineOK {
			t.Errorf("case %s (args %q):\ncheck file:\n%s\ninput:\n%s\nFileCheck-19 exit %d:\n%s\nours exit %d:\n%s",
				r.c.name, r.c.args, r.c.check, r.c.input, r.wantCode, r.wantErr, r.gotCode, r.gotErr)
		} else if r.wantErr != r.gotErr && testing.Verbose() {
			t.Logf("case %s: stderr differs beyond the first line:\n--- FileCheck-19\n%s\n--- ours\n%s", r.c.name, r.wantErr, r.gotErr)
		}
	}
	t.Logf("%d cases: exit status agrees in %d, first stderr line in %d, whole stderr in %d",
		len(cases), agreeCode, agreeFirst, agreeAll)
}

// differentialCases returns the hand-written cases, 600 generated check
// files and 300 generated regular expressions,
// the same on every run.
func differentialCases() []diffCase {
	var cases []diffCase
	for i, c := range cornerCases {
		c.name = fmt.Sprintf("corner%03d", i)
		cases = append(cases, c)
	}
	g := &generator{r: rand.New(rand.NewPCG(19, 4))}
	for i := 0; i < 600; i++ {
		cases = append(cases, g.randomCase(i))
	}
	for i := 0; i < 300; i++ {
		cases = append(cases, g.regexCase(i))
	}
	return cases
}

func caseArgs(c diffCase) []string {
	args := []string{"check.txt"}
	if !c.stdin {
		args = append(args, "--input-file", "input.txt")
	}
	return append(args, c.args...)
}

func runOracle(oracle, dir string, c diffCase) (int, string) {
	if err := os.WriteFile(filepath.Join(dir, "check.txt"), []byte(c.check), 0o644); err != nil {
		panic(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "input.txt"), []byte(c.input), 0o644); err != nil {
		panic(err)
	}
	cmd := exec.Command(oracle, caseArgs(c)...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FILECHECK_OPTS=")
	cmd.Stdin = strings.NewReader(c.input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		panic(err)
	}
	// The oracle's command line appears in one message; put ours there.
	out := strings.ReplaceAll(stderr.String(), "FileCheck command line:  "+oracle, "FileCheck command line:  filecheck")
	return code, out
}

// runOurs runs the case in-process, parsing its options the way the
// filecheck command does.
func runOurs(c diffCase) (int, string) {
	var stderr bytes.Buffer
	code := runCommandLine(append([]string{"filecheck"}, caseArgs(c)...), []byte(c.check), []byte(c.input), &stderr)
	return code, stderr.String()
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// runCommandLine runs the filecheck command in-process on in-memory files.
func runCommandLine(args []string, check, input []byte, stderr *bytes.Buffer) int {
	files := map[string][]byte{"check.txt": check, "input.txt": input}
	return Main(args, Env{
		Stdin: bytes.NewReader(input), Stdout: &bytes.Buffer{}, Stderr: stderr,
		Getenv: func(string) string { return "" },
		ReadFile: func(name string) ([]byte, error) {
			if b, ok := files[name]; ok {
				return b, nil
			}
			return nil, os.ErrNotExist
		},
	})
}
