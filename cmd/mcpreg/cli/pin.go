package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mcpreg/mcpreg/pin"
)

func newPinCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:   "pin FILE",
		Short: "Compute the pins of a tools file offline (FILE or - for standard input)",
		Long: "Compute the " + pin.SpecVersion + " pins of a tools file: a tools/list result ({\"tools\":[...]})\n" +
			"or a bare array of tools, optionally with a top-level \"instructions\" member.\n" +
			"Needs no service and no token; hosts reproduce the same hashes.",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			data, err := g.readInput("pin", args[0])
			if err != nil {
				return err
			}
			pins, err := computePins(data)
			if err != nil {
				return fmt.Errorf("%s: %w", inputName(args[0]), err)
			}
			if g.output == "json" {
				return writePinsJSON(g.io.Out, pins)
			}
			return printComputedPins(g.io.Out, pins)
		},
	}
}

func computePins(data []byte) (pin.Pins, error) {
	list, err := pin.ParseToolsList(data, pin.DefaultLimits())
	if err != nil {
		return pin.Pins{}, err
	}
	return pin.Compute(list)
}

func inputName(path string) string {
	if path == "-" {
		return "standard input"
	}
	return path
}

// writePinsJSON prints {"toolDefinitionHash", "schemaHash",
// "instructionsHash", "tools": [{"name", "hash"}]}, indented, names unescaped.
func writePinsJSON(w io.Writer, p pin.Pins) error {
	if p.Tools == nil {
		p.Tools = []pin.ToolPin{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(p); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func printComputedPins(w io.Writer, p pin.Pins) error {
	fmt.Fprintf(w, "Pins (%s):\n", pin.SpecVersion)
	tools := make([][2]string, len(p.Tools))
	for i, tp := range p.Tools {
		tools[i] = [2]string{tp.Name, tp.Hash}
	}
	return printPins(w, p.ToolDefinitionHash, p.SchemaHash, p.InstructionsHash, tools)
}
