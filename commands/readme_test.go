package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeStaysTrue checks that the README documents every tool, with its CLI
// path, and every exit code.
func TestReadmeStaysTrue(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, tool := range All() {
		row := fmt.Sprintf("| `%s` | `w365 %s` |", tool.Name, strings.Join(tool.Path, " "))
		if !strings.Contains(readme, row) {
			t.Errorf("README has no tool row %q", row)
		}
	}
	for code, status := range ExitCodes {
		if !regexp.MustCompile(fmt.Sprintf("(?m)^\\| %d \\|.*`%s`", status, code)).MatchString(readme) {
			t.Errorf("README exit-code table lacks %s (exit %d)", code, status)
		}
	}
}
