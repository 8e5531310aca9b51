package web

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"mime"
	"net/http"
	"path"
	"time"
)

//go:embed static
var staticFS embed.FS

// asset is one embedded file with its content hash, which versions its URL
// so that browsers may cache it for long.
type asset struct {
	body []byte
	hash string
	kind string
}

var assets = loadAssets()

func loadAssets() map[string]asset {
	entries, err := staticFS.ReadDir("static")
	if err != nil {
		panic(err) // embedded at build time: cannot fail
	}
	out := map[string]asset{}
	for _, e := range entries {
		body, err := staticFS.ReadFile("static/" + e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(body)
		out[e.Name()] = asset{body: body, hash: hex.EncodeToString(sum[:6]), kind: mime.TypeByExtension(path.Ext(e.Name()))}
	}
	return out
}

// staticURL is the versioned URL of an embedded asset.
func staticURL(name string) string {
	return "/static/" + name + "?v=" + assets[name].hash
}

func serveStatic(w http.ResponseWriter, r *http.Request) {
	a, ok := assets[r.PathValue("file")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", a.kind)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("ETag", `"`+a.hash+`"`)
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(a.body))
}
