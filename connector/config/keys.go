package config

import (
	"fmt"
	"reflect"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// removedKeys are keys Config once had, by their dotted path, each with what became of it. A
// file that still sets one is read with a warning, not refused: what the key tuned is gone,
// and ignoring it changes nothing else.
var removedKeys = map[string]string{
	"worker.intake_first_above": "workers no longer give way to a webhook burst (it cost bookings per second and did not pay for itself in acknowledgement latency; README \"Performance\")",
}

// keyReport is what walkKeys found: unknown keys (problems) and removed ones (warnings).
type keyReport struct {
	unknown, removed []string
}

// unknownKeys lists every key of the document that Config does not have, with the file's line
// and the keys its section does have, and, apart, every key of removedKeys the document sets.
// yaml.v3 checks known fields only when decoding text; the document is decoded from its nodes
// (so that errors keep the file's lines), hence this walk over the same nodes.
func unknownKeys(doc *yaml.Node) keyReport {
	var r keyReport
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	walkKeys(n, reflect.TypeOf(Config{}), "", &r)
	return r
}

// walkKeys checks the keys of mapping n against struct type t, and their values below.
func walkKeys(n *yaml.Node, t reflect.Type, path string, r *keyReport) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case n.Kind == yaml.SequenceNode && t.Kind() == reflect.Slice:
		for _, c := range n.Content {
			walkKeys(c, t.Elem(), path+"[]", r)
		}
		return
	case n.Kind != yaml.MappingNode || t.Kind() != reflect.Struct:
		return // a scalar where a section belongs is the decoder's type error
	}
	fields := yamlFields(t)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		ft, ok := fields[k.Value]
		if why, gone := removedKeys[joinPath(path, k.Value)]; !ok && gone {
			r.removed = append(r.removed, fmt.Sprintf("line %d: %s was removed and is ignored: %s; delete it from the file",
				k.Line, joinPath(path, k.Value), why))
			continue
		}
		if !ok {
			r.unknown = append(r.unknown, fmt.Sprintf("line %d: %s is not a known key (%s has: %s)",
				k.Line, joinPath(path, k.Value), sectionName(path), strings.Join(sortedKeys(fields), ", ")))
			continue
		}
		walkKeys(n.Content[i+1], ft, joinPath(path, k.Value), r)
	}
}

// yamlFields maps the YAML keys of struct t to their field types, as yaml.v3 names them: the
// tag's name, else the field name in lower case; "-" and unexported fields have none.
func yamlFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = strings.ToLower(f.Name)
		}
		out[name] = f.Type
	}
	return out
}

func sectionName(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

func sortedKeys(m map[string]reflect.Type) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
