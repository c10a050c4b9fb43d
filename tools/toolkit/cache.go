package toolkit

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"
)

// CompileCache is a content-addressed store of compiled packages, so that
// compiling the same model with the same options, target and compiler a
// second time reuses the first result. An entry is keyed by the hash of
// everything the result depends on (Key); it is written to a temporary
// file and renamed into place, so that concurrent compiles of one model
// each find either no entry or a whole one (they write the same bytes);
// an entry that does not pass Valid (cut short, corrupted) is removed and
// rebuilt, never used. Entries are evicted oldest use first once the
// store passes MaxBytes.
type CompileCache struct {
	Dir      string
	MaxBytes int64
	// Valid checks an entry before it is used (the package reader's
	// checksums and structure).
	Valid func(data []byte) error
}

// DefaultCacheDir is $XDG_CACHE_HOME/ipuir, else ~/.cache/ipuir; "" when
// neither is known.
func DefaultCacheDir() string {
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "ipuir")
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".cache", "ipuir")
	}
	return ""
}

// DefaultCacheBytes is the store's default size cap.
const DefaultCacheBytes = 4 << 30

var (
	selfOnce sync.Once
	selfHash []byte
	selfErr  error
)

// ExecutableHash is the hash of the running program's own binary: a
// compiler rebuilt from other source is another compiler, whatever its
// version says.
func ExecutableHash() ([]byte, error) {
	selfOnce.Do(func() {
		path, err := os.Executable()
		if err != nil {
			selfErr = err
			return
		}
		selfHash, selfErr = FileHash(path)
	})
	return selfHash, selfErr
}

// FileHash is the SHA-256 of the file at path, read in a stream.
func FileHash(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return nil, err
	}
	return h.Sum(nil), nil
}

// Key hashes parts, each length-prefixed so that no two lists of parts
// share a key.
func Key(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (c *CompileCache) path(key string) string {
	return filepath.Join(c.Dir, "packages", key[:2], key+".ipupkg")
}

// Get returns key's entry. ok is false on a miss; an entry that fails
// Valid is removed (bad is then its reason) and reads as a miss.
func (c *CompileCache) Get(key string) (data []byte, ok bool, bad error) {
	p := c.path(key)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, false, nil
	}
	if c.Valid != nil {
		if err := c.Valid(data); err != nil {
			os.Remove(p)
			return nil, false, err
		}
	}
	now := time.Now()
	os.Chtimes(p, now, now) // its last use, for eviction
	return data, true, nil
}

// LinkTo puts key's entry at dst as a hard link, replacing dst whole (a
// link made beside it, then renamed over it), so that a large package is
// not copied; false when it cannot (another file system, dst not a plain
// file), and the caller writes the bytes instead. The entry and dst then
// share their bytes: a dst changed in place fails the entry's check next
// time, and the entry is rebuilt.
func (c *CompileCache) LinkTo(key, dst string) bool {
	if fi, err := os.Lstat(dst); err == nil && !fi.Mode().IsRegular() {
		return false
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+".cache-")
	if err != nil {
		return false
	}
	name := tmp.Name()
	tmp.Close()
	os.Remove(name)
	if err := os.Link(c.path(key), name); err != nil {
		return false
	}
	if err := os.Rename(name, dst); err != nil {
		os.Remove(name)
		return false
	}
	return true
}

// Put stores data as key's entry, whole or not at all, then evicts the
// oldest entries past MaxBytes.
func (c *CompileCache) Put(key string, data []byte) error {
	p := c.path(key)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), "."+key[:8]+".partial-")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		// As an output is written: an entry may become one (LinkTo).
		werr = os.Chmod(tmp.Name(), 0o644)
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), p)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return werr
	}
	return c.evict()
}

// evict removes entries, least recently used first, until the store is
// within MaxBytes.
func (c *CompileCache) evict() error {
	if c.MaxBytes <= 0 {
		return nil
	}
	type entry struct {
		path string
		size int64
		used time.Time
	}
	var entries []entry
	var total int64
	err := filepath.WalkDir(filepath.Join(c.Dir, "packages"), func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed by a concurrent eviction
			}
			return err
		}
		if d.Type().IsRegular() && filepath.Ext(p) == ".ipupkg" {
			if fi, err := d.Info(); err == nil {
				entries = append(entries, entry{p, fi.Size(), fi.ModTime()})
				total += fi.Size()
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].used.Before(entries[j].used) })
	for _, e := range entries {
		if total <= c.MaxBytes {
			break
		}
		if os.Remove(e.path) == nil {
			total -= e.size
		}
	}
	return nil
}
