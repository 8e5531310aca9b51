package fetch

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type entry struct {
	name, body, link string
	typ              byte
	mode             int64
}

func tarball(t *testing.T, es ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range es {
		typ := e.typ
		if typ == 0 {
			typ = tar.TypeReg
		}
		mode := e.mode
		if mode == 0 {
			mode = 0o644
		}
		h := &tar.Header{Name: e.name, Typeflag: typ, Mode: mode, Size: int64(len(e.body)), Linkname: e.link}
		if typ != tar.TypeReg {
			h.Size = 0
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		if typ == tar.TypeReg {
			if _, err := tw.Write([]byte(e.body)); err != nil {
				t.Fatal(err)
			}
		}
	}
	closeTarball(t, tw, gz)
	return buf.Bytes()
}

func TestUnpack(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "package")
	err := unpack(tarball(t,
		entry{name: "package/package.json", body: `{"name":"x","bin":"./bin/x.js"}`},
		entry{name: "package/bin/x.js", body: "#!/usr/bin/env node\n", mode: 0o755},
		entry{name: "package/lib/", typ: tar.TypeDir},
	), dir, DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(filepath.Join(dir, "bin", "x.js"))
	if err != nil || info.Mode().Perm() != 0o755 {
		t.Fatalf("bin: %v %v", info, err)
	}
	if bin, err := binOf(dir); err != nil || bin != filepath.Join(dir, "bin", "x.js") {
		t.Fatalf("binOf: %q %v", bin, err)
	}
}

func TestUnpackRefusesHostileTarballs(t *testing.T) {
	small := Limits{MaxTarballBytes: 1 << 20, MaxUnpackedBytes: 100, MaxFiles: 3}
	for _, c := range []struct {
		name    string
		entries []entry
		want    string
	}{
		{"parent path", []entry{{name: "package/../../evil", body: "x"}}, "leaves the package"},
		{"absolute path", []entry{{name: "/etc/evil", body: "x"}}, "absolute"},
		{"symlink", []entry{{name: "package/link", typ: tar.TypeSymlink, link: "/etc/passwd"}}, "not a regular file"},
		{"hard link", []entry{{name: "package/link", typ: tar.TypeLink, link: "package/a"}}, "not a regular file"},
		{"device", []entry{{name: "package/dev", typ: tar.TypeChar}}, "not a regular file"},
		{"too large", []entry{{name: "package/big", body: strings.Repeat("x", 101)}}, "more than 100 bytes"},
		{"too many files", []entry{{name: "package/a"}, {name: "package/b"}, {name: "package/c"}, {name: "package/d"}}, "more than 3 files"},
		{"duplicate entry", []entry{{name: "package/a", body: "1"}, {name: "package/a", body: "2"}}, "exists"},
	} {
		t.Run(c.name, func(t *testing.T) {
			root := t.TempDir()
			err := unpack(tarball(t, c.entries...), filepath.Join(root, "package"), small)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if _, err := os.Stat(filepath.Join(root, "evil")); err == nil {
				t.Fatal("wrote outside the package")
			}
		})
	}
	if err := unpack([]byte("not gzip"), t.TempDir(), small); err == nil {
		t.Fatal("garbage unpacked")
	}
}

func TestBinOf(t *testing.T) {
	for _, c := range []struct {
		name, pkg, file, want, err string
	}{
		{"string", `{"name":"x","bin":"cli.js"}`, "cli.js", "cli.js", ""},
		{"single entry", `{"name":"@s/x","bin":{"other":"./dist/a.js"}}`, "dist/a.js", "dist/a.js", ""},
		{"named like the package", `{"name":"@s/x","bin":{"x":"b.js","y":"c.js"}}`, "b.js", "b.js", ""},
		{"ambiguous", `{"name":"@s/x","bin":{"y":"b.js","z":"c.js"}}`, "b.js", "", "none is named"},
		{"no bin", `{"name":"x"}`, "", "", "no \"bin\""},
		{"escaping", `{"name":"x","bin":"../../etc/passwd"}`, "", "", "leaves the package"},
		{"absolute", `{"name":"x","bin":"/bin/sh"}`, "", "", "leaves the package"},
		{"missing file", `{"name":"x","bin":"nope.js"}`, "", "", "not a file"},
		{"wrong type", `{"name":"x","bin":7}`, "", "", "neither"},
		{"broken json", `{"name":`, "", "", "package.json"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(c.pkg), 0o644); err != nil {
				t.Fatal(err)
			}
			if c.file != "" {
				if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, c.file)), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, c.file), []byte("x"), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			got, err := binOf(dir)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("got %q %v, want error %q", got, err, c.err)
				}
				return
			}
			if err != nil || got != filepath.Join(dir, c.want) {
				t.Fatalf("got %q %v, want %s", got, err, c.want)
			}
		})
	}
}

