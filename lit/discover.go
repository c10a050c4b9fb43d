package lit

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// DefaultSuffixes are the file extensions of tests.
var DefaultSuffixes = []string{".ipuir", ".mlir"}

// Discover returns the test files under each path (files are taken as
// they are), sorted. Directories named Inputs hold test inputs, not tests,
// and are skipped, as lit's usual configuration does.
func Discover(paths []string, suffixes []string) ([]string, error) {
	var files []string
	for _, root := range paths {
		info, err := os.Stat(root)
		if err != nil {
			return nil, err
		}
		if !info.IsDir() {
			files = append(files, root)
			continue
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() {
				if path != root && (d.Name() == "Inputs" || strings.HasPrefix(d.Name(), ".")) {
					return filepath.SkipDir
				}
				return nil
			}
			for _, s := range suffixes {
				if strings.HasSuffix(path, s) {
					files = append(files, path)
					break
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	sort.Strings(files)
	return files, nil
}
