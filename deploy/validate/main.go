package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

const usage = `usage: validate [-config-out FILE] [-config-key KEY] [-config-keys-of FILE] [FILE|-]...

Decodes every Kubernetes document in the files (or standard input) strictly into its typed object
and checks references between them. Prints one line per problem and exits 1 if there is any.
-config-out writes the ConfigMap key -config-key (default treecat.yml) to FILE.
-config-keys-of checks that the ConfigMap key -config-key has every key of FILE, the server's
embedded default configuration (but those whose default is empty, ${NAME:-}).
`

func main() {
	configOut := flag.String("config-out", "", "write the ConfigMap's -config-key value to this file")
	configKey := flag.String("config-key", "treecat.yml", "the ConfigMap key -config-out writes")
	configKeysOf := flag.String("config-keys-of", "", "a configuration whose every key the ConfigMap's must have")
	flag.Usage = func() { fmt.Fprint(os.Stderr, usage) }
	flag.Parse()

	inputs := flag.Args()
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	failed := false
	for _, input := range inputs {
		if !run(input, *configOut, *configKey, *configKeysOf) {
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func run(input, configOut, configKey, configKeysOf string) bool {
	var in io.Reader = os.Stdin
	name := "standard input"
	if input != "-" {
		f, err := os.Open(input)
		if err != nil {
			fmt.Fprintln(os.Stderr, "validate:", err)
			return false
		}
		defer f.Close()
		in, name = f, input
	}
	objects, problems, err := Validate(in)
	if err != nil {
		fmt.Fprintf(os.Stderr, "validate: %s: %v\n", name, err)
		return false
	}
	for _, p := range problems {
		fmt.Printf("FAIL %s: %s\n", name, p)
	}
	if len(problems) > 0 {
		return false
	}
	if configOut != "" || configKeysOf != "" {
		config, err := ConfigMapData(objects, "", configKey)
		if err != nil {
			fmt.Fprintf(os.Stderr, "validate: %s: %v\n", name, err)
			return false
		}
		if configOut != "" {
			if err := os.WriteFile(configOut, []byte(config), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "validate:", err)
				return false
			}
		}
		if configKeysOf != "" && !hasEveryKey(name, config, configKeysOf) {
			return false
		}
	}
	fmt.Printf("ok   %s: %d objects valid (%s)\n", name, len(objects), summary(objects))
	return true
}

// hasEveryKey reports the keys of the reference configuration the rendered one lacks.
func hasEveryKey(name, config, referenceFile string) bool {
	reference, err := os.ReadFile(referenceFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "validate:", err)
		return false
	}
	missing, err := MissingConfigKeys(reference, []byte(config))
	if err != nil {
		fmt.Fprintf(os.Stderr, "validate: %s: %v\n", name, err)
		return false
	}
	for _, key := range missing {
		fmt.Printf("FAIL %s: the ConfigMap's configuration has no %s (a key of %s)\n", name, key, referenceFile)
	}
	return len(missing) == 0
}
