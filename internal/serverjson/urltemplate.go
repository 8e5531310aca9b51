package serverjson

import (
	"net/url"
	"strings"
)

// templateVariable is one {name} in a transport url, at raw[start:end].
type templateVariable struct {
	start, end int
	name       string
}

// templateVariables finds the {name} spans of raw, left to right: a "{",
// then one or more characters other than "}", then "}". The name may
// itself contain "{" ("{{a}" names "{a"), as in the official registry.
func templateVariables(raw string) []templateVariable {
	var out []templateVariable
	for i := 0; i < len(raw); {
		open := strings.IndexByte(raw[i:], '{')
		if open < 0 {
			break
		}
		open += i
		n := strings.IndexByte(raw[open+1:], '}')
		if n < 0 {
			break
		}
		if n == 0 { // "{}" names nothing; look again after the "{"
			i = open + 1
			continue
		}
		end := open + 1 + n + 1
		out = append(out, templateVariable{start: open, end: end, name: raw[open+1 : end-1]})
		i = end
	}
	return out
}

// wellKnownVariables are filled in with values of their kind, as the
// official registry does before it parses a templated url.
var wellKnownVariables = map[string]string{
	"host":     "example.com",
	"port":     "8080",
	"path":     "api",
	"protocol": "http",
	"scheme":   "http",
}

// fillTemplate replaces every {variable} of raw with a stand-in value so
// the result can be parsed as a URL: a well-known variable gets a value of
// its kind, a variable right after ":" and before "/" or the end (a port)
// gets a number, any other the word "placeholder".
func fillTemplate(raw string) string {
	vars := templateVariables(raw)
	if len(vars) == 0 {
		return raw
	}
	var b strings.Builder
	last := 0
	for _, v := range vars {
		b.WriteString(raw[last:v.start])
		value, known := wellKnownVariables[v.name]
		switch {
		case known:
		case v.start > 0 && raw[v.start-1] == ':' && (v.end == len(raw) || raw[v.end] == '/'):
			value = "8080"
		default:
			value = "placeholder"
		}
		b.WriteString(value)
		last = v.end
	}
	b.WriteString(raw[last:])
	return b.String()
}

// httpURLWithHost reports whether s parses as an http or https URL naming
// a host.
func httpURLWithHost(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}
