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
	var spec string
	cmd := &cobra.Command{
		Use:   "pin FILE",
		Short: "Compute the pins of a tools file offline (FILE or - for standard input)",
		Long: "Compute the pins of a tools file: a tools/list result ({\"tools\":[...]}) or a bare array of\n" +
			"tools, optionally with top-level \"instructions\", \"prompts\", \"resources\" and\n" +
			"\"resourceTemplates\" members (docs/pin-spec.md). " + pin.SpecVersionV2 + " (the default) adds the\n" +
			"prompts and resources hashes to the " + pin.SpecVersion + " ones, which it leaves unchanged; --spec " + pin.SpecVersion + "\n" +
			"prints those alone. Needs no service and no token; hosts reproduce the same hashes.",
		Args: cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			if spec != pin.SpecVersion && spec != pin.SpecVersionV2 {
				return fmt.Errorf("--spec %q: want %s or %s", spec, pin.SpecVersionV2, pin.SpecVersion)
			}
			data, err := g.readInput("pin", args[0])
			if err != nil {
				return err
			}
			pins, err := computePins(data)
			if err != nil {
				return fmt.Errorf("%s: %w", inputName(args[0]), err)
			}
			if spec == pin.SpecVersion {
				pins.PromptsHash, pins.ResourcesHash = "", ""
			}
			if g.output == "json" {
				return writePinsJSON(g.io.Out, spec, pins)
			}
			return printComputedPins(g.io.Out, spec, pins)
		},
	}
	cmd.Flags().StringVar(&spec, "spec", pin.SpecVersionV2, "pin specification: "+pin.SpecVersionV2+" or "+pin.SpecVersion)
	return cmd
}

func computePins(data []byte) (pin.PinsV2, error) {
	list, err := pin.ParseToolsList(data, pin.DefaultLimits())
	if err != nil {
		return pin.PinsV2{}, err
	}
	return pin.ComputeV2(list)
}

func inputName(path string) string {
	if path == "-" {
		return "standard input"
	}
	return path
}

// writePinsJSON prints {"toolDefinitionHash", "schemaHash",
// "instructionsHash", "tools": [{"name", "hash"}]} and, under
// mcpreg-pin-v2, "promptsHash" and "resourcesHash", indented, names
// unescaped: the layout of the golden vectors.
func writePinsJSON(w io.Writer, spec string, p pin.PinsV2) error {
	if p.Tools == nil {
		p.Tools = []pin.ToolPin{}
	}
	var v any = p
	if spec == pin.SpecVersion {
		v = p.Pins
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}

func printComputedPins(w io.Writer, spec string, p pin.PinsV2) error {
	fmt.Fprintf(w, "Pins (%s):\n", spec)
	tools := make([][2]string, len(p.Tools))
	for i, tp := range p.Tools {
		tools[i] = [2]string{tp.Name, tp.Hash}
	}
	return printPins(w, pinRows(p.ToolDefinitionHash, p.SchemaHash, p.InstructionsHash, p.PromptsHash, p.ResourcesHash), tools)
}
