package main

import (
	"flag"
	"fmt"
	"io"
	"os"
)

const usage = `usage: validate [-config-out FILE] [-config-key KEY] [FILE|-]...

Decodes every Kubernetes document in the files (or standard input) strictly into its typed object
and checks references between them. Prints one line per problem and exits 1 if there is any.
-config-out writes the ConfigMap key -config-key (default treecat.yml) to FILE.
`

func main() {
	configOut := flag.String("config-out", "", "write the ConfigMap's -config-key value to this file")
	configKey := flag.String("config-key", "treecat.yml", "the ConfigMap key -config-out writes")
	flag.Usage = func() { fmt.Fprint(os.Stderr, usage) }
	flag.Parse()

	inputs := flag.Args()
	if len(inputs) == 0 {
		inputs = []string{"-"}
	}
	failed := false
	for _, input := range inputs {
		if !run(input, *configOut, *configKey) {
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func run(input, configOut, configKey string) bool {
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
	if configOut != "" {
		config, err := ConfigMapData(objects, "", configKey)
		if err != nil {
			fmt.Fprintf(os.Stderr, "validate: %s: %v\n", name, err)
			return false
		}
		if err := os.WriteFile(configOut, []byte(config), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "validate:", err)
			return false
		}
	}
	fmt.Printf("ok   %s: %d objects valid (%s)\n", name, len(objects), summary(objects))
	return true
}
