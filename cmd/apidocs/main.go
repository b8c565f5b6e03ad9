// Command apidocs regenerates the generated parts of the API documentation
// from the code: the error-code tables of docs/api-errors.md from the
// error catalogue (models/errs). It is run by go generate ./api; a test in
// package api fails while the committed document is stale.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/agent-trading/ats/api"
)

func main() {
	path := flag.String("errors", "docs/api-errors.md", "the error document to rewrite")
	flag.Parse()
	if err := rewrite(*path); err != nil {
		fmt.Fprintln(os.Stderr, "apidocs:", err)
		os.Exit(1)
	}
}

func rewrite(path string) error {
	doc, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := api.RewriteErrorDoc(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, out, 0o644)
}
