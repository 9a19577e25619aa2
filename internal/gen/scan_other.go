//go:build !linux

package gen

import (
	"os"
	"path/filepath"
)

// A dirHandle is a directory being scanned.
type dirHandle struct{ path string }

func openDir(path string) (*dirHandle, error) { return &dirHandle{path: path}, nil }

func (d *dirHandle) close() {}

func (d *dirHandle) openChild(name, path string) *dirHandle { return &dirHandle{path: path} }

func (d *dirHandle) entries() ([]dirEntry, error) {
	es, err := os.ReadDir(d.path)
	if err != nil {
		return nil, err
	}
	out := make([]dirEntry, len(es))
	for i, e := range es {
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(d.path, e.Name())); err == nil {
				isDir = st.IsDir()
			}
		}
		out[i] = dirEntry{name: e.Name(), dir: isDir}
	}
	return out, nil
}

func (d *dirHandle) read(name string, buf []byte) (data, grown []byte, err error) {
	data, err = os.ReadFile(filepath.Join(d.path, name))
	return data, buf, err
}
