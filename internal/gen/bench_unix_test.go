//go:build unix

package gen

import "syscall"

// syncFiles writes what the file systems hold in memory to disk.
func syncFiles() { syscall.Sync() }
