// Package detectoreval reads the poisoning corpus (testdata/poisoning),
// keeps its split frozen, and measures the poisoning findings on it:
// recall and false-positive rate per family and language, and whether an
// attack was caught by the finding kind its family maps to.
//
// The held-out split is for measuring only. Corpus hands a trainer the
// development cases alone (Development); nothing in this package gives
// out held-out cases except Evaluate, which returns figures, not cases.
package detectoreval

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/mcpreg/mcpreg/pin"
)

// Labels.
const (
	Malicious = "malicious"
	Benign    = "benign"
)

// Families of attacks and the finding kinds that name them.
var Families = map[string][]string{
	"coercive_ordering":   {"poisoning.coercive_ordering"},
	"exfiltration_prose":  {"poisoning.exfiltration_request", "poisoning.exfiltration_parameter"},
	"override_no_markers": {"poisoning.instruction_override"},
	"cross_tool_steering": {"poisoning.cross_tool_instruction", "shadowing.cross_tool_instruction"},
	"secrecy_indirect":    {"poisoning.secrecy"},
	"collection_prose":    {"poisoning.data_collection"},
}

// Languages of the corpus.
var Languages = []string{"en", "fr", "zh"}

// HardNegatives are the kinds of legitimate tools that name sensitive
// things.
var HardNegatives = []string{"security_scanner", "secret_manager", "ssh_config", "prompt_management",
	"injection_docs", "devops_credentials", "system_prompt_setter"}

// Case is one labelled unit: a tool definition or a server's
// instructions.
type Case struct {
	ID           string          `json:"id"`
	Label        string          `json:"label"`
	Family       string          `json:"family,omitempty"`
	Language     string          `json:"language"`
	Tool         json.RawMessage `json:"tool,omitempty"`
	Instructions *string         `json:"instructions,omitempty"`
	Source       *Source         `json:"source,omitempty"`
	HardNegative string          `json:"hardNegative,omitempty"`
	Note         string          `json:"note,omitempty"`

	// line is the case's line as stored; its SHA-256 freezes held-out
	// cases.
	line []byte
	file string
}

// Source is where a benign case was read.
type Source struct {
	Package string `json:"package"`
	Version string `json:"version"`
	Licence string `json:"licence"`
	URL     string `json:"url"`
}

// List is the case as a tools list for the detectors.
func (c Case) List() (*pin.ToolsList, error) {
	if c.Tool != nil {
		return pin.ParseToolsList(append(append([]byte(`{"tools":[`), c.Tool...), "]}"...), pin.Limits{})
	}
	return &pin.ToolsList{Instructions: c.Instructions}, nil
}

// Digest is the SHA-256 of the case's stored line.
func (c Case) Digest() string {
	s := sha256.Sum256(c.line)
	return hex.EncodeToString(s[:])
}

// HeldOut reports whether the split rule holds id out: the first byte of
// SHA-256 of the id is below 128.
func HeldOut(id string) bool {
	s := sha256.Sum256([]byte(id))
	return s[0] < 128
}

// Corpus is every case, split.
type Corpus struct {
	dev, held []Case
}

// Development returns the cases a detector may be tuned or trained on.
func (c *Corpus) Development() []Case { return slices.Clone(c.dev) }

// Sizes counts the cases of each split.
func (c *Corpus) Sizes() (development, heldOut int) { return len(c.dev), len(c.held) }

var idRE = regexp.MustCompile(`^(mal-(en|fr|zh)-[a-z_]+-\d{3}|ben-[a-z0-9-]+-[A-Za-z0-9_.-]+)$`)

// Load reads every *.jsonl file of dir and checks each case.
func Load(dir string) (*Corpus, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("corpus %s: %w", dir, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("corpus %s: no *.jsonl files", dir)
	}
	sort.Strings(files)
	c := &Corpus{}
	seen := map[string]string{}
	var errs []error
	for _, f := range files {
		cases, err := readFile(f)
		if err != nil {
			return nil, err
		}
		for _, cs := range cases {
			if prev, dup := seen[cs.ID]; dup {
				errs = append(errs, fmt.Errorf("%s: id %s is also in %s", f, cs.ID, prev))
				continue
			}
			seen[cs.ID] = f
			if err := cs.check(); err != nil {
				errs = append(errs, fmt.Errorf("%s: %s: %w", filepath.Base(f), cs.ID, err))
				continue
			}
			if HeldOut(cs.ID) {
				c.held = append(c.held, cs)
			} else {
				c.dev = append(c.dev, cs)
			}
		}
	}
	return c, errors.Join(errs...)
}

func readFile(path string) ([]Case, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Case
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		var cs Case
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&cs); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, n, err)
		}
		cs.line, cs.file = bytes.Clone(line), filepath.Base(path)
		out = append(out, cs)
	}
	return out, sc.Err()
}

// check validates one case.
func (c Case) check() error {
	switch {
	case !idRE.MatchString(c.ID):
		return fmt.Errorf("id: want mal-<language>-<family>-NNN or ben-<package>-<tool>")
	case !slices.Contains(Languages, c.Language):
		return fmt.Errorf("language %q: want one of %v", c.Language, Languages)
	case (c.Tool == nil) == (c.Instructions == nil):
		return errors.New("want exactly one of tool and instructions")
	}
	switch c.Label {
	case Malicious:
		if _, ok := Families[c.Family]; !ok {
			return fmt.Errorf("family %q is not one of the corpus families", c.Family)
		}
		if !strings.HasPrefix(c.ID, "mal-"+c.Language+"-"+c.Family+"-") {
			return fmt.Errorf("id does not name its language and family")
		}
		if c.Source != nil || c.HardNegative != "" {
			return errors.New("a malicious case has no source or hardNegative")
		}
	case Benign:
		if c.Family != "" || !strings.HasPrefix(c.ID, "ben-") {
			return errors.New("a benign case has no family and an id starting ben-")
		}
		if s := c.Source; s == nil || s.Package == "" || s.Version == "" || s.Licence == "" || s.URL == "" {
			return errors.New("source: package, version, licence and url are required")
		}
		if c.HardNegative != "" && !slices.Contains(HardNegatives, c.HardNegative) {
			return fmt.Errorf("hardNegative %q: want one of %v", c.HardNegative, HardNegatives)
		}
	default:
		return fmt.Errorf("label %q: want %s or %s", c.Label, Malicious, Benign)
	}
	if _, err := c.List(); err != nil {
		return fmt.Errorf("not a tool the registry accepts: %w", err)
	}
	return nil
}
