package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/discovery"
)

// randomEntry is an entry with every field drawn at random: empty, short,
// long (lengths past one varint byte), non-ASCII and arbitrary-byte
// strings, empty and
// full lists, times in UTC, in other zones and in Local.
func randomEntry(r *rand.Rand) discovery.Entry {
	str := func() string {
		switch r.IntN(6) {
		case 0:
			return ""
		case 4: // what a hostile owner may put in a description: any bytes
			b := make([]byte, r.IntN(400))
			for i := range b {
				b[i] = byte(r.IntN(256))
			}
			return string(b)
		case 1:
			return "sha256:" + strings.Repeat(fmt.Sprintf("%x", r.Uint64()), 4)
		case 2:
			return strings.Repeat("wörter ✓ ", r.IntN(60))
		default:
			return fmt.Sprintf("io.github.acme/s%d", r.IntN(1000))
		}
	}
	tm := func() time.Time {
		t := time.Unix(r.Int64N(4e9), r.Int64N(1e9))
		switch r.IntN(4) {
		case 0:
			return t.UTC()
		case 1:
			return t.In(time.FixedZone("", (r.IntN(27)-12)*3600+r.IntN(2)*1800))
		case 2:
			return t.Local()
		}
		return time.Time{}
	}
	pins := func(n int) []discovery.ToolPin {
		var out []discovery.ToolPin
		for range n {
			t := discovery.ToolPin{Name: str(), Hash: str()}
			for range r.IntN(3) {
				t.Scopes = append(t.Scopes, str())
			}
			out = append(out, t)
		}
		return out
	}
	e := discovery.Entry{Name: str(), Version: str(), Title: str(), Description: str(), Namespace: str(), Owner: str(),
		Status: str(), StatusMessage: str(), Contract: json.RawMessage(`{"hostEnvironments":{"allow":["prod"]}}`),
		Pins: discovery.Pins{SpecVersion: str(), Revision: r.IntN(300), ToolDefinitionHash: str(), SchemaHash: str(),
			InstructionsHash: str(), ContractHash: str(), PromptsHash: str(), ResourcesHash: str(),
			Tools: append([]discovery.ToolPin{}, pins(r.IntN(200))...), Prompts: pins(r.IntN(3))},
		Attestations: []discovery.Attestation{},
		Approval:     discovery.Approval{ApprovedAt: tm(), ApprovedBy: str(), SubmittedBy: str(), Reason: str()}}
	for range r.IntN(3) {
		e.Packages = append(e.Packages, discovery.Package{RegistryType: str(), Identifier: str(), Version: str(),
			Transport: str(), Digest: str(), DigestSource: str()})
	}
	for range r.IntN(3) {
		e.Remotes = append(e.Remotes, discovery.Remote{Type: str(), URL: str()})
	}
	for range r.IntN(3) {
		a := discovery.Attestation{PackageIndex: r.IntN(3), ArtifactDigest: str(), Issuer: str(), SAN: str(),
			SourceRepository: str(), KeyFingerprint: str(), CheckedAt: tm()}
		if r.IntN(2) == 0 {
			it := tm()
			a.IntegratedTime = &it
		}
		e.Attestations = append(e.Attestations, a)
	}
	return e
}

// TestDiscoveryEntryRoundTrip: a discovery version gives back the entry it
// was built from, field for field and byte for byte as JSON (what hosts
// and /v0.1 get), with its server.json and contract apart.
func TestDiscoveryEntryRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 19))
	for i := range 500 {
		e := randomEntry(r)
		doc := []byte(fmt.Sprintf(`{"name":%q,"version":"1.%d.0"}`, e.Name, i))
		v := newDiscoveryVersion(i, &e, doc)
		if !bytes.Equal(v.serverJSON(), doc) {
			t.Fatalf("entry %d: server.json %s, want %s", i, v.serverJSON(), doc)
		}
		if ns, owner := v.serverFields(); ns != e.Namespace || owner != e.Owner {
			t.Fatalf("entry %d: server fields %q %q, want %q %q", i, ns, owner, e.Namespace, e.Owner)
		}
		var names []string
		for _, tp := range e.Pins.Tools {
			names = append(names, tp.Name)
		}
		if have := v.toolNames(); !slices.Equal(have, names) {
			t.Fatalf("entry %d: tool names %q, want %q", i, have, names)
		}
		got := v.entry()
		want, _ := json.Marshal(e)
		if have, _ := json.Marshal(got); !bytes.Equal(have, want) {
			t.Fatalf("entry %d as JSON:\n%s\nwant\n%s", i, have, want)
		}
		// Times compare as instants (their zone is the JSON's offset).
		if !got.Approval.ApprovedAt.Equal(e.Approval.ApprovedAt) {
			t.Fatalf("entry %d: approved at %v, want %v", i, got.Approval.ApprovedAt, e.Approval.ApprovedAt)
		}
		got.Approval.ApprovedAt = e.Approval.ApprovedAt
		for j := range got.Attestations {
			a, w := &got.Attestations[j], e.Attestations[j]
			if !a.CheckedAt.Equal(w.CheckedAt) || (a.IntegratedTime == nil) != (w.IntegratedTime == nil) ||
				(a.IntegratedTime != nil && !a.IntegratedTime.Equal(*w.IntegratedTime)) {
				t.Fatalf("entry %d: attestation %d times %+v, want %+v", i, j, a, w)
			}
			a.CheckedAt, a.IntegratedTime = w.CheckedAt, w.IntegratedTime
		}
		if !reflect.DeepEqual(got, e) {
			t.Fatalf("entry %d:\n%+v\nwant\n%+v", i, got, e)
		}
		// The contract is a view of the version's bytes that cannot be
		// appended into its neighbours.
		if cap(got.Contract) != len(got.Contract) {
			t.Fatalf("entry %d: contract has room to grow into the entry's bytes", i)
		}
	}
}

// TestEntryReaderPastTheEnd: reading an entry cut short (which only a bug
// in the writer could cause) gives zero values, not a panic or a huge
// allocation.
func TestEntryReaderPastTheEnd(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	e := randomEntry(r)
	v := newDiscoveryVersion(1, &e, []byte(`{}`))
	for cut := v.contractEnd; cut < len(v.data); cut += 7 {
		short := *v
		short.data = v.data[:cut]
		got := short.entry()
		if got.Pins.Tools == nil || got.Attestations == nil {
			t.Fatalf("cut at %d: nil lists %+v", cut, got)
		}
	}
	big := entryWriter{}
	big.num(1 << 40) // a count no bytes left could hold
	if n := newEntryReader(big.b).count(); n != 0 {
		t.Fatalf("count %d from a short buffer, want 0", n)
	}
}

// BenchmarkDiscoveryEntry: what showing an indexed version costs, decoding
// its entry, next to what a resolve page then spends on it (marshalling
// it to JSON).
func BenchmarkDiscoveryEntry(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 13))
	e := randomEntry(r)
	e.Pins.Tools = e.Pins.Tools[:min(len(e.Pins.Tools), 8)]
	v := newDiscoveryVersion(1, &e, []byte(`{}`))
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			_ = v.entry()
		}
	})
	b.Run("marshal", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(e); err != nil {
				b.Fatal(err)
			}
		}
	})
}
