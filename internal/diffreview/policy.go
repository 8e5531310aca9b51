package diffreview

import (
	"errors"
	"fmt"
	"maps"
	"slices"

	"github.com/mcpreg/mcpreg/finding"
)

// Class says what kind of difference a drift change is; the drift policy
// rates each class.
type Class string

// Drift classes, as the README names them ("Live scanning and drift").
const (
	ClassDescriptionChanged Class = "description_changed"
	ClassSchemaChanged      Class = "schema_changed"
	ClassAnnotationsChanged Class = "annotations_changed"
	ClassTitleChanged       Class = "title_changed"
	ClassToolAdded          Class = "tool_added"
	ClassToolRemoved        Class = "tool_removed"
	// ClassToolRenamed is a tool that disappeared while a very similar one
	// appeared (or one with a look-alike name): a rename that would dodge
	// a host's pin by name.
	ClassToolRenamed         Class = "tool_renamed"
	ClassInstructionsChanged Class = "instructions_changed"
	ClassServerInfoChanged   Class = "server_info_changed"

	// Prompt classes (pin v2). ClassPromptDescriptionChanged covers the
	// prompt's description and title; ClassPromptArgumentsChanged an
	// argument added, removed or renamed, its description or title
	// changed, or required flipped; ClassPromptMessagesChanged the
	// messages prompts/get returns without arguments. A prompt that
	// disappears while a similar one appears is removed and added: prompts
	// are not paired as renames.
	ClassPromptAdded              Class = "prompt_added"
	ClassPromptRemoved            Class = "prompt_removed"
	ClassPromptDescriptionChanged Class = "prompt_description_changed"
	ClassPromptArgumentsChanged   Class = "prompt_arguments_changed"
	ClassPromptMessagesChanged    Class = "prompt_messages_changed"

	// Resource classes (pin v2). ClassResourceChanged is a resource whose
	// name, title, description or mimeType changed, or a resource template
	// added, removed or changed: templates are capabilities. Plain
	// resources added or removed are often data (a server may list
	// per-session resources), hence classes of their own.
	ClassResourceAdded   Class = "resource_added"
	ClassResourceRemoved Class = "resource_removed"
	ClassResourceChanged Class = "resource_changed"

	// ClassAuthChanged is a changed OAuth authorization server or
	// audience. The registry reports it; Drift and DriftV2 do not.
	ClassAuthChanged Class = "auth_changed"
)

// Classes lists every drift class in the order changes are reported.
var Classes = []Class{
	ClassInstructionsChanged, ClassServerInfoChanged, ClassToolAdded, ClassToolRemoved, ClassToolRenamed,
	ClassDescriptionChanged, ClassSchemaChanged, ClassAnnotationsChanged, ClassTitleChanged,
	ClassPromptAdded, ClassPromptRemoved, ClassPromptDescriptionChanged, ClassPromptArgumentsChanged, ClassPromptMessagesChanged,
	ClassResourceAdded, ClassResourceRemoved, ClassResourceChanged, ClassAuthChanged,
}

// ErrUnknownClass is matched by the error of ParseClass.
var ErrUnknownClass = errors.New("diffreview: unknown drift class")

// ParseClass returns s as a Class, or an error matching ErrUnknownClass.
func ParseClass(s string) (Class, error) {
	if c := Class(s); c.Valid() {
		return c, nil
	}
	return "", fmt.Errorf("%w %q", ErrUnknownClass, s)
}

// Valid reports whether c is one of the drift classes.
func (c Class) Valid() bool { return slices.Contains(Classes, c) }

// Action is what the registry does about a drift change by default.
type Action string

// Actions, the stricter first.
const (
	// ActionQuarantine removes the version from discovery until a reviewer
	// releases it or accepts the new pins.
	ActionQuarantine Action = "quarantine"
	// ActionWarn records and shows the drift; the version stays approved
	// and is not re-pinned.
	ActionWarn Action = "warn"
)

// Rule is the severity and default action of a drift class.
type Rule struct {
	Severity finding.Severity `json:"severity"`
	Action   Action           `json:"action"`
}

// Policy maps drift classes to rules. Annotation changes that move a hint
// in the dangerous direction (see AnnotationDiff) use RiskierAnnotations
// instead of the annotations_changed rule.
type Policy struct {
	Classes            map[Class]Rule `json:"classes"`
	RiskierAnnotations Rule           `json:"riskierAnnotations"`
}

