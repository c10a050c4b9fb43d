package lit

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// ModuleRoot returns the directory of the go.mod that governs dir.
func ModuleRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above %s", dir)
		}
		dir = parent
	}
}

// BuildTools builds every main package under moduleRoot/tools into outDir,
// so that tests run the current sources. A command that does not compile
// is left out and reported in the returned error; the others are built
// all the same, so that one broken command does not stop every test. It
// also links FileCheck to filecheck, for tests written with LLVM's name.
//
// tags are build tags for the build: ipuir's own tests build with
// "ipuir_testing", which gives ipu-opt the test dialect and passes.
func BuildTools(moduleRoot, outDir string, tags ...string) error {
	list := exec.Command("go", "list", "-e", "-f", `{{if eq .Name "main"}}{{.ImportPath}}{{end}}`, "./tools/...")
	list.Dir = moduleRoot
	out, err := list.Output()
	if err != nil {
		return fmt.Errorf("go list ./tools/...: %v", err)
	}
	pkgs := strings.Fields(string(out))
	if err := goBuild(moduleRoot, outDir, tags, pkgs...); err != nil {
		// Find out which commands are broken, building each alone.
		var errs []error
		for _, pkg := range pkgs {
			if err := goBuild(moduleRoot, outDir, tags, pkg); err != nil {
				errs = append(errs, err)
			}
		}
		if len(errs) > 0 {
			if linkErr := linkFileCheck(outDir); linkErr != nil {
				errs = append(errs, linkErr)
			}
			return errors.Join(errs...)
		}
	}
	return linkFileCheck(outDir)
}

func goBuild(moduleRoot, outDir string, tags []string, pkgs ...string) error {
	args := []string{"build", "-o", outDir + string(filepath.Separator)}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	args = append(args, pkgs...)
	cmd := exec.Command("go", args...)
	cmd.Dir = moduleRoot
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", strings.Join(pkgs, " "), err, strings.TrimSpace(out.String()))
	}
	return nil
}

func linkFileCheck(outDir string) error {
	if _, err := os.Stat(filepath.Join(outDir, "filecheck")); err != nil {
		return nil
	}
	if err := os.Symlink("filecheck", filepath.Join(outDir, "FileCheck")); err != nil && !os.IsExist(err) {
		return err
	}
	return nil
}
