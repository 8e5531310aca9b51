package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"unicode/utf8"
)

// maxInputBytes caps a file read by the CLI; the service enforces its own,
// usually smaller, limits.
const maxInputBytes int64 = 64 << 20

var errStdinTwice = errors.New("only one input may be read from standard input (-)")

// readInput reads path, or g's standard input when path is "-". flag names
// the option in errors.
func (g *globals) readInput(flag, path string) ([]byte, error) {
	r := g.io.In
	name := "standard input"
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flag, err)
		}
		defer func() { _ = f.Close() }()
		r, name = f, path
	}
	limit := g.inputLimit
	if limit <= 0 {
		limit = maxInputBytes
	}
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: reading %s: %w", flag, name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: %s is larger than %d bytes", flag, name, limit)
	}
	return data, nil
}

// readText reads a document that travels to the service as a JSON string,
// which must be valid UTF-8.
func (g *globals) readText(flag, path string) (string, error) {
	data, err := g.readInput(flag, path)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("%s %s: not valid UTF-8 (at byte %d)", flag, path, invalidUTF8At(data))
	}
	return string(data), nil
}

func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		r, n := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// checkStdin fails when more than one of paths is "-".
func checkStdin(paths ...string) error {
	n := 0
	for _, p := range paths {
		if p == "-" {
			n++
		}
	}
	if n > 1 {
		return errStdinTwice
	}
	return nil
}
