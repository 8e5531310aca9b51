package registry

import (
	"encoding/binary"
	"encoding/json"
	"time"

	"github.com/mcpreg/mcpreg/discovery"
)

// discoveryVersion is one approved version, ready to serve. What lists
// filter and sort on is held in fields; the rest of its discovery entry,
// its server.json and its contract are one encoded byte slice (see
// newDiscoveryVersion), decoded when a page shows the version.
//
// Held as Go values, an entry was some 60 pointers (every string, slice
// and tool pin): at 100,000 servers the index was 5 million objects and
// 16 million pointers, and every garbage collection spent 0.4 s of CPU
// following them, slowing whichever requests it overlapped. Bytes hold
// no pointers, so the collector does not look inside them.
type discoveryVersion struct {
	id            int
	name, version string
	pinRevision   int
	deprecated    bool
	restricted    bool
	allow         []string
	publishedAt   time.Time
	stateChanged  time.Time
	// statusChanged is when the status was last set (zero: never).
	statusChanged time.Time
	// data is server.json as submitted (for /v0.1), the normalised
	// contract, then the rest of the entry encoded by entryWriter.
	data                 []byte
	jsonEnd, contractEnd int
}

// stringsBeforeTools is how many strings an encoded entry holds before
// its tool pins (TestDiscoveryEntryRoundTrip fails if it is wrong).
const stringsBeforeTools = 13

// newDiscoveryVersion holds entry e of version id, whose server.json is
// serverJSON, in the index's encoding.
func newDiscoveryVersion(id int, e *discovery.Entry, serverJSON []byte) *discoveryVersion {
	v := &discoveryVersion{id: id, name: e.Name, version: e.Version, pinRevision: e.Pins.Revision,
		deprecated: e.Status == StatusDeprecated}
	var w entryWriter
	// Namespace and owner first: serverFields reads them alone. Then the
	// stringsBeforeTools strings toolNames skips.
	w.str(e.Namespace, e.Owner, e.Title, e.Description, e.Status, e.StatusMessage)
	p := &e.Pins
	w.str(p.SpecVersion, p.ToolDefinitionHash, p.SchemaHash, p.InstructionsHash, p.ContractHash, p.PromptsHash, p.ResourcesHash)
	w.toolPins(p.Tools)
	w.toolPins(p.Prompts)
	w.num(len(e.Packages))
	for _, k := range e.Packages {
		w.str(k.RegistryType, k.Identifier, k.Version, k.Transport, k.Digest, k.DigestSource)
	}
	w.num(len(e.Remotes))
	for _, r := range e.Remotes {
		w.str(r.Type, r.URL)
	}
	w.num(len(e.Attestations))
	for _, a := range e.Attestations {
		w.num(a.PackageIndex)
		w.str(a.ArtifactDigest, a.Issuer, a.SAN, a.SourceRepository, a.KeyFingerprint)
		w.optTime(a.IntegratedTime)
		w.time(a.CheckedAt)
	}
	w.time(e.Approval.ApprovedAt)
	w.str(e.Approval.ApprovedBy, e.Approval.SubmittedBy, e.Approval.Reason)
	// One allocation of exactly the size needed: the index keeps it.
	v.data = make([]byte, 0, len(serverJSON)+len(e.Contract)+len(w.b))
	v.data = append(v.data, serverJSON...)
	v.jsonEnd = len(v.data)
	v.data = append(v.data, e.Contract...)
	v.contractEnd = len(v.data)
	v.data = append(v.data, w.b...)
	return v
}

// serverJSON is the version's server.json as submitted.
func (v *discoveryVersion) serverJSON() json.RawMessage {
	return json.RawMessage(v.data[:v.jsonEnd:v.jsonEnd])
}

// serverFields are the namespace and owner of the version's server, in
// strings of their own (the index keeps them; they must not hold on to a
// copy of the whole entry).
func (v *discoveryVersion) serverFields() (namespace, owner string) {
	r := entryReader{b: v.data[v.contractEnd:]}
	return r.own(), r.own()
}

// toolNames are the names of the version's approved tools, in strings of
// their own (the shadowing index keeps them).
func (v *discoveryVersion) toolNames() []string {
	r := entryReader{b: v.data[v.contractEnd:]}
	for range stringsBeforeTools {
		r.span()
	}
	names := make([]string, r.count())
	for i := range names {
		names[i] = r.own()
		r.span()
		for range r.count() {
			r.span()
		}
	}
	return names
}

