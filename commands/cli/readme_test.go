package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestReadmeStaysTrue checks that the README documents every exit code, and that its map
// of docs/ links every page there and nothing that is not there. The tool reference itself
// is docs/tools.md, which docs/gen's test keeps equal to the definitions.
func TestReadmeStaysTrue(t *testing.T) {
	root := filepath.Join("..", "..")
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for code, status := range ExitCodes {
		if !regexp.MustCompile(fmt.Sprintf("(?m)^\\| %d \\|.*`%s`", status, code)).MatchString(readme) {
			t.Errorf("README exit-code table lacks %s (exit %d)", code, status)
		}
	}

	i := strings.Index(readme, "\n## Documentation\n")
	if i < 0 {
		t.Fatal("README lacks its map of docs/ (## Documentation)")
	}
	section := readme[i:]
	if j := strings.Index(section[1:], "\n## "); j >= 0 {
		section = section[:j+1]
	}
	var mapped []string
	for _, m := range regexp.MustCompile(`(?m)^\| \[docs/([^\]]+\.md)\]\(docs/([^)]+)\) \|`).FindAllStringSubmatch(section, -1) {
		if m[1] != m[2] {
			t.Errorf("README's map shows docs/%s but links docs/%s", m[1], m[2])
		}
		mapped = append(mapped, m[2])
	}
	pages, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	var have []string
	for _, p := range pages {
		have = append(have, filepath.Base(p))
	}
	for _, p := range have {
		if !slices.Contains(mapped, p) {
			t.Errorf("README's map of docs/ does not list docs/%s", p)
		}
	}
	for _, p := range mapped {
		if !slices.Contains(have, p) {
			t.Errorf("README's map of docs/ lists docs/%s, which does not exist", p)
		}
	}
}

// TestDocLinksResolve checks every relative link of the README and of docs/*.md: the file
// exists, and a #fragment names a heading of it.
func TestDocLinksResolve(t *testing.T) {
	root := filepath.Join("..", "..")
	files, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	files = append(files, filepath.Join(root, "README.md"))
	link := regexp.MustCompile(`\]\(([^)#:\s]*)(#[^)\s]*)?\)`)
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range link.FindAllStringSubmatch(string(b), -1) {
			target := f
			if m[1] != "" {
				target = filepath.Join(filepath.Dir(f), m[1])
			}
			tb, err := os.ReadFile(target)
			if err != nil {
				t.Errorf("%s: link %s%s: %v", filepath.Base(f), m[1], m[2], err)
				continue
			}
			if m[2] != "" && !slices.Contains(anchors(string(tb)), m[2][1:]) {
				t.Errorf("%s: link %s%s: no such heading in %s", filepath.Base(f), m[1], m[2], filepath.Base(target))
			}
		}
	}
}

// anchors are the fragment ids a Markdown renderer gives the headings of page: lower case,
// punctuation dropped, spaces as dashes.
func anchors(page string) []string {
	var ids []string
	inCode := false
	for _, l := range strings.Split(page, "\n") {
		if strings.HasPrefix(l, "```") {
			inCode = !inCode
		}
		if inCode || !strings.HasPrefix(l, "#") {
			continue
		}
		h := strings.ToLower(strings.TrimSpace(strings.TrimLeft(l, "#")))
		var b strings.Builder
		for _, r := range h {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
				b.WriteRune(r)
			}
		}
		ids = append(ids, b.String())
	}
	return ids
}
