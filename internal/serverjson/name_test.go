package serverjson

import (
	"errors"
	"strings"
	"testing"
)

func TestNamespace(t *testing.T) {
	tests := []struct {
		name, want string
		ok         bool
	}{
		{"io.github.acme/weather", "io.github.acme", true},
		{"com.example/server_v2.1-beta", "com.example", true},
		{"a/b", "a", true},
		{"A-1.b/C", "A-1.b", true},
		{"a.b/" + strings.Repeat("x", 196), "a.b", true},
		{"a.b/" + strings.Repeat("x", 197), "", false}, // 201 characters
		{"weather", "", false},
		{"io.github.acme/my weather", "", false},
		{"io.github.acme/", "", false},
		{"/weather", "", false},
		{"a/b/c", "", false},
		{"io_github/acme", "", false}, // underscore only after the slash
		{"a/b\n", "", false},
		{"", "", false},
		{"ｉｏ/ｘ", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ValidName(tt.name); got != tt.ok {
				t.Errorf("ValidName = %v, want %v", got, tt.ok)
			}
			got, err := Namespace(tt.name)
			if got != tt.want || (err == nil) != tt.ok {
				t.Errorf("Namespace = %q, %v; want %q, ok=%v", got, err, tt.want, tt.ok)
			}
			if err != nil && (!errors.Is(err, ErrInvalidName) || !errors.Is(err, ErrInvalid)) {
				t.Errorf("error %v does not match ErrInvalidName and ErrInvalid", err)
			}
		})
	}
}
