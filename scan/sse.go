package scan

import (
	"bytes"
	"io"
	"strings"
)

// sseTap reads a text/event-stream body on behalf of the SDK and hands the
// data of each event the SDK would decode (unnamed or "message" events with
// data) to the recorder before the SDK sees it. The body passes through
// unchanged. An event over MaxResponseBytes, the scan's byte budget, or a
// message breaking the strict rules ends the stream with that error.
type sseTap struct {
	r       io.ReadCloser
	budget  *budget
	lines   lines
	receive func([]byte) error
	event   sseEvent
	err     error
}

// sseEvent is the event being read.
type sseEvent struct {
	name    string
	data    []byte
	hasData bool
	size    int64 // bytes of its lines so far
}

func newSSETap(r io.ReadCloser, lim Limits, b *budget, receive func([]byte) error, trip *tripwire) *sseTap {
	tooLong := func() error {
		return trip.trip(limitError("MaxResponseBytes", lim.MaxResponseBytes, "an event from the server is larger"))
	}
	return &sseTap{r: r, budget: b, receive: receive, lines: lines{max: lim.MaxResponseBytes, tooLong: tooLong}}
}

func (t *sseTap) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.r.Read(p)
	if n > 0 {
		t.err = t.take(p[:n])
	}
	if err == io.EOF && t.err == nil {
		t.err = t.finish()
	}
	if t.err != nil {
		return 0, t.err
	}
	return n, err
}

func (t *sseTap) take(chunk []byte) error {
	if err := t.budget.spend(len(chunk)); err != nil {
		return err
	}
	return t.lines.feed(chunk, t.line)
}

// finish ends the stream: a last event without its blank line still counts,
// as it does for the SDK.
func (t *sseTap) finish() error {
	if err := t.lines.flush(t.line); err != nil {
		return err
	}
	return t.dispatch()
}

// line interprets one line of the stream.
func (t *sseTap) line(l []byte) error {
	t.event.size += int64(len(l)) + 1
	if t.event.size > t.lines.max {
		return t.lines.tooLong()
	}
	l = bytes.TrimSuffix(l, []byte{'\r'})
	if len(l) == 0 {
		return t.dispatch()
	}
	field, value, found := bytes.Cut(l, []byte{':'})
	if !found || len(field) == 0 {
		return nil // a comment, or a line the SDK rejects itself
	}
	t.event.field(string(field), value)
	return nil
}

func (e *sseEvent) field(name string, value []byte) {
	switch name {
	case "event":
		e.name = strings.TrimSpace(string(value))
	case "data":
		if e.hasData {
			e.data = append(e.data, '\n')
		}
		e.data = append(e.data, bytes.TrimPrefix(value, []byte{' '})...)
		e.hasData = true
	}
}

// dispatch passes on the finished event and starts the next.
func (t *sseTap) dispatch() error {
	e := t.event
	t.event = sseEvent{data: e.data[:0]}
	if len(bytes.TrimSpace(e.data)) == 0 || (e.name != "" && e.name != "message") {
		return nil
	}
	return t.receive(e.data)
}

func (t *sseTap) Close() error { return t.r.Close() }
