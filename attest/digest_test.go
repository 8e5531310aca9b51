package attest_test

import (
	"testing"

	"github.com/mcpreg/mcpreg/attest"
)

func TestParseDigest(t *testing.T) {
	const empty256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	tests := []struct {
		in, want, problem string
	}{
		{"sha256:" + empty256, "sha256:" + empty256, ""},
		{"SHA256:E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855", "sha256:" + empty256, ""},
		{"sha384:38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
			"sha384:38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b", ""},
		{sigstore130, "sha512:76176ffa33808b54602c7c35de5c6e9a4deb96066dba6533f50ac234f4f1f4c6b3527515dc17c06fbe2860030f410eee69ea20079bd3a2c6f3dcf3b329b10751", ""},
		{"sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=", "sha256:" + empty256, ""},
		{"md5:d41d8cd98f00b204e9800998ecf8427e", "", `"md5" is not supported`},
		{"sha1-2jmj7l5rSw0yVb/vlWAYkK/YBwk=", "", `"sha1" is not supported`},
		{"sha256:abcd", "", "2 bytes, want 32"},
		{"sha256:" + empty256[:63] + "x", "", "invalid hex"},
		{"sha512-not*base64", "", "invalid base64"},
		{empty256, "", "want ALG:HEX"},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			d, err := attest.ParseDigest(tt.in)
			if tt.problem != "" {
				wantErr(t, err, attest.ErrInvalidArtifact, tt.problem)
				if d != (attest.Digest{}) {
					t.Errorf("digest %+v alongside an error", d)
				}
				return
			}
			if err != nil || d.String() != tt.want {
				t.Fatalf("ParseDigest = %v, %v; want %s", d, err, tt.want)
			}
			if again, err := attest.ParseDigest(d.String()); err != nil || again != d {
				t.Errorf("String() does not parse back: %v %v", again, err)
			}
		})
	}
}

func TestArtifactDigest(t *testing.T) {
	d := attest.ArtifactBytes([]byte("")).Digest()
	if d.String() != "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" || d.Algorithm != attest.SHA256 {
		t.Errorf("digest of no bytes = %v", d)
	}
}
