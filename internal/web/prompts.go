package web

import (
	"encoding/json"
	"strconv"

	"github.com/mcpreg/mcpreg/internal/diffreview"
)

// promptView is what a reviewer reads of one prompt of a snapshot.
type promptView struct {
	Name, Title, Description string
	Arguments                []promptArgument
	// Messages is the prompts/get answer as the model reads it; Fetched
	// is false for a prompt with a required argument, which is pinned
	// without messages.
	Messages string
	Fetched  bool
	Pointer  string
}

type promptArgument struct {
	Name, Title, Description string
	Required                 bool
}

// resourceView is one resource (Key is its uri) or resource template
// (Key is its uriTemplate).
type resourceView struct {
	Key, Name, Title, Description, MimeType string
}

// promptViews reads a snapshot's raw prompts array; an unreadable one
// shows as no prompts (the raw JSON stays on the API).
func promptViews(raw string) []promptView {
	var ps []struct {
		Name, Title, Description string
		Arguments                []struct {
			Name, Title, Description string
			Required                 any
		}
		Messages json.RawMessage
	}
	if raw == "" || json.Unmarshal([]byte(raw), &ps) != nil {
		return nil
	}
	out := make([]promptView, len(ps))
	for i, p := range ps {
		v := promptView{Name: p.Name, Title: p.Title, Description: p.Description, Pointer: "/prompts/" + strconv.Itoa(i)}
		for _, a := range p.Arguments {
			v.Arguments = append(v.Arguments, promptArgument{Name: a.Name, Title: a.Title, Description: a.Description, Required: a.Required == true})
		}
		if len(p.Messages) > 0 && string(p.Messages) != "null" {
			v.Messages, v.Fetched = diffreview.MessagesText(p.Messages), true
		}
		out[i] = v
	}
	return out
}

// resourceViews reads a snapshot's raw resources or templates array; key
// is "uri" or "uriTemplate".
func resourceViews(raw, key string) []resourceView {
	var rs []map[string]any
	if raw == "" || json.Unmarshal([]byte(raw), &rs) != nil {
		return nil
	}
	str := func(m map[string]any, k string) string { s, _ := m[k].(string); return s }
	out := make([]resourceView, len(rs))
	for i, r := range rs {
		out[i] = resourceView{Key: str(r, key), Name: str(r, "name"), Title: str(r, "title"), Description: str(r, "description"), MimeType: str(r, "mimeType")}
	}
	return out
}
