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

// Limits bound a package tarball and what it unpacks to. Every entry of
// the tarball counts, whatever its type or name, and so does every byte
// the gzip stream decompresses to.
type Limits struct {
	// MaxTarballBytes bounds the compressed tarball.
	MaxTarballBytes int64
	// MaxUnpackedBytes bounds the sum of the sizes of all entries.
	MaxUnpackedBytes int64
	// MaxFiles bounds the number of entries.
	MaxFiles int
}

// headerAllowance is what the decompressed stream may hold beyond the
// entries' contents: headers, padding and the end marker.
func (l Limits) headerAllowance() int64 { return int64(l.MaxFiles+4)*2048 + 1<<20 }

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
// package are refused, as is anything over the limits. Package-manager
// configuration and lockfiles (foreignConfig) are left out.
func unpack(tarball []byte, dir string, l Limits) error {
	gz, err := gzip.NewReader(bytes.NewReader(tarball))
	if err != nil {
		return fmt.Errorf("tarball: %w", err)
	}
	stream := &cappedReader{r: gz, left: l.MaxUnpackedBytes + l.headerAllowance(), limit: l.MaxUnpackedBytes}
	tr := tar.NewReader(stream)
	var total int64
	entries := 0
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("tarball: %w", err)
		}
		if entries++; entries > l.MaxFiles {
			return fmt.Errorf("tarball has more than %d files", l.MaxFiles)
		}
		if total += h.Size; h.Size < 0 || total > l.MaxUnpackedBytes {
			return fmt.Errorf("tarball unpacks to more than %d bytes (entry %q declares %d)", l.MaxUnpackedBytes, h.Name, h.Size)
		}
		if err := unpackEntry(tr, h, dir); err != nil {
			return err
		}
	}
	// The rest of the stream counts too (and the gzip checksum is read).
	if _, err := io.Copy(io.Discard, stream); err != nil {
		return fmt.Errorf("tarball: %w", err)
	}
	return nil
}

// unpackEntry writes one entry below dir.
func unpackEntry(tr *tar.Reader, h *tar.Header, dir string) error {
	rel, err := entryPath(h.Name)
	if err != nil {
		return err
	}
	if rel == "" {
		if h.Typeflag == tar.TypeDir {
			return nil
		}
		return fmt.Errorf("tarball entry %q: only a folder may be named like the top folder", h.Name)
	}
	if foreignConfig(rel) {
		return nil // counted above, never written
	}
	target := filepath.Join(dir, filepath.FromSlash(rel))
	switch h.Typeflag {
	case tar.TypeDir:
		return os.MkdirAll(target, 0o755)
	case tar.TypeReg:
		return writeFile(target, tr, h.Size, os.FileMode(h.Mode))
	case tar.TypeXGlobalHeader:
		return nil
	default:
		return fmt.Errorf("tarball entry %q: type %q is not a regular file or folder", h.Name, h.Typeflag)
	}
}

// errDecompressed marks a gzip stream longer than its cap.
var errDecompressed = errors.New("decompressed limit")

// cappedReader fails once more than left bytes were read through it.
type cappedReader struct {
	r     io.Reader
	left  int64
	limit int64
}

func (c *cappedReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, fmt.Errorf("%w: the tarball decompresses to more than its %d-byte limit plus headers", errDecompressed, c.limit)
	}
	n, err := c.r.Read(p[:min(int64(len(p)), c.left)])
	c.left -= int64(n)
	return n, err
}

// foreignConfig reports whether rel (a path inside the package) is
// configuration a package manager would read from the package itself:
// .npmrc, .yarnrc*, .pnpmrc at any depth (in any case), and the lockfiles
// npm would follow at the package root. They are not unpacked.
func foreignConfig(rel string) bool {
	base := strings.ToLower(path.Base(rel))
	if base == ".npmrc" || base == ".pnpmrc" || strings.HasPrefix(base, ".yarnrc") {
		return true
	}
	switch strings.ToLower(rel) {
	case "package-lock.json", "npm-shrinkwrap.json", "node_modules/.package-lock.json", "yarn.lock", "pnpm-lock.yaml":
		return true
	}
	return false
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
		return fmt.Errorf("tarball: %w", err)
	}
	if _, err := io.CopyN(f, r, size); err != nil {
		_ = f.Close()
		return fmt.Errorf("tarball: %w", err)
	}
	return f.Close()
}
