package fetch

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Limits bound a package tarball and what it unpacks to.
type Limits struct {
	MaxTarballBytes  int64
	MaxUnpackedBytes int64
	MaxFiles         int
}

// DefaultLimits are generous for MCP servers and small next to a disk.
func DefaultLimits() Limits {
	return Limits{MaxTarballBytes: 64 << 20, MaxUnpackedBytes: 256 << 20, MaxFiles: 20000}
}

func (n *NPM) limits() Limits {
	l, d := n.Limits, DefaultLimits()
	if l.MaxTarballBytes <= 0 {
		l.MaxTarballBytes = d.MaxTarballBytes
	}
	if l.MaxUnpackedBytes <= 0 {
		l.MaxUnpackedBytes = d.MaxUnpackedBytes
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = d.MaxFiles
	}
	return l
}

// unpack extracts an npm tarball (gzip'd tar whose entries sit under one
// top folder, usually "package/") into dir. Only regular files and folders
// are written; links, devices, absolute paths and paths leaving the
// package are refused, as is anything over the limits.
func unpack(tarball []byte, dir string, l Limits) error {
	gz, err := gzip.NewReader(bytes.NewReader(tarball))
	if err != nil {
		return fmt.Errorf("tarball: %v", err)
	}
	tr := tar.NewReader(gz)
	var total int64
	files := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("tarball: %v", err)
		}
		rel, err := entryPath(h.Name)
		if err != nil {
			return err
		}
		if rel == "" {
			continue
		}
		target := filepath.Join(dir, filepath.FromSlash(rel))
		switch h.Typeflag {
		case tar.TypeDir:
			if err := os.MkdirAll(target, 0o755); err != nil {
				return err
			}
		case tar.TypeReg:
			if files++; files > l.MaxFiles {
				return fmt.Errorf("tarball has more than %d files", l.MaxFiles)
			}
			if total += h.Size; h.Size < 0 || total > l.MaxUnpackedBytes {
				return fmt.Errorf("tarball unpacks to more than %d bytes", l.MaxUnpackedBytes)
			}
			if err := writeFile(target, tr, h.Size, os.FileMode(h.Mode)); err != nil {
				return err
			}
		case tar.TypeXGlobalHeader:
		default:
			return fmt.Errorf("tarball entry %q: type %q is not a regular file or folder", h.Name, h.Typeflag)
		}
	}
	return nil
}

// entryPath strips the top folder and refuses paths that leave it.
func entryPath(name string) (string, error) {
	n := filepath.ToSlash(name)
	if strings.HasPrefix(n, "/") || strings.Contains(n, "\\") {
		return "", fmt.Errorf("tarball entry %q: absolute or backslashed path", name)
	}
	for _, part := range strings.Split(n, "/") {
		if part == ".." {
			return "", fmt.Errorf("tarball entry %q leaves the package", name)
		}
	}
	_, rest, _ := strings.Cut(path.Clean(n), "/")
	return rest, nil
}

func writeFile(target string, r io.Reader, size int64, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		return err
	}
	perm := os.FileMode(0o644)
	if mode&0o111 != 0 {
		perm = 0o755
	}
	f, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return fmt.Errorf("tarball: %v", err)
	}
	if _, err := io.CopyN(f, r, size); err != nil {
		f.Close()
		return fmt.Errorf("tarball: %v", err)
	}
	return f.Close()
}
