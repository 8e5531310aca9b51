package attest

import (
	"encoding/hex"
	"time"

	protorekor "github.com/sigstore/protobuf-specs/gen/pb-go/rekor/v1"
	"github.com/sigstore/sigstore-go/pkg/verify"
)

func observedTimes(ts []verify.TimestampVerificationResult) []ObservedTime {
	out := make([]ObservedTime, 0, len(ts))
	for _, t := range ts {
		src := t.Type
		switch t.Type {
		case "Tlog":
			src = "tlog"
		case "TimestampAuthority":
			src = "tsa"
		}
		out = append(out, ObservedTime{Source: src, URI: t.URI, Time: t.Timestamp.UTC()})
	}
	return out
}

func statementOf(res *verify.VerificationResult) *Statement {
	st := res.Statement
	if st == nil {
		return nil
	}
	out := &Statement{Type: st.GetType(), PredicateType: st.GetPredicateType(), Subjects: []Subject{}}
	for _, s := range st.GetSubject() {
		out.Subjects = append(out.Subjects, Subject{Name: s.GetName(), Digest: s.GetDigest()})
	}
	return out
}

// tlogEntries lists the bundle's entries in logs of the trusted root: the
// ones sigstore-go could verify (it skips entries of unknown logs).
func (c *check) tlogEntries() []TlogEntry {
	logs := c.domain.material.RekorLogs()
	var out []TlogEntry
	for _, e := range c.logEntries() {
		id := hex.EncodeToString(e.GetLogId().GetKeyId())
		if _, ok := logs[id]; ok {
			out = append(out, tlogEntry(e, id))
		}
	}
	return out
}

func tlogEntry(e *protorekor.TransparencyLogEntry, logID string) TlogEntry {
	kv := e.GetKindVersion()
	t := TlogEntry{LogIndex: e.GetLogIndex(), LogID: logID, Kind: kv.GetKind() + "/" + kv.GetVersion()}
	if it := e.GetIntegratedTime(); it > 0 {
		at := time.Unix(it, 0).UTC()
		t.IntegratedTime = &at
	}
	return t
}
