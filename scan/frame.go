package scan

import (
	"bytes"
	"io"
	"sync/atomic"
)

// budget counts the bytes a server sends during a scan against
// MaxTotalBytes.
type budget struct {
	max  int64
	trip *tripwire
	used atomic.Int64
}

// spend counts n bytes, failing once the total is over the limit.
func (b *budget) spend(n int) error {
	if b.used.Add(int64(n)) > b.max {
		return b.trip.trip(limitError("MaxTotalBytes", b.max, "the server sent more bytes than a scan accepts"))
	}
	return nil
}

// lines splits a byte stream into lines ending in '\n', keeping at most max
// bytes of a pending line (0: no limit).
type lines struct {
	max     int64
	tooLong func() error // the error for a line over max
	pending []byte
}

// feed appends chunk and calls line for each completed line, without its
// '\n'. The slice passed to line is reused afterwards.
func (l *lines) feed(chunk []byte, line func([]byte) error) error {
	for len(chunk) > 0 {
		i := bytes.IndexByte(chunk, '\n')
		if i < 0 {
			l.pending = append(l.pending, chunk...)
			return l.check()
		}
		l.pending = append(l.pending, chunk[:i]...)
		chunk = chunk[i+1:]
		if err := l.check(); err != nil {
			return err
		}
		if err := line(l.pending); err != nil {
			return err
		}
		l.pending = l.pending[:0]
	}
	return nil
}

func (l *lines) check() error {
	if l.max > 0 && int64(len(l.pending)) > l.max {
		return l.tooLong()
	}
	return nil
}

// flush calls line with an unterminated last line, if any.
func (l *lines) flush(line func([]byte) error) error {
	if len(l.pending) == 0 {
		return nil
	}
	defer func() { l.pending = l.pending[:0] }()
	return line(l.pending)
}

// tapQueue is what a tap has passed and the SDK not read yet, and the
// error that ends the stream.
type tapQueue struct {
	buf []byte
	out bytes.Buffer
	err error
}

// read gives the SDK what is queued, first reading r chunk by chunk
// through take (and finish at its end) until something is.
func (q *tapQueue) read(p []byte, r io.Reader, take func([]byte) error, finish func() error) (int, error) {
	for q.out.Len() == 0 {
		if q.err != nil {
			return 0, q.err
		}
		if q.buf == nil {
			q.buf = make([]byte, 32<<10)
		}
		n, err := r.Read(q.buf)
		if n > 0 {
			q.err = take(q.buf[:n])
		}
		switch {
		case q.err != nil:
		case err == io.EOF:
			if q.err = finish(); q.err == nil {
				q.err = io.EOF
			}
		case err != nil:
			q.err = err
		}
	}
	return q.out.Read(p)
}

// lineTap reads a stdio server's standard output on behalf of the SDK and
// hands each newline-delimited message, byte for byte, to the recorder
// before the SDK sees it; the SDK reads the message as received, or as the
// recorder rewrote it for the SDK (see recorder.receive). MCP's stdio
// transport forbids newlines inside a message, so a line is a message. A
// limit or a message breaking the strict rules ends the stream with that
// error.
type lineTap struct {
	r       io.ReadCloser
	budget  *budget
	lines   lines
	receive func([]byte) ([]byte, error)
	queue   tapQueue
}

func newLineTap(r io.ReadCloser, lim Limits, b *budget, receive func([]byte) ([]byte, error), trip *tripwire) *lineTap {
	tooLong := func() error {
		return trip.trip(limitError("MaxResponseBytes", lim.MaxResponseBytes, "a message from the server is larger"))
	}
	return &lineTap{r: r, budget: b, lines: lines{max: lim.MaxResponseBytes, tooLong: tooLong}, receive: receive}
}

func (t *lineTap) Read(p []byte) (int, error) {
	return t.queue.read(p, t.r, t.take, func() error { return t.lines.flush(t.last) })
}

func (t *lineTap) take(chunk []byte) error {
	if err := t.budget.spend(len(chunk)); err != nil {
		return err
	}
	return t.lines.feed(chunk, t.message)
}

// message passes on one line, ignoring blank ones as the SDK does.
func (t *lineTap) message(line []byte) error {
	if err := t.pass(line); err != nil {
		return err
	}
	t.queue.out.WriteByte('\n')
	return nil
}

// last passes on a last line without its newline, as received.
func (t *lineTap) last(line []byte) error { return t.pass(line) }

// pass records a line and queues it (or its rewrite) for the SDK.
func (t *lineTap) pass(line []byte) error {
	forSDK := line
	if len(bytes.TrimSpace(line)) > 0 {
		rewritten, err := t.receive(line)
		if err != nil {
			return err
		}
		if rewritten != nil {
			forSDK = rewritten
		}
	}
	t.queue.out.Write(forSDK)
	return nil
}

func (t *lineTap) Close() error { return t.r.Close() }

// writeTap shows the recorder each message the SDK writes to a stdio
// server, so responses can be matched to their calls.
type writeTap struct {
	w     io.WriteCloser
	lines lines
	sent  func([]byte)
}

func (t *writeTap) Write(p []byte) (int, error) {
	_ = t.lines.feed(p, func(line []byte) error { t.sent(line); return nil })
	return t.w.Write(p)
}

func (t *writeTap) Close() error { return t.w.Close() }
