package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

// jsonOutput emits every field, so scripts see zero values too.
var jsonOutput = protojson.MarshalOptions{EmitUnpopulated: true}

// emit writes m as the API's JSON with --output json, else calls table.
func (g *globals) emit(m proto.Message, table func(w io.Writer) error) error {
	if g.output == "json" {
		return writeJSON(g.io.Out, m)
	}
	return table(g.io.Out)
}

// writeJSON writes m indented. protojson varies its whitespace on purpose;
// json.Indent makes the output stable.
func writeJSON(w io.Writer, m proto.Message) error {
	data, err := jsonOutput.Marshal(m)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, data, "", "  "); err != nil {
		return err
	}
	buf.WriteByte('\n')
	_, err = buf.WriteTo(w)
	return err
}

// table writes aligned columns; cells are made printable on one line.
type table struct{ tw *tabwriter.Writer }

func newTable(w io.Writer) *table {
	return &table{tw: tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)}
}

func (t *table) row(cells ...string) {
	for i, c := range cells {
		cells[i] = cell(c)
	}
	fmt.Fprintln(t.tw, strings.Join(cells, "\t"))
}

func (t *table) flush() error { return t.tw.Flush() }

// cell makes s safe for one table cell: no control characters (which could
// drive the terminal or break the columns), "-" when empty.
func cell(s string) string {
	if s == "" {
		return "-"
	}
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\n' || r == '\r':
			return ' '
		case r < 0x20 || (r >= 0x7f && r < 0xa0):
			return '\uFFFD'
		}
		return r
	}, s)
}

func timestamp(t *timestamppb.Timestamp) string {
	if t == nil {
		return ""
	}
	return t.AsTime().UTC().Format(time.RFC3339)
}

func list(items []string) string { return strings.Join(items, ", ") }
