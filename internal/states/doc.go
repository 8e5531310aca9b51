// Package states holds the typed values the registry stores as strings in
// its database and shows in its API: how a scan ended ([ScanOutcome]) and
// why it failed ([ScanErrorKind]), what started it ([ScanTrigger]), why a
// version is quarantined ([QuarantineKind]) and what became of a drift
// event ([DriftStatus]). Each type lists its values once, and its Parse
// function and Valid method are the only places that check a value; code
// elsewhere uses the constants, never the strings (a test enforces it).
//
// A version's state and a principal's role are ent enums and live with the
// schema; drift classes are [github.com/mcpreg/mcpreg/internal/diffreview.Class],
// beside the drift policy that rates them.
package states
