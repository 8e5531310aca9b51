package scan

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

// collect feeds stream through a tap built by newTap in chunks of size and
// returns what the recorder was given and what the reader saw.
func collect(t testing.TB, stream string, size int, lim Limits,
	newTap func(io.ReadCloser, Limits, *budget, func([]byte) ([]byte, error), *tripwire) io.ReadCloser,
) (msgs []string, passed []byte, err error) {
	t.Helper()
	lim = lim.withDefaults()
	trip := &tripwire{}
	receive := func(m []byte) ([]byte, error) { msgs = append(msgs, string(m)); return nil, nil }
	body := io.NopCloser(&chunked{data: []byte(stream), size: size})
	tap := newTap(body, lim, &budget{max: lim.MaxTotalBytes, trip: trip}, receive, trip)
	passed, err = io.ReadAll(tap)
	return msgs, passed, err
}

func sse(r io.ReadCloser, l Limits, b *budget, f func([]byte) ([]byte, error), t *tripwire) io.ReadCloser {
	return newSSETap(r, l, b, f, t)
}

func stdio(r io.ReadCloser, l Limits, b *budget, f func([]byte) ([]byte, error), t *tripwire) io.ReadCloser {
	return newLineTap(r, l, b, f, t)
}

// chunked returns data size bytes at a time, splitting lines anywhere.
type chunked struct {
	data []byte
	size int
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p[:min(len(p), c.size)], c.data)
	c.data = c.data[n:]
	return n, nil
}

func TestSSETap(t *testing.T) {
	tests := []struct {
		name, stream string
		want         []string
	}{
		{"one event", "data: {\"a\":1}\n\n", []string{`{"a":1}`}},
		{"data lines joined", "data: {\"a\":\ndata:1}\n\n", []string{"{\"a\":\n1}"}},
		{"CRLF", "data: {}\r\n\r\n", []string{"{}"}},
		{"comments and ids", ": hi\nid: 7\nretry: 10\ndata: {}\n\n", []string{"{}"}},
		{"message events only", "event: ping\ndata: {\"x\":1}\n\nevent: message\ndata: {\"y\":2}\n\n", []string{`{"y":2}`}},
		{"empty data skipped", "id: 1\ndata:\n\ndata: {}\n\n", []string{"{}"}},
		{"last event without blank line", "data: {}\n\ndata: [1]", []string{"{}", "[1]"}},
		{"one space stripped", "data:  {}\n\n", []string{" {}"}},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 3, 1 << 10} {
			msgs, passed, err := collect(t, tt.stream, size, Limits{}, sse)
			if err != nil || !slices.Equal(msgs, tt.want) || string(passed) != tt.stream {
				t.Errorf("%s (chunks of %d): messages %q err %v passed %q; want %q", tt.name, size, msgs, err, passed, tt.want)
			}
		}
	}
}

func TestLineTap(t *testing.T) {
	stream := "{\"a\":1}\n\n  \r\n{\"b\":2}\r\n{\"c\":3}"
	want := []string{`{"a":1}`, "{\"b\":2}\r", `{"c":3}`}
	for _, size := range []int{1, 5, 1 << 10} {
		msgs, passed, err := collect(t, stream, size, Limits{}, stdio)
		if err != nil || !slices.Equal(msgs, want) || string(passed) != stream {
			t.Errorf("chunks of %d: messages %q err %v passed %q", size, msgs, err, passed)
		}
	}
}