// zeroEntryTarball is a gzip'd tar with one regular file of size zero
// bytes named name: it compresses about a thousand to one.
func zeroEntryTarball(t *testing.T, name string, size int64) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz, _ := gzip.NewWriterLevel(&buf, gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: name, Typeflag: tar.TypeReg, Mode: 0o644, Size: size}); err != nil {
		t.Fatal(err)
	}
	zeros := make([]byte, 1<<20)
	for left := size; left > 0; left -= int64(len(zeros)) {
		if _, err := tw.Write(zeros[:min(left, int64(len(zeros)))]); err != nil {
			t.Fatal(err)
		}
	}
	closeTarball(t, tw, gz)
	return buf.Bytes()
}

// closeTarball finishes a tarball written through tw and gz.
func closeTarball(t *testing.T, tw *tar.Writer, gz *gzip.Writer) {
	t.Helper()
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestUnpackCountsEveryEntry: an entry named like the top folder (which
// has no path inside the package) still counts against the limits. Before
// the fix a 1 MiB tarball holding a 1 GiB entry "package" passed a 1 MiB
// limit.
func TestUnpackCountsEveryEntry(t *testing.T) {
	const gib = 1 << 30
	data := zeroEntryTarball(t, "package", gib)
	if len(data) > 2<<20 {
		t.Fatalf("test tarball is %d bytes, want about 1 MiB", len(data))
	}
	l := Limits{MaxTarballBytes: 2 << 20, MaxUnpackedBytes: 1 << 20, MaxFiles: 10}
	err := unpack(data, filepath.Join(t.TempDir(), "package"), l)
	if err == nil || !strings.Contains(err.Error(), "1048576") {
		t.Fatalf("a 1 GiB entry named like the top folder passed a 1 MiB limit: %v", err)
	}
	t.Log(err)
	for _, name := range []string{"./package", "package/.", "other"} {
		err := unpack(zeroEntryTarball(t, name, 200), filepath.Join(t.TempDir(), "package"), Limits{MaxUnpackedBytes: 100, MaxFiles: 10})
		if err == nil {
			t.Errorf("entry %q of 200 bytes passed a 100-byte limit", name)
		}
	}
}

// TestUnpackCountsDecompressedBytes: bytes the tar reader skips (padding,
// entries it never hands out) still count; a tarball that decompresses to
// far more than its entries declare is refused.
func TestUnpackCountsDecompressedBytes(t *testing.T) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: "package/a", Typeflag: tar.TypeReg, Mode: 0o644, Size: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := tw.Flush(); err != nil {
		t.Fatal(err)
	}
	// A long run of zero blocks after the entry: the tar end marker
	// followed by 64 MiB of zeros the reader would skip.
	if _, err := gz.Write(make([]byte, 64<<20)); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	err := unpack(buf.Bytes(), filepath.Join(t.TempDir(), "package"), Limits{MaxUnpackedBytes: 1 << 20, MaxFiles: 10})
	if err == nil || !strings.Contains(err.Error(), "decompresses to more than") {
		t.Fatalf("64 MiB of trailing zeros passed: %v", err)
	}
}
