package pin

import "testing"

// rejectCasesV2 are tools files whose prompts, resources or resource
// templates ParseToolsList must refuse.
var rejectCasesV2 = []rejectCase{
	{"prompts not an array", `{"tools":[],"prompts":{}}`, Limits{}, ErrInvalid, "/prompts", "prompts must be an array, got object"},
	{"prompts null", `{"tools":[],"prompts":null}`, Limits{}, ErrInvalid, "/prompts", "prompts must be an array, got null"},
	{"prompt not an object", `{"tools":[],"prompts":[{"name":"a"},[]]}`, Limits{}, ErrInvalid, "/prompts/1", "a prompt must be an object, got array"},
	{"prompt without name", `{"tools":[],"prompts":[{"title":"a"}]}`, Limits{}, ErrInvalid, "/prompts/0", `prompt has no "name" member`},
	{"prompt name not a string", `{"tools":[],"prompts":[{"name":false}]}`, Limits{}, ErrInvalid, "/prompts/0/name", "prompt name must be a string, got boolean"},
	{"duplicate prompt names", `{"tools":[],"prompts":[{"name":"a"},{"name":"b"},{"name":"a"}]}`, Limits{}, ErrInvalid, "/prompts/2/name", `duplicate prompt name "a" (prompts 0 and 2)`},
	{"duplicate prompt names escaped", `{"tools":[],"prompts":[{"name":"\u00e9"},{"name":"é"}]}`, Limits{}, ErrInvalid, "/prompts/1/name", `duplicate prompt name "é"`},
	{"prompt and tool may share a name", `{"tools":[{"name":"a"}],"prompts":[{"name":"a"},{"name":"a"}]}`, Limits{}, ErrInvalid, "/prompts/1/name", "(prompts 0 and 1)"},
	{"messages not an array", `{"tools":[],"prompts":[{"name":"a","messages":"hi"}]}`, Limits{}, ErrInvalid, "/prompts/0/messages", "prompt messages must be an array, got string"},
	{"messages with a required argument", `{"tools":[],"prompts":[{"name":"a","messages":[],"arguments":[{"name":"x"},{"name":"y","required":true}]}]}`,
		Limits{}, ErrInvalid, "/prompts/0/messages", "a prompt with a required argument (argument 1) must not carry messages"},
	{"duplicate member in messages", `{"tools":[],"prompts":[{"name":"a","messages":[{"role":"user","role":"user"}]}]}`, Limits{}, ErrInvalid, "/prompts/0/messages/0/role", `duplicate object member name "role"`},
	{"resources not an array", `{"tools":[],"resources":{"resources":[],"templates":[]}}`, Limits{}, ErrInvalid, "/resources", "resources must be an array, got object"},
	{"resource not an object", `{"tools":[],"resources":["file:///a"]}`, Limits{}, ErrInvalid, "/resources/0", "a resource must be an object, got string"},
	{"resource without uri", `{"tools":[],"resources":[{"name":"a","URI":"file:///a"}]}`, Limits{}, ErrInvalid, "/resources/0", `resource has no "uri" member`},
	{"resource uri not a string", `{"tools":[],"resources":[{"uri":null}]}`, Limits{}, ErrInvalid, "/resources/0/uri", "resource uri must be a string, got null"},
	{"duplicate resource uris", `{"tools":[],"resources":[{"uri":"file:///a","name":"a"},{"uri":"file:///a","name":"b"}]}`, Limits{}, ErrInvalid, "/resources/1/uri", `duplicate resource uri "file:///a" (resources 0 and 1)`},
	{"duplicate member in unpinned resource member", `{"tools":[],"resources":[{"uri":"u","annotations":{"priority":1,"priority":2}}]}`, Limits{}, ErrInvalid, "/resources/0/annotations/priority", "duplicate"},
	{"templates not an array", `{"tools":[],"resourceTemplates":1}`, Limits{}, ErrInvalid, "/resourceTemplates", "resourceTemplates must be an array, got number"},
	{"template without uriTemplate", `{"tools":[],"resourceTemplates":[{"uri":"file:///{x}"}]}`, Limits{}, ErrInvalid, "/resourceTemplates/0", `resource template has no "uriTemplate" member`},
	{"template uriTemplate not a string", `{"tools":[],"resourceTemplates":[{"uriTemplate":{}}]}`, Limits{}, ErrInvalid, "/resourceTemplates/0/uriTemplate", "resource template uriTemplate must be a string, got object"},
	{"duplicate templates", `{"tools":[],"resourceTemplates":[{"uriTemplate":"a{x}"},{"uriTemplate":"a{x}"}]}`, Limits{}, ErrInvalid, "/resourceTemplates/1/uriTemplate",
		`duplicate resource template uriTemplate "a{x}" (resource templates 0 and 1)`},
	{"duplicate resources member", `{"tools":[],"resources":[],"resources":[]}`, Limits{}, ErrInvalid, "/resources", "duplicate"},
	{"invalid UTF-8 in a uri", "{\"tools\":[],\"resources\":[{\"uri\":\"file:///\xc3\"}]}", Limits{}, ErrInvalid, "/resources/0/uri", "invalid UTF-8"},
	{"lone surrogate in a prompt", `{"tools":[],"prompts":[{"name":"a","title":"\udc00"}]}`, Limits{}, ErrInvalid, "/prompts/0/title", "surrogate"},
	{"number out of range in arguments", `{"tools":[],"prompts":[{"name":"a","arguments":[{"name":"n","x":1e999}]}]}`, Limits{}, ErrInvalid, "/prompts/0/arguments/0/x", "outside"},
	{"prompts without tools", `{"prompts":[]}`, Limits{}, ErrInvalid, "", `missing "tools" member`},
	{"too many prompts", `{"tools":[],"prompts":[{"name":"a"},{"name":"b"},{"name":"c"}]}`, Limits{MaxTools: 2}, ErrTooLarge, "/prompts/2", "more than 2 prompts"},
	{"too many resources", `{"tools":[],"resources":[{"uri":"a"},{"uri":"b"}]}`, Limits{MaxTools: 1}, ErrTooLarge, "/resources/1", "more than 1 resources"},
	{"too many templates", `{"tools":[],"resourceTemplates":[{"uriTemplate":"a"},{"uriTemplate":"b"}]}`, Limits{MaxTools: 1}, ErrTooLarge, "/resourceTemplates/1", "more than 1 resource templates"},
}

func TestParseToolsListRejectsV2(t *testing.T) {
	for _, tc := range rejectCasesV2 {
		t.Run(tc.name, func(t *testing.T) {
			l, err := ParseToolsList([]byte(tc.in), tc.lim)
			if l != nil {
				t.Errorf("got a tools list with the error")
			}
			assertRejected(t, err, tc)
		})
	}
}

func TestErrorMessageV2(t *testing.T) {
	in := "{\"tools\":[],\n\"prompts\":[{\"name\":\"a\"},\n {\"name\":\"b\",\"arguments\":[{\"name\":\"x\",\"required\":true}],\"messages\":[]}]}"
	_, err := ParseToolsList([]byte(in), Limits{})
	want := `pin: a prompt with a required argument (argument 0) must not carry messages at /prompts/1/messages (line 3, column 2; byte offset 39)`
	if err == nil || err.Error() != want {
		t.Errorf("Error() = %v\nwant %s", err, want)
	}
}