func TestTapLimits(t *testing.T) {
	long := "data: " + strings.Repeat("x", 100) + "\n\n"
	_, _, err := collect(t, long, 7, Limits{MaxResponseBytes: 64}, sse)
	wantErr(t, err, ErrLimit, "MaxResponseBytes 64")
	many := strings.Repeat("data: {}\n", 20) + "\n"
	_, _, err = collect(t, many, 7, Limits{MaxResponseBytes: 64}, sse)
	wantErr(t, err, ErrLimit, "MaxResponseBytes 64")
	_, _, err = collect(t, strings.Repeat("{}\n", 100), 7, Limits{MaxTotalBytes: 50}, stdio)
	wantErr(t, err, ErrLimit, "MaxTotalBytes 50")
	_, _, err = collect(t, strings.Repeat("x", 100)+"\n", 7, Limits{MaxResponseBytes: 64}, stdio)
	wantErr(t, err, ErrLimit, "MaxResponseBytes 64")
}

func TestRecorderMatchesCalls(t *testing.T) {
	r := newRecorder(Limits{}.withDefaults(), &tripwire{})
	r.sent([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	r.sent([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	r.sent([]byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`))
	for _, m := range []string{
		`{"jsonrpc":"2.0","id":9,"result":{"stray":true}}`,
		`{"jsonrpc":"2.0","method":"notifications/message","params":{}}`,
		`[{"jsonrpc":"2.0","id":3,"result":{}},{"jsonrpc":"2.0","id":2.0,"result":{"tools":[]}}]`,
		`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"x"}}`,
		`{"jsonrpc":"2.0","id":2,"result":{"again":true}}`,
	} {
		if _, err := r.receive([]byte(m)); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := r.next(methodListTools); got == nil || string(got.Result) != `{"tools":[]}` {
		t.Fatalf("tools/list answer %+v", got)
	}
	if got, _ := r.next(methodInitialize); got == nil || string(got.Result) != `{"protocolVersion":"x"}` {
		t.Fatalf("initialize answer %+v", got)
	}
	if _, ok := r.next(methodListTools); ok {
		t.Fatal("an answer to a call already answered was kept")
	}
	_, err := r.receive([]byte(`{"id":1,"id":2}`))
	wantErr(t, err, ErrInvalid, "duplicate")
	if !errors.Is(r.trip.Err(), ErrInvalid) {
		t.Fatal("invalid message did not trip the scan")
	}
}

// FuzzSSETap: whatever the stream, the tap passes it on unchanged (unless a
// limit stops it) and never panics.
func FuzzSSETap(f *testing.F) {
	for _, s := range []string{"data: {}\n\n", "event: message\r\ndata: [1,\r\ndata: 2]\r\n\r\n", ": c\nid: 1\ndata\n\n", "data: {\"id\":1,\"result\":{}}"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, stream string, size int) {
		fuzzTap(t, stream, size, sse)
	})
}

// FuzzLineTap is FuzzSSETap for stdio framing.
func FuzzLineTap(f *testing.F) {
	for _, s := range []string{"{}\n", "{\"id\":1,\"result\":{\"tools\":[]}}\r\n[]\n", "\n\n{"} {
		f.Add(s, 2)
	}
	f.Fuzz(func(t *testing.T, stream string, size int) {
		fuzzTap(t, stream, size, stdio)
	})
}

func fuzzTap(t *testing.T, stream string, size int,
	newTap func(io.ReadCloser, Limits, *budget, func([]byte) ([]byte, error), *tripwire) io.ReadCloser,
) {
	size = 1 + abs(size)%64
	lim := Limits{MaxResponseBytes: 256, MaxTotalBytes: 1 << 20}
	rec := newRecorder(lim.withDefaults(), &tripwire{})
	rec.sent([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	var got []string
	receive := func(m []byte) ([]byte, error) { got = append(got, string(m)); _, _ = rec.receive(m); return nil, nil }
	lim = lim.withDefaults()
	trip := &tripwire{}
	tap := newTap(io.NopCloser(&chunked{data: []byte(stream), size: size}), lim, &budget{max: lim.MaxTotalBytes, trip: trip}, receive, trip)
	passed, err := io.ReadAll(tap)
	if err != nil {
		if !errors.Is(err, ErrLimit) {
			t.Fatalf("error %v", err)
		}
		return
	}
	if !bytes.Equal(passed, []byte(stream)) {
		t.Fatalf("passed %q; want %q", passed, stream)
	}
	for _, m := range got {
		if len(m) > 256 {
			t.Fatalf("message of %d bytes over the limit", len(m))
		}
	}
	rec.next(methodListTools)
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// FuzzParseMessage: the envelope reader never panics on strict JSON.
func FuzzParseMessage(f *testing.F) {
	for _, s := range []string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `[{"id":"x","error":{}}]`, `{"id":1e300}`, `[]`, `7`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parseMessage([]byte(s))
		rec := newRecorder(Limits{}.withDefaults(), &tripwire{})
		_, _ = rec.receive([]byte(s))
	})
}

func TestLimitsVerify(t *testing.T) {
	if err := (Limits{}).Verify(); err != nil {
		t.Fatal(err)
	}
	for lim, want := range map[Limits]string{
		{MaxPages: -1}:       "MaxPages is negative",
		{Lists: 1}:           "Lists is 1",
		{Deadline: -1}:       "Deadline is negative",
		{MaxStderrBytes: -5}: "MaxStderrBytes is negative",
		{MaxPrompts: -1}:     "MaxPrompts is negative",
		{MaxResources: -1}:   "MaxResources is negative",
	} {
		if _, err := NewReader(lim, AllowList{}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: error %v; want %q", lim, err, want)
		}
	}
	got := Limits{Lists: 3}.withDefaults()
	if got.Lists != 3 || got.Deadline != DefaultDeadline || got.MaxResponseBytes != DefaultMaxResponseBytes || got.MaxTools != DefaultMaxTools ||
		got.MaxPrompts != DefaultMaxPrompts || got.MaxResources != DefaultMaxResources {
		t.Fatalf("defaults %+v", got)
	}
}

// TestListTTLHiddenFromTheSDK: an answer to a list call with "ttlMs"
// reaches the SDK without it (the SDK would serve the next listing from
// its cache), every other byte as received; the raw answer kept is the
// server's; answers to other calls, and other results' ttlMs, pass as
// they are.
func TestListTTLHiddenFromTheSDK(t *testing.T) {
	answer := `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","ttlMs":1}],` + "\n" + `"ttlMs":60000,"cacheScope":"public"}}`
	other := `{"jsonrpc":"2.0","id":3,"result":{"ttlMs":5}}`
	for name, tap := range map[string]func(io.ReadCloser, Limits, *budget, func([]byte) ([]byte, error), *tripwire) io.ReadCloser{"stdio": stdio, "sse": sse} {
		t.Run(name, func(t *testing.T) {
			lim := Limits{}.withDefaults()
			trip := &tripwire{}
			rec := newRecorder(lim, trip)
			rec.sent([]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
			rec.sent([]byte(`{"jsonrpc":"2.0","id":3,"method":"ping"}`))
			stream := ""
			for _, m := range []string{strings.ReplaceAll(answer, "\n", " "), other} {
				if name == "sse" {
					stream += "id: 1\ndata: " + m + "\n\n"
				} else {
					stream += m + "\n"
				}
			}
			passed, err := io.ReadAll(tap(io.NopCloser(&chunked{data: []byte(stream), size: 7}), lim, &budget{max: lim.MaxTotalBytes, trip: trip}, rec.receive, trip))
			if err != nil {
				t.Fatal(err)
			}
			want := `{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"a","ttlMs":1}],"cacheScope":"public"}}`
			if !strings.Contains(string(passed), want) || !strings.Contains(string(passed), other) || strings.Contains(string(passed), "60000") {
				t.Errorf("the SDK read:\n%s\nwant the list answer without ttlMs and the other as it was", passed)
			}
			if got, _ := rec.next(methodListTools); got == nil || !strings.Contains(string(got.Result), `"ttlMs":60000`) {
				t.Errorf("the raw answer kept: %+v, want the server's bytes", got)
			}
		})
	}
}
