package cli

import (
	"errors"
	"strings"
	"testing"
)

func TestSubmitLiveValidation(t *testing.T) {
	env := map[string]string{EnvServer: unreachable, EnvToken: "mcpreg_x"}
	sj := "testdata/server.json"
	tests := []struct {
		name    string
		args    []string
		wantErr error
	}{
		{"live with tools", []string{"--server-json", sj, "--live", "--tools", toolsFixture}, errLiveWithFile},
		{"live with initialize", []string{"--server-json", sj, "--live", "--initialize", sj}, errLiveWithFile},
		{"neither tools nor live", []string{"--server-json", sj}, errToolsMissing},
		{"live=false without tools", []string{"--server-json", sj, "--live=false"}, errToolsMissing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := execute(t, env, "", append([]string{"submit"}, tt.args...)...)
			if !errors.Is(r.err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", r.err, tt.wantErr)
			}
		})
	}
}

func TestSubmitLiveRequest(t *testing.T) {
	g := &globals{io: Streams{In: strings.NewReader("")}}
	req, err := g.submitRequest(submitFiles{serverJSON: "testdata/server.json", live: true})
	if err != nil {
		t.Fatal(err)
	}
	if !req.GetLive() || req.GetTools() != "" || req.GetInitializeResult() != "" || req.GetServerJson() == "" {
		t.Fatalf("request %v", req)
	}
}
