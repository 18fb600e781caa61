package snapshot

import "testing"

func TestRefOf(t *testing.T) {
	for target, want := range map[string]string{
		"e5": "e5", "ref=e12": "e12", "e0": "e0",
		"e": "", "ref=": "", "ref=e": "", "e5a": "", "E5": "", "#e5": "", "e-1": "", "e٣": "", "button.e5": "", "": "",
	} {
		if got := RefOf(target); got != want {
			t.Errorf("RefOf(%q) = %q, want %q", target, got, want)
		}
	}
}
