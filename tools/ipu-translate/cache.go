package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/dustin/go-humanize"
	"github.com/spf13/pflag"

	"github.com/ipuir/ipuir/runtime/atomicfile"
	"github.com/ipuir/ipuir/runtime/ipupkg"
	"github.com/ipuir/ipuir/tools/toolkit"
)

// cacheOptions are --emit-package's compile cache (toolkit.CompileCache).
type cacheOptions struct {
	dir   string
	off   bool
	size  string
	key   string // the miss being compiled, stored when it succeeds
	cache *toolkit.CompileCache
}

func (c *cacheOptions) addFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.dir, "cache-dir", toolkit.DefaultCacheDir(), "With --emit-package, the folder of the compile cache, which keeps each compiled package by the hash of the compiler, the input, its flags and target, so that compiling the same again reuses it")
	fs.BoolVar(&c.off, "no-cache", false, "With --emit-package, compile without the compile cache: neither use nor store a result")
	fs.StringVar(&c.size, "cache-size", humanize.IBytes(toolkit.DefaultCacheBytes), "With --emit-package, the compile cache's size, past which the least recently used entries are removed")
}

// uncachedFlags are flags that do not change what is compiled.
var uncachedFlags = map[string]bool{"o": true, "output": true, "cache-dir": true, "no-cache": true, "cache-size": true,
	"v": true, "verbose": true}

// lookup is the cached package of this command, if the cache has it:
// written to the output, and true. Otherwise it remembers the key for
// store. A command the cache cannot key (input from standard input, output
// to standard output) compiles as if there were no cache.
func (c *cacheOptions) lookup(fs *pflag.FlagSet, args []string, tuningFile string, t *translations) (bool, error) {
	if c.off || c.dir == "" {
		return false, nil
	}
	limit, err := humanize.ParseBytes(c.size)
	if err != nil || limit > 1<<62 {
		return false, fmt.Errorf("--cache-size=%s: expected a size such as 512MiB or 4GiB", c.size)
	}
	inputs := fs.Args()
	output := fs.Lookup("output").Value.String()
	if len(inputs) != 1 || inputs[0] == "-" || output == "-" || output == inputs[0] {
		return false, nil
	}
	self, err := toolkit.ExecutableHash()
	if err != nil {
		return false, nil
	}
	input, err := toolkit.FileHash(inputs[0])
	if err != nil {
		return false, nil // the driver reports an unreadable input
	}
	parts := [][]byte{self, input, []byte(strings.Join(keyedArgs(fs, args), "\x00"))}
	if tuningFile != "" {
		h, err := toolkit.FileHash(tuningFile)
		if err != nil {
			return false, nil
		}
		parts = append(parts, h)
	}
	// An entry was a package this compiler wrote and validated; its
	// digest says whether it is still that package, at hashing speed.
	c.cache = &toolkit.CompileCache{Dir: c.dir, MaxBytes: int64(limit), Valid: func(data []byte) error {
		if ipupkg.IsPod(data) {
			return ipupkg.VerifyPodDigest(data)
		}
		return ipupkg.VerifyDigest(data)
	}}
	c.key = toolkit.Key(parts...)
	data, ok, bad := c.cache.Get(c.key)
	if bad != nil {
		t.log.Warn("a compile cache entry did not read back and was removed; compiling again", "key", c.key, "reason", bad)
	}
	if !ok {
		return false, nil
	}
	if !c.cache.LinkTo(c.key, output) {
		if err := atomicfile.WriteFile(output, func(w io.Writer) error { _, err := w.Write(data); return err }); err != nil {
			return true, err
		}
	}
	t.log.Info("reused the compiled package from the compile cache", "key", c.key, "bytes", len(data), "cache", c.dir)
	return true, nil
}

// store keeps a compiled package under the key lookup remembered.
func (c *cacheOptions) store(data []byte, t *translations) {
	if c.cache == nil || c.key == "" {
		return
	}
	if err := c.cache.Put(c.key, data); err != nil {
		t.log.Warn("could not store the package in the compile cache", "cache", c.dir, "reason", err)
		return
	}
	t.log.Info("stored the compiled package in the compile cache", "key", c.key, "cache", c.dir)
}

// keyedArgs are the flags that decide what is compiled, as given: every
// flag but the output, the cache's own and the log's, and no positional
// argument (the input is keyed by its contents).
func keyedArgs(fs *pflag.FlagSet, args []string) []string {
	positional := map[string]bool{}
	for _, a := range fs.Args() {
		positional[a] = true
	}
	var out []string
	skipNext := false
	for _, a := range args {
		if skipNext {
			skipNext = false
			continue
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			if positional[a] {
				continue
			}
			out = append(out, a)
			continue
		}
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil && len(name) == 1 {
			f = fs.ShorthandLookup(name)
		}
		if f != nil && uncachedFlags[f.Name] {
			skipNext = !hasValue && f.NoOptDefVal == ""
			continue
		}
		out = append(out, a)
	}
	return out
}
