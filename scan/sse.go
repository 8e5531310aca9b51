package scan

import (
	"bytes"
	"io"
	"strings"
)

// sseTap reads a text/event-stream body on behalf of the SDK and hands the
// data of each event the SDK would decode (unnamed or "message" events with
// data) to the recorder before the SDK sees it. Each event passes on as
// received once it is complete, or with the data the recorder rewrote for
// the SDK (see recorder.receive). An event over MaxResponseBytes, the
// scan's byte budget, or a message breaking the strict rules ends the
// stream with that error.
type sseTap struct {
	r       io.ReadCloser
	budget  *budget
	lines   lines
	receive func([]byte) ([]byte, error)
	event   sseEvent
	queue   tapQueue
}

// sseEvent is the event being read.
type sseEvent struct {
	name    string
	data    []byte
	hasData bool
	size    int64  // bytes of its lines so far
	raw     []byte // its lines as received
}

func newSSETap(r io.ReadCloser, lim Limits, b *budget, receive func([]byte) ([]byte, error), trip *tripwire) *sseTap {
	tooLong := func() error {
		return trip.trip(limitError("MaxResponseBytes", lim.MaxResponseBytes, "an event from the server is larger"))
	}
	return &sseTap{r: r, budget: b, receive: receive, lines: lines{max: lim.MaxResponseBytes, tooLong: tooLong}}
}

func (t *sseTap) Read(p []byte) (int, error) { return t.queue.read(p, t.r, t.take, t.finish) }

func (t *sseTap) take(chunk []byte) error {
	if err := t.budget.spend(len(chunk)); err != nil {
		return err
	}
	return t.lines.feed(chunk, t.line)
}

// finish ends the stream: a last event without its blank line still counts,
// as it does for the SDK.
func (t *sseTap) finish() error {
	if err := t.lines.flush(func(l []byte) error {
		if err := t.line(l); err != nil {
			return err
		}
		t.event.raw = t.event.raw[:len(t.event.raw)-1] // it had no newline
		return nil
	}); err != nil {
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
	t.event.raw = append(append(t.event.raw, l...), '\n')
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
	t.event = sseEvent{data: e.data[:0], raw: e.raw[:0]}
	if len(bytes.TrimSpace(e.data)) == 0 || (e.name != "" && e.name != "message") {
		t.queue.out.Write(e.raw)
		return nil
	}
	forSDK, err := t.receive(e.data)
	if err != nil {
		return err
	}
	if forSDK == nil {
		t.queue.out.Write(e.raw)
		return nil
	}
	t.queue.out.WriteString("event: message\n")
	for _, l := range bytes.Split(forSDK, []byte{'\n'}) {
		t.queue.out.WriteString("data: ")
		t.queue.out.Write(l)
		t.queue.out.WriteByte('\n')
	}
	t.queue.out.WriteByte('\n')
	return nil
}

func (t *sseTap) Close() error { return t.r.Close() }
