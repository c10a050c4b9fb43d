package main

import (
	"os"
	"path/filepath"
	"testing"
)

// The checked-in examples are exactly what the generator writes.
func TestExamplesAreUpToDate(t *testing.T) {
	for _, v := range Variants {
		want, err := v.Text()
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join("..", v.File))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want {
			t.Errorf("%s is stale: run go generate ./examples", v.File)
		}
		model, err := v.ONNX()
		if err != nil {
			t.Fatal(err)
		}
		if got, err := os.ReadFile(filepath.Join("..", v.onnxFile())); err != nil || string(got) != string(model) {
			t.Errorf("%s is stale: run go generate ./examples", v.onnxFile())
		}
	}
}

func TestEncodersAreUpToDate(t *testing.T) {
	for _, e := range Encoders {
		got, err := os.ReadFile(filepath.Join("..", e.File))
		if err != nil || string(got) != e.Text() {
			t.Errorf("%s is stale: run go generate ./examples (%v)", e.File, err)
		}
	}
}

func TestGeneratorRejectsBadVariants(t *testing.T) {
	if _, err := (Attention{File: "x", Hidden: 10, Heads: 3, Elem: "f16"}).Text(); err == nil {
		t.Error("accepted hidden 10 with 3 heads")
	}
	if _, err := (Attention{File: "x", Hidden: 8, Heads: 2, Elem: "i8"}).Text(); err == nil {
		t.Error("accepted element type i8")
	}
}
