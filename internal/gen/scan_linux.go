package gen

import (
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"sync"
	"syscall"
	"unsafe"
)

// A dirHandle is an open directory; files are opened relative to it, so
// the kernel resolves one name rather than a whole path.
type dirHandle struct {
	fd   int
	path string
}

func openDir(path string) (*dirHandle, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return &dirHandle{fd: fd, path: path}, nil
}

func (d *dirHandle) close() { syscall.Close(d.fd) }

// openChild opens the subdirectory name (at path) relative to d, or
// returns nil when it cannot, leaving it to be opened by path.
func (d *dirHandle) openChild(name, path string) *dirHandle {
	fd, err := syscall.Openat(d.fd, name, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	return &dirHandle{fd: fd, path: path}
}

// getdents is syscall.ReadDirent; tests make it return short listings.
var getdents = syscall.ReadDirent

var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// entries lists the directory with getdents64, reading each entry's type
// from the listing (no stat per entry). The kernel may return fewer
// entries than fit (ext4 has been seen to return "." alone), so a listing
// ends with a call that returns nothing, or sooner when the offset after
// the last entry returned is the largest there is (ext4 and others mark
// the end of a directory so): no entry can follow it.
func (d *dirHandle) entries() ([]dirEntry, error) {
	var out []dirEntry
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := getdents(d.fd, buf)
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return nil, &fs.PathError{Op: "readdirent", Path: d.path, Err: err}
		}
		if n <= 0 {
			return out, nil
		}
		var off int64
		for b := buf[:n]; len(b) > 0; {
			// struct linux_dirent64 { u64 ino; s64 off; u16 reclen; u8 type; char name[]; }
			reclen := int(*(*uint16)(unsafe.Pointer(&b[16])))
			if reclen == 0 || reclen > len(b) {
				break
			}
			off = *(*int64)(unsafe.Pointer(&b[8]))
			typ := b[18]
			name := b[19:reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			b = b[reclen:]
			if s := string(name); s != "." && s != ".." {
				isDir := typ == syscall.DT_DIR
				if typ == syscall.DT_UNKNOWN || typ == syscall.DT_LNK {
					var st syscall.Stat_t
					if syscall.Stat(filepath.Join(d.path, s), &st) == nil {
						isDir = st.Mode&syscall.S_IFMT == syscall.S_IFDIR
					}
				}
				out = append(out, dirEntry{name: s, dir: isDir})
			}
		}
		if off == math.MaxInt64 {
			return out, nil
		}
	}
}

// read reads a file of the directory into buf, growing it if needed: one
// openat, reads until a short read (the end of a regular file), close.
func (d *dirHandle) read(name string, buf []byte) (data, grown []byte, err error) {
	fd, err := syscall.Openat(d.fd, name, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, buf, &fs.PathError{Op: "open", Path: filepath.Join(d.path, name), Err: err}
	}
	defer syscall.Close(fd)
	n := 0
	for {
		m, err := syscall.Read(fd, buf[n:])
		if err != nil {
			if errors.Is(err, syscall.EINTR) {
				continue
			}
			return nil, buf, &fs.PathError{Op: "read", Path: filepath.Join(d.path, name), Err: err}
		}
		n += m
		if m == 0 || n < len(buf) {
			return buf[:n], buf, nil
		}
		buf = append(buf, make([]byte, len(buf))...)
	}
}
