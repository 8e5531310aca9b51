package hostclient

import (
	"bytes"
	"cmp"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"
)

// Bounds of a FileCache whose fields are zero.
const (
	// DefaultCacheFiles is how many documents a FileCache keeps.
	DefaultCacheFiles = 64
	// DefaultCacheBytes is how many bytes its files may take together.
	DefaultCacheBytes = 32 << 20
)

// cacheFormat is the format of a FileCache file.
const cacheFormat = "mcpreg.hostclient.document-cache/v1"

// FileCache is a DocumentCache of JSON files in a directory, one per key
// (KEY.json), each written atomically (a temporary file in the same
// directory, synced, then renamed) with mode 0600. The envelopes are
// stored as base64 strings, so they come back byte for byte. After each
// Store the oldest files are removed beyond MaxFiles or MaxBytes. A file
// that does not parse or belongs to another key is an error naming it,
// never an empty cache.
type FileCache struct {
	// Dir holds the files; it is created (0700) on the first Store.
	Dir string
	// MaxFiles and MaxBytes bound the directory; 0 means
	// DefaultCacheFiles and DefaultCacheBytes. A document larger than
	// MaxBytes is not stored.
	MaxFiles int
	MaxBytes int64
	mu       sync.Mutex
}

// NewFileCache returns a FileCache in dir.
func NewFileCache(dir string) *FileCache { return &FileCache{Dir: dir} }

// CacheDirFor is the cache directory that goes with a FileStore's state
// file: statePath + ".cache", beside it.
func CacheDirFor(statePath string) string { return statePath + ".cache" }

// cacheFile is a FileCache file's content.
type cacheFile struct {
	Format   string     `json:"format"`
	Key      string     `json:"key"`
	Registry string     `json:"registry"`
	Query    cacheQuery `json:"query"`
	ReadAt   time.Time  `json:"readAt"`
	Pages    [][]byte   `json:"pages"`
}

type cacheQuery struct {
	Name      string `json:"name,omitempty"`
	Version   string `json:"version,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Owner     string `json:"owner,omitempty"`
	PageSize  int    `json:"pageSize,omitempty"`
}

func (f *FileCache) maxBytes() int64 { return cmp.Or(f.MaxBytes, DefaultCacheBytes) }

// path is key's file, or an error when key could name something else.
func (f *FileCache) path(key string) (string, error) {
	if b, err := hex.DecodeString(key); err != nil || len(b) != 32 {
		return "", fmt.Errorf("document cache: key %q is not 64 hex digits", key)
	}
	return filepath.Join(f.Dir, key+".json"), nil
}

// Load implements DocumentCache.
func (f *FileCache) Load(key string) (*CachedDocument, error) {
	path, err := f.path(key)
	if err != nil {
		return nil, err
	}
	data, err := readBounded(path, f.maxBytes())
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, nil
	case err != nil:
		return nil, err
	}
	var cf cacheFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&cf); err != nil {
		return nil, fmt.Errorf("%w %s: %w (remove it; the next read from the registry writes it again)", ErrCacheFile, path, err)
	}
	switch {
	case cf.Format != cacheFormat:
		return nil, fmt.Errorf("%w %s: format %q, want %q", ErrCacheFile, path, cf.Format, cacheFormat)
	case cf.Key != key:
		return nil, fmt.Errorf("%w %s: it holds the document of key %s", ErrCacheFile, path, cf.Key)
	case len(cf.Pages) == 0 || len(cf.Pages) > maxPages:
		return nil, fmt.Errorf("%w %s: %d pages, want 1 to %d", ErrCacheFile, path, len(cf.Pages), maxPages)
	}
	q := Query(cf.Query)
	return &CachedDocument{Key: cf.Key, Registry: cf.Registry, Query: q, ReadAt: cf.ReadAt, Pages: cf.Pages, Source: path}, nil
}

// readBounded reads path, refusing more than limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = file.Close() }()
	data, err := io.ReadAll(io.LimitReader(file, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrCacheFile, path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w %s: larger than the cache's %d bytes", ErrCacheFile, path, limit)
	}
	return data, nil
}

// Store implements DocumentCache.
func (f *FileCache) Store(doc *CachedDocument) error {
	path, err := f.path(doc.Key)
	if err != nil {
		return err
	}
	if len(doc.Pages) == 0 {
		return fmt.Errorf("document cache: no pages to store under %s", doc.Key)
	}
	data, err := json.Marshal(cacheFile{Format: cacheFormat, Key: doc.Key, Registry: doc.Registry,
		Query: cacheQuery(doc.Query), ReadAt: doc.ReadAt, Pages: doc.Pages})
	if err != nil {
		return fmt.Errorf("document cache: %w", err)
	}
	data = append(data, '\n')
	if int64(len(data)) > f.maxBytes() {
		return fmt.Errorf("document cache: the document takes %d bytes, more than the cache's %d", len(data), f.maxBytes())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if err := writeAtomic(path, data); err != nil {
		return fmt.Errorf("document cache: %w", err)
	}
	return f.prune(filepath.Base(path))
}

// prune removes the oldest files beyond the bounds, keeping the one just
// written (keep).
func (f *FileCache) prune(keep string) error {
	entries, err := os.ReadDir(f.Dir)
	if err != nil {
		return fmt.Errorf("document cache: %w", err)
	}
	type cached struct {
		name string
		mod  time.Time
		size int64
	}
	var files []cached
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") || len(name) != 64+len(".json") {
			continue
		}
		if info, err := e.Info(); err == nil {
			files = append(files, cached{name, info.ModTime(), info.Size()})
		}
	}
	// The file just written first, then the newest.
	rank := func(c cached) int {
		if c.name == keep {
			return 0
		}
		return 1
	}
	slices.SortFunc(files, func(a, b cached) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), b.mod.Compare(a.mod), cmp.Compare(a.name, b.name))
	})
	var errs []error
	total := int64(0)
	for i, c := range files {
		total += c.size
		if i < cmp.Or(f.MaxFiles, DefaultCacheFiles) && total <= f.maxBytes() {
			continue
		}
		if err := os.Remove(filepath.Join(f.Dir, c.name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("document cache: %w", err))
		}
	}
	return errors.Join(errs...)
}
