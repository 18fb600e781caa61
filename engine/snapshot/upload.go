package snapshot

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/w365/w365/engine/werr"
)

// Upload limits (Playwright Workspaces' browser_file_upload).
const (
	MaxUploadFiles     = 20
	MaxUploadFileBytes = 10 << 20
	MaxUploadBytes     = 50 << 20
	MaxUploadName      = 4096
	MaxUploadMIME      = 1024
)

// UploadFile is one inline file.
type UploadFile struct {
	Name     string `json:"name"`
	Data     string `json:"data" jsonschema:"base64"`
	MIMEType string `json:"mimeType,omitempty"`
}

// Stage checks inline files against the limits and writes them into a new
// private directory (0700) that the store removes when it closes. It returns
// the paths, in order.
func (s *Store) Stage(files []UploadFile) ([]string, error) {
	if len(files) < 1 || len(files) > MaxUploadFiles {
		return nil, werr.Invalid("give 1 to %d files (got %d)", MaxUploadFiles, len(files))
	}
	decoded := make([][]byte, len(files))
	total := 0
	for i, f := range files {
		if f.Name == "" || utf8.RuneCountInString(f.Name) > MaxUploadName {
			return nil, werr.Invalid("files[%d].name must have 1 to %d characters", i, MaxUploadName)
		}
		if utf8.RuneCountInString(f.MIMEType) > MaxUploadMIME {
			return nil, werr.Invalid("files[%d].mimeType is longer than %d characters", i, MaxUploadMIME)
		}
		if base64.StdEncoding.DecodedLen(len(f.Data)) > MaxUploadFileBytes+3 {
			return nil, werr.Invalid("files[%d] is larger than 10 MiB", i)
		}
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(f.Data))
		if err != nil {
			return nil, werr.Invalid("files[%d].data is not valid base64", i)
		}
		if len(b) > MaxUploadFileBytes {
			return nil, werr.Invalid("files[%d] is larger than 10 MiB (%d bytes)", i, len(b))
		}
		if total += len(b); total > MaxUploadBytes {
			return nil, werr.Invalid("the files are larger than 50 MiB together")
		}
		decoded[i] = b
	}
	dir, err := os.MkdirTemp("", "w365-upload-")
	if err != nil {
		return nil, werr.Wrap(err, werr.Internal, "cannot stage the files")
	}
	s.mu.Lock()
	s.staged = append(s.staged, dir)
	s.mu.Unlock()
	paths := make([]string, len(files))
	for i, f := range files {
		// Only the last path element, made safe; each file in its own
		// directory so that equal names do not collide.
		base := filepath.Base(strings.ReplaceAll(f.Name, "\\", "/"))
		if base == "." || base == ".." || base == "/" || base == "" {
			base = "file"
		}
		if len(base) > 255 { // the file system's limit: keep the start
			n := 255
			for n > 0 && !utf8.RuneStart(base[n]) {
				n--
			}
			base = base[:n]
		}
		sub := filepath.Join(dir, strconv.Itoa(i))
		if err := os.Mkdir(sub, 0o700); err != nil {
			return nil, werr.Wrap(err, werr.Internal, "cannot stage the files")
		}
		p := filepath.Join(sub, base)
		if err := os.WriteFile(p, decoded[i], 0o600); err != nil {
			return nil, werr.Wrap(err, werr.Internal, "cannot stage the files")
		}
		paths[i] = p
	}
	return paths, nil
}
