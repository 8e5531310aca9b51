package client

import (
	"errors"
	"testing"
)

func TestVersionPath(t *testing.T) {
	tests := []struct {
		name, version, want string
	}{
		{"io.github.acme/weather", "1.0.0", "/v1/servers/io.github.acme/weather/versions/1.0.0"},
		{"com.example-corp/my_server.v2", "1.0.0-rc.1+build", "/v1/servers/com.example-corp/my_server.v2/versions/1.0.0-rc.1+build"},
		{"io.github.a_b/x", "2.0.0+build.7.sha-abc", "/v1/servers/io.github.a_b/x/versions/2.0.0+build.7.sha-abc"},
		{"io.github.acme/weather", "1.0 beta?", "/v1/servers/io.github.acme/weather/versions/1.0%20beta%3F"},
		{"io.github.acme/weather", "50%#", "/v1/servers/io.github.acme/weather/versions/50%25%23"},
		{"io.github.acme/rain snow", "1", "/v1/servers/io.github.acme/rain%20snow/versions/1"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"@"+tt.version, func(t *testing.T) {
			got, err := versionPath(tt.name, tt.version)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("versionPath = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestVersionPathRejects(t *testing.T) {
	tests := []struct{ name, version string }{
		{"weather", "1.0.0"},
		{"io.github.acme/weather/extra", "1.0.0"},
		{"/weather", "1.0.0"},
		{"io.github.acme/", "1.0.0"},
		{"../weather", "1.0.0"},
		{"io.github.acme/.", "1.0.0"},
		{"io.github.acme/weather", ""},
		{"io.github.acme/weather", ".."},
		{"io.github.acme/weather", "1.0/2"},
	}
	for _, tt := range tests {
		t.Run(tt.name+"@"+tt.version, func(t *testing.T) {
			if p, err := versionPath(tt.name, tt.version); !errors.Is(err, ErrInvalid) {
				t.Fatalf("versionPath = %q, %v; want ErrInvalid", p, err)
			}
		})
	}
}
