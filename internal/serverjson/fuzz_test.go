package serverjson

import (
	"bytes"
	"errors"
	"path/filepath"
	"testing"
)

// FuzzParse checks that Parse never panics, that every rejection is a
// *ValidationError matching ErrInvalid with located violations, and that
// every accepted document keeps its promises; CheckSubmission on it must
// not panic either, and reject the same way.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/*/*.json")
	for _, file := range files {
		f.Add(readFile(f, file))
	}
	f.Add([]byte(`{"$schema":"` + SchemaURL + `","name":"a/b","description":"d","version":"1","remotes":[{"type":"sse","url":"https://x"}]}`))
	f.Add([]byte(submissionBase))
	f.Fuzz(func(t *testing.T, raw []byte) {
		in := bytes.Clone(raw)
		doc, err := Parse(raw)
		if !bytes.Equal(in, raw) {
			t.Fatal("Parse modified its input")
		}
		if err != nil {
			checkRejection(t, doc, err)
			return
		}
		checkDocument(t, doc, raw)
		if err := CheckSubmission(doc); err != nil {
			checkRejection(t, nil, err)
		}
	})
}

func checkRejection(t *testing.T, doc *Document, err error) {
	var verr *ValidationError
	if doc != nil || !errors.Is(err, ErrInvalid) || !errors.As(err, &verr) || len(verr.Violations) == 0 {
		t.Fatalf("bad rejection: doc=%v err=%v", doc, err)
	}
	for _, v := range verr.Violations {
		if v.Message == "" || (v.Pointer != "" && v.Pointer[0] != '/') {
			t.Fatalf("bad violation %+v", v)
		}
	}
}

func checkDocument(t *testing.T, doc *Document, raw []byte) {
	if !ValidName(doc.Server.Name) || doc.Namespace == "" || doc.Server.Schema != SchemaURL {
		t.Fatalf("accepted a bad document: %+v", doc.Server)
	}
	if len(doc.Server.Packages)+len(doc.Server.Remotes) == 0 {
		t.Fatal("accepted a document with neither packages nor remotes")
	}
	if !bytes.Equal(doc.Raw, raw) {
		t.Fatal("Raw differs from the input")
	}
}
