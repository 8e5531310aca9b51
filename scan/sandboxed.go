package scan

import (
	"context"
	"fmt"
)

// openSandboxed starts the server in t.Confinement.
func (t StdioTarget) openSandboxed(ctx context.Context, s *session) (*link, error) {
	env, err := t.environ(t.Confinement.Home)
	if err != nil {
		return nil, err
	}
	path, err := LookPath(t.Command, env)
	if err != nil {
		return nil, err
	}
	sp, err := t.Confinement.Command(append([]string{path}, t.Args...), env, t.ReadOnly)
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	p := &process{sandboxed: sp, stderr: &stderrBuffer{max: s.lim.MaxStderrBytes}}
	if err := p.startSandboxed(ctx, s, t.Command); err != nil {
		return nil, err
	}
	return &link{transport: p.transport, close: p.stop, stderr: p.stderr.result, exit: p.exitErr}, nil
}

func (p *process) startSandboxed(ctx context.Context, s *session, name string) error {
	sp := p.sandboxed
	var err error
	if p.stdin, err = sp.StdinPipe(); err != nil {
		return err
	}
	if p.stdout, err = sp.StdoutPipe(); err != nil {
		_ = p.stdin.Close()
		return err
	}
	sp.SetStderr(p.stderr)
	if err := sp.Start(ctx); err != nil {
		_ = p.stdin.Close()
		p.stdout.Close()
		return fmt.Errorf("scan: starting %s in the sandbox: %w", name, err)
	}
	p.transport = transportFor(p, s)
	return nil
}

// exitErr is, once the server was stopped, the error of a sandboxed run
// that hit a sandbox limit (processes, memory), else nil.
func (p *process) exitErr() error {
	if p.sandboxed == nil {
		return nil
	}
	return p.sandboxed.LimitHit()
}

// withSandboxLimit explains a failed scan by the sandbox limit its server
// hit, when it hit one.
func withSandboxLimit(err error, l *link) error {
	if err == nil || l.exit == nil {
		return err
	}
	if lerr := l.exit(); lerr != nil {
		return fmt.Errorf("%w: %w (the scan then failed: %v)", ErrLimit, lerr, err) //nolint:errorlint // the limit is the cause; wrapping err too would let its kind (a timeout, say) win over ErrLimit
	}
	return err
}
