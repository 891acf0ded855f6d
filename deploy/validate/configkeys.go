package main

import (
	"fmt"
	"regexp"
	"sort"

	sigsyaml "sigs.k8s.io/yaml"
)

// emptyDefault matches a value that is only an environment variable with an empty default,
// `${NAME:-}`: a rule that is off unless set, which the chart leaves out rather than render as "".
var emptyDefault = regexp.MustCompile(`^\$\{[A-Z0-9_]+:-\}$`)

// MissingConfigKeys lists the key paths of reference (the server's embedded default configuration)
// that rendered (the treecat.yml the chart renders) lacks, so that a key added to the server
// without a chart value is caught: a Helm user could not set it. Maps are walked key by key and
// lists element by element; a reference key whose value is `${NAME:-}` may be absent.
func MissingConfigKeys(reference, rendered []byte) ([]string, error) {
	var ref, got any
	if err := sigsyaml.Unmarshal(reference, &ref); err != nil {
		return nil, fmt.Errorf("the reference configuration: %w", err)
	}
	if err := sigsyaml.Unmarshal(rendered, &got); err != nil {
		return nil, fmt.Errorf("the rendered configuration: %w", err)
	}
	var missing []string
	walkMissing("", ref, got, &missing)
	sort.Strings(missing)
	return missing, nil
}

func walkMissing(path string, ref, got any, missing *[]string) {
	switch r := ref.(type) {
	case map[string]any:
		g, _ := got.(map[string]any)
		for key, value := range r {
			child := key
			if path != "" {
				child = path + "." + key
			}
			other, present := g[key]
			if !present {
				if s, ok := value.(string); ok && emptyDefault.MatchString(s) {
					continue
				}
				*missing = append(*missing, child)
				continue
			}
			walkMissing(child, value, other, missing)
		}
	case []any:
		g, _ := got.([]any)
		for i, value := range r {
			child := fmt.Sprintf("%s[%d]", path, i)
			if i >= len(g) {
				*missing = append(*missing, child)
				continue
			}
			walkMissing(child, value, g[i], missing)
		}
	}
}
