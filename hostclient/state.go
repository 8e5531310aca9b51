package hostclient

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// SequenceStore remembers, per registry (its base URL), the sequence of the
// last discovery document accepted, so that an older one is refused.
type SequenceStore interface {
	// Last returns the last saved sequence, 0 when there is none.
	Last(registry string) (int64, error)
	// Save records seq as accepted. Stores keep the highest sequence saved.
	Save(registry string, seq int64) error
}

// MemoryStore is a SequenceStore for the life of a process. Use it through
// a pointer; the zero value is ready.
type MemoryStore struct {
	mu   sync.Mutex
	seqs map[string]int64
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{} }

// Last implements SequenceStore.
func (m *MemoryStore) Last(registry string) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.seqs[registry], nil
}

// Save implements SequenceStore.
func (m *MemoryStore) Save(registry string, seq int64) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.seqs == nil {
		m.seqs = map[string]int64{}
	}
	m.seqs[registry] = max(m.seqs[registry], seq)
	return nil
}

// FileStore is a SequenceStore in a JSON file, written atomically (a
// temporary file in the same directory, synced, then renamed) with mode
// 0600. A file that exists but does not parse is an error, never a reset:
// losing the sequence would let an old document through. Processes sharing
// a file are not locked against each other; since a store keeps the
// highest sequence, a lost update only weakens the check, never blocks.
type FileStore struct {
	// Path is the file; its directory is created (0700) on first Save.
	Path string
	mu   sync.Mutex
}

// NewFileStore returns a FileStore at path.
func NewFileStore(path string) *FileStore { return &FileStore{Path: path} }

// stateFile is the file's content.
type stateFile struct {
	Registries map[string]stateEntry `json:"registries"`
}

type stateEntry struct {
	Sequence   int64     `json:"sequence"`
	AcceptedAt time.Time `json:"acceptedAt"`
}

// maxStateFile bounds what Last reads.
const maxStateFile = 1 << 20

// Last implements SequenceStore.
func (f *FileStore) Last(registry string) (int64, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, err := f.read()
	return st.Registries[registry].Sequence, err
}

// Save implements SequenceStore.
func (f *FileStore) Save(registry string, seq int64) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	st, err := f.read()
	if err != nil {
		return err
	}
	if seq <= st.Registries[registry].Sequence {
		return nil
	}
	st.Registries[registry] = stateEntry{Sequence: seq, AcceptedAt: time.Now().UTC()}
	data, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	if err := writeAtomic(f.Path, append(data, '\n')); err != nil {
		return fmt.Errorf("state file: %w", err)
	}
	return nil
}

func (f *FileStore) read() (stateFile, error) {
	st := stateFile{Registries: map[string]stateEntry{}}
	data, err := os.ReadFile(f.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return st, nil
	case err != nil:
		return st, fmt.Errorf("state file: %w", err)
	case len(data) > maxStateFile:
		return st, fmt.Errorf("state file %s: larger than %d bytes", f.Path, maxStateFile)
	}
	if err := json.Unmarshal(data, &st); err != nil {
		return st, fmt.Errorf("state file %s: %w (fix or remove it; removing it forgets the sequences accepted)", f.Path, err)
	}
	if st.Registries == nil {
		st.Registries = map[string]stateEntry{}
	}
	return st, nil
}

// writeAtomic replaces path with data so that readers see the old or the
// new content, never a part.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // fails harmlessly after the rename
	if _, err := tmp.Write(data); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		_ = tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	syncDir(dir)
	return nil
}

// syncDir makes a rename in dir durable, as far as the system allows: the
// rename has happened either way.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		_ = d.Close()
	}
}
