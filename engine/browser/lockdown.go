package browser

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/w365/w365/engine/werr"
)

// The browser opens only some URLs itself, whoever asks for them (a tool, a
// browser_run_code script through the proxy, a page, the person in the live
// view): http:, https:, data:, blob:, about: (file: with Options.AllowFileURLs),
// never another scheme (allowedURLs). The rule is Chromium's URLBlocklist and
// URLAllowlist: as managed policies they are read only from a system directory
// (/etc/chromium/policies/managed), so they are set per launch as the preferences
// those policies map to ("policy.url_blocklist", "policy.url_allowlist"), in the
// profile's Preferences before the browser starts. Chromium's navigation throttle
// then fails every other navigation with ERR_BLOCKED_BY_ADMINISTRATOR, browser- or
// renderer-initiated, top level or frame, and starts no external application. The
// same file points downloads at the session's download directory without a prompt,
// for any browser context (the host also sets it over DevTools, and the proxy never
// lets it change).
// Its Local State turns the system's file chooser off; the same Preferences refuse the
// permissions a page asks for (refusedPermissions).
// docs/security.md, "The browser".

// allowedURLs are the URLs the browser opens (URLAllowlist): the web's, the pages a page
// makes (data:, blob:, about:blank) and the browser's own UI (chrome://*.top-chrome);
// every other URL is blocked ("*"), a scheme an application registered included (an
// external protocol: its application would start in the browser's confinement, with the
// browser's network and profile, from a desktop entry the session wrote in its HOME).
var allowedURLs = []string{"http://*", "https://*", "data:*", "blob:*", "about:*", "chrome://top-chrome"}

// internalSchemes are blocked by name too: Chromium exempts its own pages from "*".
var internalSchemes = []string{"chrome", "devtools", "chrome-extension", "chrome-untrusted", "view-source"}

// blocklist is the URLBlocklist of the browser: everything, the internal schemes, and
// Options.BlockedOrigins (a host and port are more specific than the allowlist's schemes,
// so they win over it).
func (b *Browser) blocklist() []any {
	l := []any{"*"}
	for _, s := range internalSchemes {
		l = append(l, s+"://*")
	}
	for _, o := range b.opts.BlockedOrigins {
		l = append(l, o)
	}
	return l
}

// allowlist is the URLAllowlist of the browser: allowedURLs, and file: when the session
// allows it.
func (b *Browser) allowlist() []any {
	var l []any
	for _, u := range allowedURLs {
		l = append(l, u)
	}
	if b.opts.AllowFileURLs {
		l = append(l, "file://*")
	}
	return l
}

// writeProfilePolicy merges the blocklist and the download directory into the
// profile's Preferences, and into its Local State that no file selection dialog
// opens (Chromium keeps every other key it wrote in either).
func (b *Browser) writeProfilePolicy() error {
	dir := filepath.Join(b.opts.ProfileDir, "Default")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return werr.Wrap(err, werr.Internal, "cannot create the browser profile")
	}
	err := mergePrefs(filepath.Join(dir, "Preferences"), func(section func(string) map[string]any) {
		section("policy")["url_blocklist"] = b.blocklist()
		section("policy")["url_allowlist"] = b.allowlist()
		dl := section("download")
		dl["default_directory"] = b.opts.DownloadDir
		dl["prompt_for_download"] = false
		dl["directory_upgrade"] = true
		section("savefile")["default_directory"] = b.opts.DownloadDir
		// A permission a page asks for is refused at once: the browser would ask in a
		// bubble of its own, which no browser tool answers, and the page waited on it for
		// ever (a branch finder's "Locating…"); a camera or microphone is not the
		// session's to give.
		p := section("profile")
		cs, _ := p["default_content_setting_values"].(map[string]any)
		if cs == nil {
			cs = map[string]any{}
			p["default_content_setting_values"] = cs
		}
		for _, k := range refusedPermissions {
			cs[k] = contentSettingBlock
		}
	})
	if err != nil {
		return err
	}
	// The AllowFileSelectionDialogs policy's preference: the system's file chooser would let
	// whoever drives the desktop pick any file the browser may read (its profile's Cookies,
	// the desktop's X authority) for a page, or save one over them, from a file input the
	// host intercepts nothing of (one in a cross-site frame), Open File, Save Page As or
	// the print preview. The host's own file tools take the intercepted chooser, before it.
	return mergePrefs(filepath.Join(b.opts.ProfileDir, "Local State"), func(section func(string) map[string]any) {
		section("select_file_dialogs")["allowed"] = false
	})
}

// refusedPermissions are the content settings whose prompt the browser never shows
// (writeProfilePolicy).
var refusedPermissions = []string{"geolocation", "notifications", "media_stream_camera", "media_stream_mic"}

// contentSettingBlock is Chromium's CONTENT_SETTING_BLOCK.
const contentSettingBlock = 2

// mergePrefs applies set to the JSON preferences file path (a missing or torn one is
// empty) and replaces the file by a rename. set's section gives a top-level object,
// made when missing.
func mergePrefs(path string, set func(section func(string) map[string]any)) error {
	prefs := map[string]any{}
	data, err := os.ReadFile(path)
	switch {
	case err == nil:
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber() // Chromium's numbers come back as they were
		if dec.Decode(&prefs) != nil || prefs == nil {
			prefs = map[string]any{} // a torn file: Chromium would start afresh too
		}
	case !errors.Is(err, fs.ErrNotExist):
		return werr.Wrap(err, werr.Internal, "cannot read the browser preferences")
	}
	set(func(name string) map[string]any {
		m, ok := prefs[name].(map[string]any)
		if !ok {
			m = map[string]any{}
			prefs[name] = m
		}
		return m
	})
	out, err := json.Marshal(prefs)
	if err != nil {
		return werr.Wrap(err, werr.Internal, "cannot write the browser preferences")
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".w365-prefs-")
	if err != nil {
		return werr.Wrap(err, werr.Internal, "cannot write the browser preferences")
	}
	_, werr1 := tmp.Write(out)
	if err := errors.Join(werr1, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return werr.Wrap(err, werr.Internal, "cannot write the browser preferences")
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return werr.Wrap(err, werr.Internal, "cannot write the browser preferences")
	}
	return nil
}
