package violation

import (
	"errors"
	"slices"
	"testing"
)

func TestNewSortsDeduplicatesAndUnwraps(t *testing.T) {
	kind := errors.New("invalid thing")
	err := New(kind, Violation{"/b", "bad"}, Violation{"", "not an object"}, Violation{"/a", "z"}, Violation{"/a", "y"}, Violation{"/b", "bad"})
	if !errors.Is(err, kind) {
		t.Fatal("does not unwrap to its kind")
	}
	if got := err.Pointers(); !slices.Equal(got, []string{"", "/a", "/a", "/b"}) {
		t.Fatalf("pointers %v", got)
	}
	want := "invalid thing: /: not an object; /a: y; /a: z; /b: bad"
	if err.Error() != want {
		t.Fatalf("Error() = %q, want %q", err.Error(), want)
	}
}
