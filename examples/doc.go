// Package examples holds example programs in ipuir's textual IR, starting
// with the reference workload: the SigLIP attention block of the reference
// compile log (729 tokens, hidden 1152, 16 heads of 72, f16) in the tensor
// dialect, plus smaller variants of the same block for fast tests; and
// encoder stacks for pods: SigLIP-so400m's vision encoder for an IPU-POD4
// (siglip-so400m-pod4.ipuir, 27 layers that no one chip holds), ViT-B/16's
// (vit-b16-pod4.ipuir) and four small layers on four test16 chips
// (encoder-test16x4.ipuir), written by package encoder.
//
// The .ipuir files are generated so that the variants cannot drift apart;
// edit gen/attention.go or gen/encoders.go and run `go generate ./examples`. The files are
// checked in, and gen's test fails when regenerating would change them.
package examples

//go:generate go run ./gen
