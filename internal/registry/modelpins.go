package registry

import (
	"bytes"
	"fmt"

	"github.com/mcpreg/mcpreg/internal/ent"
	"github.com/mcpreg/mcpreg/pin"
	livescan "github.com/mcpreg/mcpreg/scan"
)

// pinSet is what one pin revision stores: the hashes and the
// specification they follow. Under mcpreg-pin-v1 the prompts and
// resources hashes are empty: such a version's prompts and resources are
// read and scanned but not pinned until it is re-pinned (Repin).
type pinSet struct {
	spec string
	pin.PinsV2
	// scopes are each tool's scopes when the server was read with scan
	// credentials (see readServer); nil otherwise. auth is the OAuth
	// record the snapshot was read with (see authOf), nil when unknown.
	scopes map[string][]string
	auth   []byte
}

// computePins returns the pins of tl under spec.
func computePins(spec string, tl *pin.ToolsList) (pinSet, error) {
	switch spec {
	case pin.SpecVersion:
		p, err := pin.Compute(tl)
		return pinSet{spec: spec, PinsV2: pin.PinsV2{Pins: p}}, err
	case pin.SpecVersionV2:
		p, err := pin.ComputeV2(tl)
		return pinSet{spec: spec, PinsV2: p}, err
	}
	return pinSet{}, fmt.Errorf("unknown pin specification %q", spec)
}

// rawArray joins the raw objects of items into a JSON array, byte for
// byte; nil when items is nil (the server listed none).
func rawArray[T any](items []T, raw func(T) []byte) []byte {
	if items == nil {
		return nil
	}
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(raw(it))
	}
	b.WriteByte(']')
	return b.Bytes()
}

func promptRaw(p pin.Prompt) []byte             { return p.Raw }
func resourceRaw(r pin.Resource) []byte         { return r.Raw }
func templateRaw(t pin.ResourceTemplate) []byte { return t.Raw }
func setModelArrays(sc *ent.ToolSnapshotCreate, tl *pin.ToolsList) *ent.ToolSnapshotCreate {
	return sc.SetPrompts(rawArray(tl.Prompts, promptRaw)).SetResources(rawArray(tl.Resources, resourceRaw)).
		SetResourceTemplates(rawArray(tl.ResourceTemplates, templateRaw))
}

// addModelArrays reads a stored snapshot's prompts, resources and
// resource templates back into tl. They were read strictly when stored;
// reading them again through the pin parser keeps every element's raw
// bytes and key.
func (s *core) addModelArrays(tl *pin.ToolsList, snap *ent.ToolSnapshot) error {
	if snap.Prompts == nil && snap.Resources == nil && snap.ResourceTemplates == nil {
		return nil
	}
	var b bytes.Buffer
	b.WriteString(`{"tools":[]`)
	for _, m := range []struct {
		name string
		raw  []byte
	}{{"prompts", snap.Prompts}, {"resources", snap.Resources}, {"resourceTemplates", snap.ResourceTemplates}} {
		if m.raw != nil {
			b.WriteString(`,"` + m.name + `":`)
			b.Write(m.raw)
		}
	}
	b.WriteByte('}')
	extra, err := pin.ParseToolsList(b.Bytes(), s.limits.Pin)
	if err != nil {
		return fmt.Errorf("stored snapshot %d: %w", snap.ID, err)
	}
	tl.Prompts, tl.Resources, tl.ResourceTemplates = extra.Prompts, extra.Resources, extra.ResourceTemplates
	return nil
}

// liveModel is what a scan showed a model: the document as received, read
// strictly, and its mcpreg-pin-v2 pins (whose v1 part equals the scan's
// own pins).
type liveModel struct {
	file []byte
	list *pin.ToolsList
	pins pin.PinsV2
}

// modelList reads a scan's model file (see livescan.Snapshot.ModelFile).
func modelList(snap *livescan.Snapshot) (liveModel, error) {
	tl, err := snap.ModelList()
	if err != nil {
		return liveModel{}, fmt.Errorf("%w: what the server showed: %w", ErrInvalid, err)
	}
	p, err := pin.ComputeV2(tl)
	if err != nil {
		return liveModel{}, fmt.Errorf("%w: what the server showed: %w", ErrInvalid, err)
	}
	return liveModel{file: snap.ModelFile(), list: tl, pins: p}, nil
}
