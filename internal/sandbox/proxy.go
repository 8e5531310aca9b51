package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Proxy is an HTTP proxy through which a job reaches exactly one
// host:port (the npm registry the admin configured), or the destinations
// Permits allows (a server's egress allow-list): CONNECT to it, or, for
// http://, absolute-form requests to it. Everything else is answered 403
// Forbidden. Connections are bounded in number, in header size and by an
// idle timeout.
type Proxy struct {
	// Allow is the only destination, "host:port".
	Allow string
	// Permits, used when Allow is empty, says whether a "host:port" the
	// run asks for may be reached.
	Permits func(hostport string) bool
	// Dial connects to the destination; nil means a plain net.Dialer.
	// mcpregd passes the scanner's dial guard, so a name resolving to a
	// restricted address is refused unless allow-listed.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// IdleTimeout ends a connection that carried nothing this long;
	// default 2 minutes.
	IdleTimeout time.Duration
	// MaxConns bounds concurrent connections; default 32.
	MaxConns int
	// Log gets one line per refused request; nil means slog.Default().
	Log *slog.Logger

	once sync.Once
	sem  chan struct{}
}

// maxHeaderBytes caps a request's header block.
const maxHeaderBytes = 32 << 10

// Serve answers connections on l until it is closed.
func (p *Proxy) Serve(l net.Listener) error {
	sem := p.slots()
	for {
		conn, err := l.Accept()
		if err != nil {
			return err
		}
		select {
		case sem <- struct{}{}:
			go func() {
				defer func() { <-sem }()
				p.handle(conn)
			}()
		default:
			_, _ = io.WriteString(conn, "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
			conn.Close()
		}
	}
}

// slots is the semaphore of open connections, made once.
func (p *Proxy) slots() chan struct{} {
	p.once.Do(func() { p.sem = make(chan struct{}, orDefault(p.MaxConns, 32)) })
	return p.sem
}

func (p *Proxy) idle() time.Duration { return orDefault(p.IdleTimeout, 2*time.Minute) }

func (p *Proxy) handle(conn net.Conn) {
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	lr := &io.LimitedReader{R: conn, N: maxHeaderBytes}
	br := bufio.NewReader(lr)
	req, err := http.ReadRequest(br)
	if err != nil {
		p.refuse(conn, http.StatusBadRequest, fmt.Sprintf("unreadable request (header limit %d bytes): %v", maxHeaderBytes, err))
		return
	}
	lr.N = math.MaxInt64
	target, ok := p.destination(req)
	if !ok {
		reaches := p.Allow
		if reaches == "" {
			reaches = "the destinations of the egress allow-list"
		}
		p.refuse(conn, http.StatusForbidden, fmt.Sprintf("%s %s: this proxy only reaches %s", req.Method, req.RequestURI, reaches))
		return
	}
	_ = conn.SetDeadline(time.Time{})
	if req.Method == http.MethodConnect {
		p.tunnel(conn, br, target)
		return
	}
	p.forward(conn, req, target)
}

// destination is the host:port req asks for, and whether it is allowed.
func (p *Proxy) destination(req *http.Request) (string, bool) {
	target := req.Host
	if req.Method != http.MethodConnect {
		if !req.URL.IsAbs() || req.URL.Scheme != "http" {
			return "", false
		}
		target = req.URL.Host
		if req.URL.Port() == "" {
			target = net.JoinHostPort(req.URL.Hostname(), "80")
		}
	}
	if p.Allow == "" {
		_, _, err := net.SplitHostPort(target)
		return target, err == nil && p.Permits != nil && p.Permits(target)
	}
	return target, sameHostPort(target, p.Allow)
}

func sameHostPort(a, b string) bool {
	ha, pa, err1 := net.SplitHostPort(a)
	hb, pb, err2 := net.SplitHostPort(b)
	return err1 == nil && err2 == nil && pa == pb && ha != "" && strings.EqualFold(strings.TrimSuffix(ha, "."), strings.TrimSuffix(hb, "."))
}

// dial connects to target, which destination allowed (Allow itself when
// set).
func (p *Proxy) dial(ctx context.Context, target string) (net.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if p.Allow != "" {
		target = p.Allow
	}
	if p.Dial != nil {
		return p.Dial(ctx, "tcp", target)
	}
	var d net.Dialer
	return d.DialContext(ctx, "tcp", target)
}

// tunnel connects the client to the allowed destination and copies both
// ways until either side ends or the connection idles.
func (p *Proxy) tunnel(conn net.Conn, br *bufio.Reader, target string) {
	up, err := p.dial(context.Background(), target)
	if err != nil {
		p.refuse(conn, http.StatusBadGateway, fmt.Sprintf("dialing %s: %v", target, err))
		return
	}
	defer up.Close()
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection Established\r\n\r\n"); err != nil {
		return
	}
	done := make(chan struct{}, 2)
	go func() { p.copyIdle(up, br, conn); done <- struct{}{} }()
	go func() { p.copyIdle(conn, up, up); done <- struct{}{} }()
	<-done
}

// copyIdle copies src to dst, ending when a read waits longer than the idle
// timeout; then it closes dst for writing so the other direction ends too.
func (p *Proxy) copyIdle(dst net.Conn, src io.Reader, srcConn net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		_ = srcConn.SetReadDeadline(time.Now().Add(p.idle()))
		n, err := src.Read(buf)
		if n > 0 {
			_ = dst.SetWriteDeadline(time.Now().Add(p.idle()))
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		_ = cw.CloseWrite()
	} else {
		dst.Close()
	}
	srcConn.Close()
}

// forward sends one plain-HTTP request to the allowed origin and copies
// the answer back, then closes the connection.
func (p *Proxy) forward(conn net.Conn, req *http.Request, target string) {
	req.RequestURI = ""
	for _, h := range []string{"Proxy-Connection", "Proxy-Authorization", "Connection", "Keep-Alive", "Upgrade"} {
		req.Header.Del(h)
	}
	tr := &http.Transport{Proxy: nil, DisableKeepAlives: true, ResponseHeaderTimeout: p.idle(),
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return p.dial(ctx, target) }}
	defer tr.CloseIdleConnections()
	_ = conn.SetDeadline(time.Now().Add(10 * p.idle()))
	resp, err := tr.RoundTrip(req)
	if err != nil {
		p.refuse(conn, http.StatusBadGateway, fmt.Sprintf("%s %s: %v", req.Method, req.URL, err))
		return
	}
	defer resp.Body.Close()
	resp.Close = true
	_ = resp.Write(conn)
}

func (p *Proxy) refuse(conn net.Conn, code int, why string) {
	log := p.Log
	if log == nil {
		log = slog.Default()
	}
	log.Warn("sandbox proxy refused a request", "status", code, "reason", why)
	body := "mcpreg sandbox proxy: " + why + "\n"
	_, err := fmt.Fprintf(conn, "HTTP/1.1 %d %s\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		code, http.StatusText(code), len(body), body)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		log.Debug("sandbox proxy: writing refusal", "err", err)
	}
}