// DefaultPolicy returns the registry's default drift policy. Anything the
// model reads as an instruction or a capability (descriptions, schemas,
// new tools, instructions, new prompts and any change of a prompt's text
// or arguments, changed resources and resource templates, a changed
// authorization server or audience) and annotations turning riskier
// quarantine at high severity; the rest warns: other annotation changes,
// removed tools and removed prompts at medium, titles and resources added
// or removed (often data) at low, serverInfo (a version bump) at info.
func DefaultPolicy() Policy {
	return Policy{
		Classes: map[Class]Rule{
			ClassDescriptionChanged:  {finding.High, ActionQuarantine},
			ClassSchemaChanged:       {finding.High, ActionQuarantine},
			ClassToolAdded:           {finding.High, ActionQuarantine},
			ClassToolRenamed:         {finding.High, ActionQuarantine},
			ClassInstructionsChanged: {finding.High, ActionQuarantine},
			ClassAnnotationsChanged:  {finding.Medium, ActionWarn},
			ClassToolRemoved:         {finding.Medium, ActionWarn},
			ClassTitleChanged:        {finding.Low, ActionWarn},
			ClassServerInfoChanged:   {finding.Info, ActionWarn},

			ClassPromptAdded:              {finding.High, ActionQuarantine},
			ClassPromptDescriptionChanged: {finding.High, ActionQuarantine},
			ClassPromptArgumentsChanged:   {finding.High, ActionQuarantine},
			ClassPromptMessagesChanged:    {finding.High, ActionQuarantine},
			ClassPromptRemoved:            {finding.Medium, ActionWarn},
			ClassResourceChanged:          {finding.High, ActionQuarantine},
			ClassResourceAdded:            {finding.Low, ActionWarn},
			ClassResourceRemoved:          {finding.Low, ActionWarn},
			ClassAuthChanged:              {finding.High, ActionQuarantine},
		},
		RiskierAnnotations: Rule{finding.High, ActionQuarantine},
	}
}

// ErrInvalidPolicy is matched by every error Policy.Validate returns.
var ErrInvalidPolicy = errors.New("diffreview: invalid drift policy")

// Validate checks that no unknown class is configured and every rule has
// a known severity and action. A class left out is no error: it fails
// closed (see RuleFor and Unconfigured).
func (p Policy) Validate() error {
	var errs []error
	for _, c := range slices.Sorted(maps.Keys(p.Classes)) {
		if !c.Valid() {
			errs = append(errs, fmt.Errorf("%w: unknown class %q", ErrInvalidPolicy, c))
		}
		errs = append(errs, p.Classes[c].validate("classes."+string(c)))
	}
	errs = append(errs, p.RiskierAnnotations.validate("riskierAnnotations"))
	return errors.Join(errs...)
}

// validate checks one rule, named where for the message.
func (r Rule) validate(where string) error {
	var errs []error
	if r.Severity.Rank() < 0 {
		errs = append(errs, fmt.Errorf("%w: %s: unknown severity %q", ErrInvalidPolicy, where, r.Severity))
	}
	if r.Action != ActionQuarantine && r.Action != ActionWarn {
		errs = append(errs, fmt.Errorf("%w: %s: unknown action %q (want quarantine or warn)", ErrInvalidPolicy, where, r.Action))
	}
	return errors.Join(errs...)
}

// Unconfigured lists the classes p has no rule for, which fail closed
// (high, quarantine): a policy file written before a class existed.
func (p Policy) Unconfigured() []Class {
	var out []Class
	for _, c := range Classes {
		if _, ok := p.Classes[c]; !ok {
			out = append(out, c)
		}
	}
	return out
}

// failClosed is the rule for a class a policy does not configure.
var failClosed = Rule{finding.High, ActionQuarantine}

// RuleFor returns the rule that applies to c. A class the policy lacks
// gets high/quarantine: an incomplete policy fails closed.
func (p Policy) RuleFor(c Change) Rule {
	if c.Class == ClassAnnotationsChanged && c.Riskier {
		if p.RiskierAnnotations.validate("") == nil {
			return p.RiskierAnnotations
		}
		return failClosed
	}
	if r, ok := p.Classes[c.Class]; ok && r.validate("") == nil {
		return r
	}
	return failClosed
}

// Verdict returns the strictest action among changes: quarantine if any
// change quarantines, warn if there are only warnings, "" if none.
func Verdict(changes []Change) Action {
	var v Action
	for _, c := range changes {
		switch c.Action {
		case ActionQuarantine:
			return ActionQuarantine
		case ActionWarn:
			v = ActionWarn
		}
	}
	return v
}
