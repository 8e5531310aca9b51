package detectoreval

import (
	"slices"
	"strings"
	"testing"

	"github.com/mcpreg/mcpreg/internal/testkit"
	"github.com/mcpreg/mcpreg/pin"
)

// unitText identifies a unit by its tool JSON or instructions.
func unitText(l *pin.ToolsList) string {
	if len(l.Tools) > 0 {
		return string(l.Tools[0].Raw)
	}
	return *l.Instructions
}

// The trainer is handed development cases only: not one held-out unit
// reaches the features function.
func TestTrainerNeverSeesHeldOut(t *testing.T) {
	c, err := Load(testkit.TestdataDir("poisoning"))
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]string{}
	for _, cs := range c.held {
		l, err := cs.List()
		if err != nil {
			t.Fatal(err)
		}
		held[unitText(l)] = cs.ID
	}
	var seen int
	features := func(l *pin.ToolsList) [][][]string {
		if id, ok := held[unitText(l)]; ok {
			t.Errorf("held-out case %s reached the trainer", id)
		}
		seen++
		return [][][]string{{strings.Fields("a b")}}
	}
	if _, err := c.Train(features, []string{"benign", "coercive_ordering", "collection_prose", "cross_tool_steering",
		"exfiltration_prose", "override_no_markers", "secrecy_indirect"}, ModelOptions); err != nil {
		t.Fatal(err)
	}
	if dev, _ := c.Sizes(); seen != dev {
		t.Errorf("the trainer read %d units, the development split has %d", seen, dev)
	}
}

// A held-out case that found its way into the development cases (a bug
// in Load, a hand-built corpus) stops training.
func TestTrainRefusesHeldOut(t *testing.T) {
	c, err := Load(testkit.TestdataDir("poisoning"))
	if err != nil {
		t.Fatal(err)
	}
	bad := &Corpus{dev: append(slices.Clone(c.dev), c.held[0])}
	_, err = bad.Train(func(*pin.ToolsList) [][][]string { return nil }, []string{"benign", "x"}, ModelOptions)
	if err == nil || !strings.Contains(err.Error(), c.held[0].ID) {
		t.Fatalf("err = %v, want a refusal naming %s", err, c.held[0].ID)
	}
}
