// Package onnxpb holds the Go types of the ONNX model format, generated
// from onnx.proto (see its header) by protoc and protoc-gen-go.
package onnxpb

//go:generate go build -o .protoc-gen-go google.golang.org/protobuf/cmd/protoc-gen-go
//go:generate protoc --plugin=protoc-gen-go=.protoc-gen-go --go_out=. --go_opt=paths=source_relative onnx.proto
//go:generate rm -f .protoc-gen-go
