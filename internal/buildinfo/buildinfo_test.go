package buildinfo

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	for _, tc := range []struct {
		main     string
		settings map[string]string
		want     string
	}{
		{"v1.2.3", map[string]string{"vcs.revision": "0123456789abcdef0123"}, "v1.2.3"},
		{"(devel)", map[string]string{"vcs.revision": "0123456789abcdef0123", "vcs.modified": "false"}, "0123456789ab"},
		{"(devel)", map[string]string{"vcs.revision": "0123456789abcdef0123", "vcs.modified": "true"}, "0123456789ab+dirty"},
		{"", nil, "devel"},
		{"(devel)", nil, "devel"},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Version: tc.main}}
		for k, v := range tc.settings {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: k, Value: v})
		}
		if got := fromBuildInfo(bi); got != tc.want {
			t.Errorf("main %q settings %v: %q, want %q", tc.main, tc.settings, got, tc.want)
		}
	}
	if Version() == "" {
		t.Error("Version is empty")
	}
}
