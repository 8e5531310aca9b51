package gate_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mcpreg/mcpreg/gate"
)

// receipt is a receipt whose JSON line has the same length for every n
// below 10.
func receipt(n int) gate.Receipt {
	return gate.Receipt{
		ID: fmt.Sprintf("rcpt_%024d", n), Server: "io.github.acme/files", Version: "1.2.0", PinRevision: 3,
		Tool: "read", ToolHash: "sha256:" + fmt.Sprintf("%064d", 0), ArgumentsDigest: "sha256:" + fmt.Sprintf("%064d", 1),
		StartedAt: fixedNow, EndedAt: fixedNow.Add(time.Second), Outcome: gate.OutcomeCommitted,
		ResultDigest: "sha256:" + fmt.Sprintf("%064d", 2),
	}
}

// readReceipts returns the receipts of a JSON-lines file, or nil when it
// does not exist.
func readReceipts(t *testing.T, path string) []gate.Receipt {
	t.Helper()
	rs, err := gate.ReadReceiptFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func receiptIDs(rs []gate.Receipt) []string {
	ids := make([]string, len(rs))
	for i, r := range rs {
		ids[i] = r.ID
	}
	return ids
}

func TestReceiptFileWritesJSONLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "mcpreg", "receipts.jsonl")
	f := &gate.ReceiptFile{Path: path}
	want := []gate.Receipt{receipt(1), receipt(2)}
	want[1].Outcome, want[1].Reason, want[1].IdempotencyKey = gate.OutcomeRejected, `tool "x" <is> withheld`, "k"
	for _, r := range want {
		if err := f.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	got := readReceipts(t, path)
	if len(got) != len(want) {
		t.Fatalf("got %d receipts, want %d", len(got), len(want))
	}
	for i := range want {
		if fmt.Sprintf("%+v", got[i]) != fmt.Sprintf("%+v", want[i]) {
			t.Errorf("receipt %d:\n%+v\nwant\n%+v", i, got[i], want[i])
		}
	}
	for p, perm := range map[string]fs.FileMode{path: 0o600, filepath.Dir(path): 0o700} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm()&^perm != 0 {
			t.Errorf("%s has mode %v, want at most %v", p, st.Mode().Perm(), perm)
		}
	}
}

// Past MaxBytes the file becomes FILE.1, FILE.1 FILE.2 and so on; the
// oldest beyond Keep is dropped.
func TestReceiptFileRotates(t *testing.T) {
	line, err := json.Marshal(receipt(1))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "receipts.jsonl")
	// Two lines fit in a file; Keep two old files.
	f := &gate.ReceiptFile{Path: path, MaxBytes: 2 * int64(len(line)+1), Keep: 2}
	for n := 1; n <= 7; n++ {
		if err := f.Write(receipt(n)); err != nil {
			t.Fatal(err)
		}
	}
	id := func(ns ...int) []string {
		var ids []string
		for _, n := range ns {
			ids = append(ids, receipt(n).ID)
		}
		return ids
	}
	for _, tt := range []struct {
		path string
		want []string
	}{
		{path, id(7)},
		{path + ".1", id(5, 6)},
		{path + ".2", id(3, 4)},
		{path + ".3", nil}, // receipts 1 and 2: dropped
	} {
		if got := receiptIDs(readReceipts(t, tt.path)); !slices.Equal(got, tt.want) {
			t.Errorf("%s holds %v, want %v", filepath.Base(tt.path), got, tt.want)
		}
	}
}

// A receipt larger than MaxBytes is written whole, after the file with
// receipts in it is rotated; an empty file is not rotated.
func TestReceiptFileLargeReceipt(t *testing.T) {
	path := filepath.Join(t.TempDir(), "receipts.jsonl")
	f := &gate.ReceiptFile{Path: path, MaxBytes: 10, Keep: 1}
	if err := os.WriteFile(path+".1", []byte(`{"receiptId":"old"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := f.Write(receipt(1)); err != nil {
		t.Fatal(err)
	}
	if got := receiptIDs(readReceipts(t, path+".1")); !slices.Equal(got, []string{"old"}) {
		t.Errorf("FILE.1 holds %v: an empty file was rotated over it", got)
	}
	if err := f.Write(receipt(2)); err != nil {
		t.Fatal(err)
	}
	if got, want := receiptIDs(readReceipts(t, path)), receiptIDs([]gate.Receipt{receipt(2)}); !slices.Equal(got, want) {
		t.Errorf("FILE holds %v, want %v", got, want)
	}
	if got, want := receiptIDs(readReceipts(t, path+".1")), receiptIDs([]gate.Receipt{receipt(1)}); !slices.Equal(got, want) {
		t.Errorf("FILE.1 holds %v, want %v", got, want)
	}
}

func TestDefaultReceiptsPath(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		want    string
		wantErr bool
	}{
		{"XDG_STATE_HOME", map[string]string{"XDG_STATE_HOME": "/xdg/state", "HOME": "/home/u"}, "/xdg/state/mcpreg/receipts.jsonl", false},
		{"HOME", map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/mcpreg/receipts.jsonl", false},
		{"XDG_STATE_HOME empty", map[string]string{"XDG_STATE_HOME": "", "HOME": "/home/u"}, "/home/u/.local/state/mcpreg/receipts.jsonl", false},
		{"XDG_STATE_HOME relative", map[string]string{"XDG_STATE_HOME": "state", "HOME": "/home/u"}, "/home/u/.local/state/mcpreg/receipts.jsonl", false},
		{"HOME relative", map[string]string{"HOME": "home"}, "", true},
		{"neither", map[string]string{}, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lookup := func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok }
			got, err := gate.DefaultReceiptsPath(lookup)
			if (err != nil) != tt.wantErr || got != filepath.FromSlash(tt.want) {
				t.Errorf("DefaultReceiptsPath = %q, %v; want %q (error %v)", got, err, tt.want, tt.wantErr)
			}
		})
	}
}