// entry decodes the version's discovery entry (Latest unset).
func (v *discoveryVersion) entry() discovery.Entry {
	r := newEntryReader(v.data[v.contractEnd:])
	e := discovery.Entry{Name: v.name, Version: v.version,
		Contract: json.RawMessage(v.data[v.jsonEnd:v.contractEnd:v.contractEnd])}
	e.Namespace, e.Owner, e.Title, e.Description, e.Status, e.StatusMessage = r.str(), r.str(), r.str(), r.str(), r.str(), r.str()
	p := &e.Pins
	p.Revision = v.pinRevision
	p.SpecVersion, p.ToolDefinitionHash, p.SchemaHash, p.InstructionsHash = r.str(), r.str(), r.str(), r.str()
	p.ContractHash, p.PromptsHash, p.ResourcesHash = r.str(), r.str(), r.str()
	p.Tools = r.toolPins()
	if p.Tools == nil {
		p.Tools = []discovery.ToolPin{} // "tools": [], never null
	}
	p.Prompts = r.toolPins()
	if n := r.count(); n > 0 {
		e.Packages = make([]discovery.Package, n)
		for i := range e.Packages {
			k := &e.Packages[i]
			k.RegistryType, k.Identifier, k.Version, k.Transport, k.Digest, k.DigestSource = r.str(), r.str(), r.str(), r.str(), r.str(), r.str()
		}
	}
	if n := r.count(); n > 0 {
		e.Remotes = make([]discovery.Remote, n)
		for i := range e.Remotes {
			e.Remotes[i].Type, e.Remotes[i].URL = r.str(), r.str()
		}
	}
	e.Attestations = make([]discovery.Attestation, r.count()) // "attestations": [], never null
	for i := range e.Attestations {
		a := &e.Attestations[i]
		a.PackageIndex = r.num()
		a.ArtifactDigest, a.Issuer, a.SAN, a.SourceRepository, a.KeyFingerprint = r.str(), r.str(), r.str(), r.str(), r.str()
		a.IntegratedTime = r.optTime()
		a.CheckedAt = r.time()
	}
	e.Approval.ApprovedAt = r.time()
	e.Approval.ApprovedBy, e.Approval.SubmittedBy, e.Approval.Reason = r.str(), r.str(), r.str()
	return e
}

// entryWriter appends an entry's fields: numbers as varints, strings and
// times length-prefixed.
type entryWriter struct{ b []byte }

func (w *entryWriter) num(n int) { w.b = binary.AppendVarint(w.b, int64(n)) }

func (w *entryWriter) str(ss ...string) {
	for _, s := range ss {
		w.b = binary.AppendUvarint(w.b, uint64(len(s)))
		w.b = append(w.b, s...)
	}
}

func (w *entryWriter) time(t time.Time) {
	b, err := t.MarshalBinary()
	if err != nil { // a zone offset in seconds: keep the instant
		b, _ = t.UTC().MarshalBinary()
	}
	w.str(string(b))
}

func (w *entryWriter) optTime(t *time.Time) {
	if t == nil {
		w.num(0)
		return
	}
	w.num(1)
	w.time(*t)
}

func (w *entryWriter) toolPins(ts []discovery.ToolPin) {
	w.num(len(ts))
	for _, t := range ts {
		w.str(t.Name, t.Hash)
		w.num(len(t.Scopes))
		w.str(t.Scopes...)
	}
}

// entryReader reads what entryWriter wrote. Its strings share one copy of
// the bytes (one allocation per entry decoded). Reading past the end, which
// only a bug in the writer could cause, yields zero values.
type entryReader struct {
	b   []byte
	s   string // b as a string
	off int
}

func newEntryReader(b []byte) *entryReader { return &entryReader{b: b, s: string(b)} }

func (r *entryReader) num() int {
	n, k := binary.Varint(r.b[r.off:])
	if k <= 0 {
		r.off = len(r.b)
		return 0
	}
	r.off += k
	return int(n)
}

// count is a number of items to read: none if it is more than the bytes
// left could hold.
func (r *entryReader) count() int {
	n := r.num()
	if n < 0 || n > len(r.b)-r.off {
		r.off = len(r.b)
		return 0
	}
	return n
}

// span is where the next length-prefixed string or time lies.
func (r *entryReader) span() (start, end int) {
	n, k := binary.Uvarint(r.b[r.off:])
	if k <= 0 || n > uint64(len(r.b)-r.off-k) {
		r.off = len(r.b)
		return r.off, r.off
	}
	start = r.off + k
	r.off = start + int(n)
	return start, r.off
}

// str is the next string, sharing the reader's copy of the bytes (only
// with a reader from newEntryReader).
func (r *entryReader) str() string {
	start, end := r.span()
	return r.s[start:end]
}

// own is the next string in an allocation of its own, for strings kept
// longer than the entry read.
func (r *entryReader) own() string {
	start, end := r.span()
	return string(r.b[start:end])
}

func (r *entryReader) time() time.Time {
	start, end := r.span()
	var t time.Time
	_ = t.UnmarshalBinary(r.b[start:end]) // written by MarshalBinary
	return t
}

func (r *entryReader) optTime() *time.Time {
	if r.num() == 0 {
		return nil
	}
	t := r.time()
	return &t
}

func (r *entryReader) toolPins() []discovery.ToolPin {
	n := r.count()
	if n == 0 {
		return nil
	}
	out := make([]discovery.ToolPin, n)
	for i := range out {
		out[i].Name, out[i].Hash = r.str(), r.str()
		if k := r.count(); k > 0 {
			out[i].Scopes = make([]string, k)
			for j := range out[i].Scopes {
				out[i].Scopes[j] = r.str()
			}
		}
	}
	return out
}
