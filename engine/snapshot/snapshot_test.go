//go:build linux

package snapshot_test

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/w365/w365/engine/snapshot"
	"github.com/w365/w365/engine/werr"
)

// TestSnapshot drives one real Chromium on Xvfb through every page.
func TestSnapshot(t *testing.T) {
	b := launch(t)
	same, cross := serve(t, pagesDir)
	st := snapshot.NewStore()
	framesURL := same + "/snap_frames.html?x=" + cross + "/snap_child.html"

	t.Run("golden", func(t *testing.T) {
		for _, p := range []struct{ name, path string }{
			{"basic", "/snap_basic.html"}, {"shadow", "/snap_shadow.html"}, {"list", "/snap_list.html"}, {"odd", "/snap_odd.html"},
			{"frames", "/snap_frames.html?x=" + cross + "/snap_child.html"},
		} {
			navigate(t, b, same+p.path)
			r := take(t, st, b, snapshot.Options{MaxDepth: 5, IncludeIframes: true})
			golden(t, p.name, r.Text)
			if r.Truncated || r.Note != "" {
				t.Errorf("%s: unexpected note %q", p.name, r.Note)
			}
			if r.Refs == 0 || len(r.Nodes) == 0 {
				t.Errorf("%s: no refs or nodes: %+v", p.name, r)
			}
		}
	})

	t.Run("click", func(t *testing.T) {
		navigate(t, b, same+"/snap_basic.html")
		r := take(t, st, b, snapshot.Options{IncludeIframes: true})
		signin := refOf(t, r.Text, `button "Sign in"`)
		p, err := st.Click(tctx(t), b, r.SnapshotID, signin, snapshot.ClickOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if p.X <= 0 || p.Y <= 0 {
			t.Errorf("coordinates %+v", p)
		}
		waitLog(t, b, "click:signin")
		waitLog(t, b, "submit:ada@example.com")
		if _, err := st.Click(tctx(t), b, r.SnapshotID, signin, snapshot.ClickOptions{Button: "Right"}); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "contextmenu:signin")
		if _, err := st.Click(tctx(t), b, r.SnapshotID, signin, snapshot.ClickOptions{Button: "Middle"}); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "auxclick:1")
		if _, err := st.Click(tctx(t), b, r.SnapshotID, signin, snapshot.ClickOptions{ClickCount: 2}); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "dblclick:signin")
		remember := refOf(t, r.Text, `checkbox "Remember me"`)
		if _, err := st.Click(tctx(t), b, r.SnapshotID, remember, snapshot.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "remember:false")
		r2 := take(t, st, b, snapshot.Options{})
		if !strings.Contains(r2.Text, `- checkbox "Remember me" [ref=`+remember+`]`) {
			t.Errorf("unchecked box (same ref %s) not in:\n%s", remember, r2.Text)
		}
	})

	t.Run("type hover keypress scroll", func(t *testing.T) {
		navigate(t, b, same+"/snap_basic.html")
		r := take(t, st, b, snapshot.Options{})
		email := refOf(t, r.Text, `textbox "Email"`)
		typed, err := st.Type(tctx(t), b, r.SnapshotID, email, "grace@example.org", snapshot.TypeOptions{Clear: true})
		if err != nil || typed.Characters != 17 || typed.Note != "" {
			t.Fatalf("type: %+v, %v", typed, err)
		}
		if v, _ := b.EvalJS(tctx(t), "document.getElementById('email').value"); v.Value != "grace@example.org" {
			t.Errorf("value after clear+type: %q", v.Value)
		}
		if typed, err := st.Type(tctx(t), b, r.SnapshotID, email, "m", snapshot.TypeOptions{Clear: false}); err != nil || typed.Note != "" {
			t.Fatal(typed, err)
		}
		if v, _ := b.EvalJS(tctx(t), "document.getElementById('email').value"); v.Value != "grace@example.orgm" {
			t.Errorf("value after append: %q", v.Value)
		}
		// A field that does not end up holding the text says what it holds; a password
		// field only how long it is.
		b.EvalJS(tctx(t), "document.getElementById('email').maxLength = 5")
		if typed, err := st.Type(tctx(t), b, r.SnapshotID, email, "grace@example.org", snapshot.TypeOptions{Clear: true}); err != nil || typed.Note != `the field holds "grace", not the text typed` {
			t.Errorf("type into a field of maxlength 5: %+v, %v", typed, err)
		}
		b.EvalJS(tctx(t), "document.getElementById('email').type = 'password'")
		if typed, err := st.Type(tctx(t), b, r.SnapshotID, email, "grace@example.org", snapshot.TypeOptions{Clear: true}); err != nil || typed.Note != "the field holds 5 characters, not the 17 typed" {
			t.Errorf("type into a password field of maxlength 5: %+v, %v", typed, err)
		}
		b.EvalJS(tctx(t), "const e = document.getElementById('email'); e.type = 'email'; e.removeAttribute('maxlength'); e.value = 'grace@example.orgm'")
		if _, err := st.Keypress(tctx(t), b, r.SnapshotID, email, "a", []string{"Ctrl"}); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "keydown:a+ctrl")
		if _, err := st.Keypress(tctx(t), b, r.SnapshotID, email, "Escape", nil); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "keydown:Escape")
		if _, err := st.Keypress(tctx(t), b, r.SnapshotID, email, "Enter", nil); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "submit:grace@example.orgm")
		_, err = st.Keypress(tctx(t), b, r.SnapshotID, email, "NoSuchKey", nil)
		wantCode(t, err, werr.InvalidArgument)

		menu := refOf(t, r.Text, `button "Menu"`)
		if p, err := st.Hover(tctx(t), b, r.SnapshotID, menu); err != nil || p.X <= 0 {
			t.Fatalf("hover: %+v %v", p, err)
		}
		waitLog(t, b, "hover:menu")

		box := refOf(t, r.Text, `region "Scroll box"`)
		sr, err := st.Scroll(tctx(t), b, r.SnapshotID, box, 0, 200)
		if err != nil {
			t.Fatal(err)
		}
		if sr.ScrollTop <= 0 {
			t.Errorf("scrollTop after scroll: %+v", sr)
		}
		log := pageLog(t, b)
		if !slices.ContainsFunc(log, func(s string) bool { return strings.HasPrefix(s, "scroll:") }) {
			t.Errorf("the page saw no scroll: %q", log)
		}
		wantCode(t, func() error {
			_, err := st.Type(tctx(t), b, r.SnapshotID, box, "x", snapshot.TypeOptions{Clear: true})
			return err
		}(), werr.InvalidArgument)
	})

	t.Run("page scripts cannot reach the registry", func(t *testing.T) {
		navigate(t, b, same+"/snap_list.html")
		r := take(t, st, b, snapshot.Options{})
		if v, _ := b.EvalJS(tctx(t), "typeof window[Symbol.for('w365.refs')]"); v.Value != "undefined" {
			t.Errorf("the page sees the registry: %q", v.Value)
		}
		// A page that plants its own registry cannot redirect refs.
		b.EvalJS(tctx(t), `(() => { const b = document.querySelectorAll('#list button')[2];
			window[Symbol.for('w365.refs')] = {els: {get: () => ({deref: () => b})}, ids: new WeakMap(), next: 0}; return 1; })()`)
		if _, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, "Done Alpha"), snapshot.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		if log := waitLog(t, b, "done:Alpha"); slices.Contains(log, "done:Gamma") {
			t.Errorf("the planted registry redirected the click: %q", log)
		}
	})

	t.Run("shadow dom", func(t *testing.T) {
		navigate(t, b, same+"/snap_shadow.html")
		r := take(t, st, b, snapshot.Options{})
		if _, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, "Shadow button"), snapshot.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "click:shadow")
		if _, err := st.Type(tctx(t), b, r.SnapshotID, refOf(t, r.Text, "Shadow input"), "hi", snapshot.TypeOptions{Clear: true}); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "input:hi")
	})

	t.Run("iframes", func(t *testing.T) {
		navigate(t, b, framesURL)
		r := take(t, st, b, snapshot.Options{IncludeIframes: true})
		lines := regexp.MustCompile(`button "Child button" \[ref=(e\d+)\]`).FindAllStringSubmatch(r.Text, -1)
		if len(lines) != 2 || lines[0][1] == lines[1][1] {
			t.Fatalf("want two distinct child button refs:\n%s", r.Text)
		}
		sameRef, crossRef := lines[0][1], lines[1][1]
		if r.Frames != 3 {
			t.Errorf("frames: %d, want 3", r.Frames)
		}
		rt, _ := st.Resolve(r.SnapshotID, crossRef)
		if len(rt.Targets) != 1 {
			t.Errorf("the cross-origin iframe did not run in its own target: %+v", rt)
		}
		if rt, _ := st.Resolve(r.SnapshotID, sameRef); len(rt.Targets) != 0 {
			t.Errorf("the same-origin iframe ran in its own target: %+v", rt)
		}
		if _, err := st.Click(tctx(t), b, r.SnapshotID, sameRef, snapshot.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "same click:Child button")
		if _, err := st.Click(tctx(t), b, r.SnapshotID, crossRef, snapshot.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "cross click:Child button")
		inputs := regexp.MustCompile(`textbox "Child input" \[ref=(e\d+)\]`).FindAllStringSubmatch(r.Text, -1)
		if _, err := st.Type(tctx(t), b, r.SnapshotID, inputs[1][1], "over there", snapshot.TypeOptions{Clear: true}); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "cross input:over there")
		if _, err := st.Type(tctx(t), b, r.SnapshotID, inputs[0][1], "here", snapshot.TypeOptions{Clear: true}); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "same input:here")

		// Refs stay the same in a second snapshot, iframes included.
		r2 := take(t, st, b, snapshot.Options{IncludeIframes: true})
		if !strings.Contains(r2.Text, "[ref="+crossRef+"]") || !strings.Contains(r2.Text, "[ref="+sameRef+"]") {
			t.Errorf("iframe refs changed:\n%s\n---\n%s", r.Text, r2.Text)
		}
		// Without iframes.
		r3 := take(t, st, b, snapshot.Options{IncludeIframes: false})
		if strings.Contains(r3.Text, "Child button") || r3.Frames != 1 {
			t.Errorf("iframes included:\n%s", r3.Text)
		}
		// A subtree inside the cross-origin iframe.
		iframes := regexp.MustCompile(`iframe "Cross origin" \[ref=(e\d+)\]`).FindStringSubmatch(r.Text)
		sub := take(t, st, b, snapshot.Options{Target: iframes[1], IncludeIframes: true})
		if !strings.Contains(sub.Text, "Child button") || strings.Contains(sub.Text, "Top button") {
			t.Errorf("subtree of the iframe:\n%s", sub.Text)
		}
		// Navigating the cross-origin iframe expires its refs only.
		if _, err := b.EvalJS(tctx(t), `document.getElementById('cross').src = document.getElementById('cross').src + '?again'; 1`); err != nil {
			t.Fatal(err)
		}
		deadline := 50
		for ; deadline > 0; deadline-- {
			_, err := st.Hover(tctx(t), b, r.SnapshotID, crossRef)
			if werr.CodeOf(err) == werr.SnapshotExpired {
				break
			}
			b.EvalJS(tctx(t), "new Promise(r => setTimeout(r, 100))")
		}
		if deadline == 0 {
			t.Errorf("the ref in the navigated iframe did not expire")
		}
		if _, err := st.Hover(tctx(t), b, r.SnapshotID, sameRef); err != nil {
			t.Errorf("the same-origin iframe's ref died with the other iframe: %v", err)
		}
	})

	t.Run("iframe that failed to load", func(t *testing.T) {
		// Port 1 refuses the connection: Chromium shows its error page in the frame.
		navigate(t, b, same+"/snap_frames.html?x=http://127.0.0.1:1/")
		for i := range 2 { // the second time the failed frame is known
			r := take(t, st, b, snapshot.Options{IncludeIframes: true})
			if n := strings.Count(r.Text, `button "Child button"`); n != 1 || r.Frames != 2 {
				t.Fatalf("snapshot %d: %d child buttons, %d frames (want 1 and 2: the failed frame adds nothing):\n%s", i, n, r.Frames, r.Text)
			}
			if strings.Contains(r.Text, "might be temporarily down") || !strings.Contains(r.Text, "- text: (this frame failed to load http://127.0.0.1:1/)") {
				t.Fatalf("snapshot %d shows the error page, or does not say the frame failed:\n%s", i, r.Text)
			}
		}
		// The frame navigates to a page that loads: it is read again.
		if _, err := b.EvalJS(tctx(t), `document.getElementById('cross').src = '`+cross+`/snap_child.html'; 1`); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(10 * time.Second); ; {
			r := take(t, st, b, snapshot.Options{IncludeIframes: true})
			if strings.Count(r.Text, `button "Child button"`) == 2 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("the frame that loaded after failing is not read:\n%s", r.Text)
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	t.Run("overlay", func(t *testing.T) {
		navigate(t, b, same+"/snap_overlay.html")
		r := take(t, st, b, snapshot.Options{})
		under := refOf(t, r.Text, "Covered button")
		_, err := st.Click(tctx(t), b, r.SnapshotID, under, snapshot.ClickOptions{})
		we := wantCode(t, err, werr.Obscured)
		if !strings.Contains(we.Message, "div#overlay.modal-backdrop") {
			t.Errorf("the error does not name the overlay: %v", we)
		}
		_, err = st.Hover(tctx(t), b, r.SnapshotID, under)
		wantCode(t, err, werr.Obscured)
		if log := pageLog(t, b); len(log) != 0 {
			t.Errorf("something was clicked: %q", log)
		}
	})

	t.Run("list re-render", func(t *testing.T) {
		navigate(t, b, same+"/snap_list.html")
		r := take(t, st, b, snapshot.Options{})
		alpha := refOf(t, r.Text, "Done Alpha")
		if _, err := st.Click(tctx(t), b, r.SnapshotID, refOf(t, r.Text, "Add item"), snapshot.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		r2 := take(t, st, b, snapshot.Options{})
		if refOf(t, r2.Text, "Done Alpha") != alpha {
			t.Errorf("ref of an unchanged node changed:\n%s\n---\n%s", r.Text, r2.Text)
		}
		if n := refOf(t, r2.Text, "Done Item3"); n == alpha || strings.Contains(r.Text, "[ref="+n+"]") {
			t.Errorf("new node reuses a ref: %s", n)
		}
		if _, err := st.Click(tctx(t), b, r2.SnapshotID, refOf(t, r2.Text, "Re-render"), snapshot.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		// The old button is gone: the ref expires and nothing else is clicked.
		_, err := st.Click(tctx(t), b, r2.SnapshotID, alpha, snapshot.ClickOptions{})
		wantCode(t, err, werr.SnapshotExpired)
		if slices.Contains(pageLog(t, b), "done:Alpha") {
			t.Error("a stale ref clicked the new button")
		}
		r3 := take(t, st, b, snapshot.Options{})
		if a3 := refOf(t, r3.Text, "Done Alpha"); a3 == alpha {
			t.Errorf("a re-rendered node kept the dead node's ref")
		} else if _, err := st.Click(tctx(t), b, r3.SnapshotID, a3, snapshot.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "done:Alpha")
	})

	t.Run("file input", func(t *testing.T) {
		navigate(t, b, same+"/snap_files.html")
		r := take(t, st, b, snapshot.Options{})
		up := refOf(t, r.Text, `button "Attachment"`)
		dir := t.TempDir()
		f := filepath.Join(dir, "hello.txt")
		os.WriteFile(f, []byte("hello world"), 0o644)
		stage := t.TempDir()
		paths, err := snapshot.StageFiles([]string{f}, stage, []string{dir}, func(string) bool { return false })
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(paths[0], stage) || filepath.Base(paths[0]) != "hello.txt" {
			t.Errorf("the file is not staged as a copy: %s", paths[0])
		}
		if _, err := st.SetFiles(tctx(t), b, r.SnapshotID, up, paths); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "files:hello.txt/11")
		os.Symlink("/etc/hostname", filepath.Join(dir, "link"))
		os.Symlink(f, filepath.Join(dir, "inner"))
		os.Mkdir(filepath.Join(dir, "sub"), 0o700)
		os.Symlink(filepath.Join(dir, "sub"), filepath.Join(dir, "sublink"))
		os.WriteFile(filepath.Join(dir, "sub", "x.txt"), []byte("x"), 0o644)
		os.WriteFile(filepath.Join(dir, ".hidden"), []byte("x"), 0o644)
		for _, bad := range []string{"/etc/hostname", filepath.Join(dir, "link"), filepath.Join(dir, "inner"),
			filepath.Join(dir, "sublink", "x.txt"), dir + "/../../../etc/hostname", filepath.Join(dir, ".hidden")} {
			_, err := snapshot.StageFiles([]string{bad}, stage, []string{dir}, func(string) bool { return false })
			wantCode(t, err, werr.BlockedByPolicy)
		}
		syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o600)
		_, err = snapshot.StageFiles([]string{filepath.Join(dir, "fifo")}, stage, []string{dir}, func(string) bool { return false })
		wantCode(t, err, werr.InvalidArgument)
		_, err = st.SetFiles(tctx(t), b, r.SnapshotID, up, paths)
		if err != nil {
			t.Fatal(err)
		}
	})

	t.Run("find", func(t *testing.T) {
		navigate(t, b, framesURL)
		fr, err := st.Find(tctx(t), b, snapshot.FindQuery{Role: "button", Name: "child"})
		if err != nil {
			t.Fatal(err)
		}
		if fr.Total != 2 || len(fr.Matches) != 2 {
			t.Fatalf("find: %+v", fr)
		}
		if _, err := st.Click(tctx(t), b, fr.SnapshotID, fr.Matches[1].Ref, snapshot.ClickOptions{}); err != nil {
			t.Fatal(err)
		}
		waitLog(t, b, "cross click:Child button")
		navigate(t, b, same+"/snap_list.html")
		fr, _ = st.Find(tctx(t), b, snapshot.FindQuery{Regex: `^Done (Beta|Gamma)$`})
		if fr.Total != 2 {
			t.Errorf("regex find: %+v", fr)
		}
		fr, _ = st.Find(tctx(t), b, snapshot.FindQuery{Text: "todo"})
		if fr.Total != 1 || fr.Matches[0].Role != "heading" {
			t.Errorf("text find: %+v", fr)
		}
		_, err = st.Find(tctx(t), b, snapshot.FindQuery{})
		wantCode(t, err, werr.InvalidArgument)
	})

	t.Run("caps and subtree", func(t *testing.T) {
		navigate(t, b, same+"/snap_big.html")
		r := take(t, st, b, snapshot.Options{MaxChars: 2000})
		if !r.Truncated || len(r.Text) > 2000 || !strings.Contains(r.Note, "target") || !strings.Contains(r.Note, "browser_find") {
			t.Errorf("cap: truncated=%v len=%d note=%q", r.Truncated, len(r.Text), r.Note)
		}
		r = take(t, st, b, snapshot.Options{MaxDepth: 1})
		if r.DepthLimited == 0 || !strings.Contains(r.Note, "maxDepth") {
			t.Errorf("depth: %d %q", r.DepthLimited, r.Note)
		}
		navigate(t, b, same+"/snap_basic.html")
		sub := take(t, st, b, snapshot.Options{Target: "form"})
		if !strings.HasPrefix(sub.Text, "- form:") || strings.Contains(sub.Text, "Details") {
			t.Errorf("selector subtree:\n%s", sub.Text)
		}
		_, err := st.Take(tctx(t), b, snapshot.Options{Target: "#nope"})
		wantCode(t, err, werr.NotFound)
		_, err = st.Take(tctx(t), b, snapshot.Options{MaxDepth: 11})
		wantCode(t, err, werr.InvalidArgument)
	})

	t.Run("navigation expires every ref", func(t *testing.T) {
		navigate(t, b, same+"/snap_basic.html")
		r := take(t, st, b, snapshot.Options{})
		refs := regexp.MustCompile(`\[ref=(e\d+)\]`).FindAllStringSubmatch(r.Text, -1)
		navigate(t, b, same+"/snap_second.html")
		for _, m := range refs {
			_, err := st.Click(tctx(t), b, r.SnapshotID, m[1], snapshot.ClickOptions{})
			we := wantCode(t, err, werr.SnapshotExpired)
			if !we.Retryable || !strings.Contains(we.Hint, "new snapshot") {
				t.Errorf("%s: %+v", m[1], we)
			}
		}
		_, err := st.Type(tctx(t), b, r.SnapshotID, refs[0][1], "x", snapshot.TypeOptions{Clear: true})
		wantCode(t, err, werr.SnapshotExpired)
		_, err = st.Click(tctx(t), b, "nosuch-1", "e1", snapshot.ClickOptions{})
		wantCode(t, err, werr.SnapshotExpired)
		// Same URL, new document: still expired.
		navigate(t, b, same+"/snap_basic.html")
		_, err = st.Hover(tctx(t), b, r.SnapshotID, refs[0][1])
		wantCode(t, err, werr.SnapshotExpired)
		if log := pageLog(t, b); len(log) != 0 {
			t.Errorf("a stale ref acted on the new document: %q", log)
		}
	})
}

// Without site isolation a cross-origin iframe runs in the page's renderer:
// it is walked and acted on through the tab's own session.
func TestCrossOriginIframeInProcess(t *testing.T) {
	b := launchWith(t, "--disable-site-isolation-trials", "--disable-features=IsolateOrigins,site-per-process")
	same, cross := serve(t, pagesDir)
	st := snapshot.NewStore()
	navigate(t, b, same+"/snap_frames.html?x="+cross+"/snap_child.html")
	r := take(t, st, b, snapshot.Options{IncludeIframes: true})
	buttons := regexp.MustCompile(`button "Child button" \[ref=(e\d+)\]`).FindAllStringSubmatch(r.Text, -1)
	if len(buttons) != 2 || r.Frames != 3 {
		t.Fatalf("frames %d:\n%s", r.Frames, r.Text)
	}
	rt, _ := st.Resolve(r.SnapshotID, buttons[1][1])
	if len(rt.Targets) != 0 {
		t.Fatalf("the cross-origin iframe has its own target although site isolation is off: %+v", rt)
	}
	if _, err := st.Click(tctx(t), b, r.SnapshotID, buttons[1][1], snapshot.ClickOptions{}); err != nil {
		t.Fatal(err)
	}
	waitLog(t, b, "cross click:Child button")
	inputs := regexp.MustCompile(`textbox "Child input" \[ref=(e\d+)\]`).FindAllStringSubmatch(r.Text, -1)
	if _, err := st.Type(tctx(t), b, r.SnapshotID, inputs[1][1], "in process", snapshot.TypeOptions{Clear: true}); err != nil {
		t.Fatal(err)
	}
	waitLog(t, b, "cross input:in process")
	r2 := take(t, st, b, snapshot.Options{IncludeIframes: true})
	if !strings.Contains(r2.Text, "[ref="+buttons[1][1]+"]") {
		t.Errorf("ref changed:\n%s", r2.Text)
	}
}
