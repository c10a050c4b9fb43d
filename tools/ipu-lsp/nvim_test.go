package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Neovim's built-in LSP client, headless, drives the server: a
// definition, a hover, and the diagnostic of an edit that breaks the file
// (Debian's neovim; skipped without it).
func TestNeovimClient(t *testing.T) {
	nvim, err := exec.LookPath("nvim")
	if err != nil {
		t.Skip("nvim is not installed")
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "model.ipuir")
	if err := os.WriteFile(file, []byte(model), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.txt")
	script, _ := filepath.Abs("testdata/client.lua")
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-n", "-i", "NONE", "-u", "NONE", "-c", "luafile "+script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "IPU_LSP_AS_SERVER=1", "IPU_LSP_SERVER="+os.Args[0], "IPU_LSP_FILE="+file, "IPU_LSP_OUT="+out,
		"XDG_CONFIG_HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_STATE_HOME="+dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("nvim: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"definition 2 4\n", "hover **tensor.matmul**", "diagnostic 3 21 use of undeclared SSA value name"} {
		if !strings.Contains(string(got), want) {
			t.Errorf("Neovim got:\n%s\nwant %q", got, want)
		}
	}
}
