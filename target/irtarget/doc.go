// Package irtarget is where a target meets the IR: the ipu.target attribute
// that names a module's machine, and the key under which verifiers and
// passes find that machine in an ir.Env. It is kept apart from package
// target so that the target stays plain data that the simulated device and
// the package format use without linking the IR.
package irtarget
