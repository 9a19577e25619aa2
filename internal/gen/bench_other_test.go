//go:build !unix

package gen

func syncFiles() {}
