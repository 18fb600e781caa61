package desktop

// TitlesByPID maps each process to the title of its top-most window in ws (in the
// order Windows.List returns them, top-most first), for process listings.
func TitlesByPID(ws []Window) map[int]string {
	out := map[int]string{}
	for _, w := range ws {
		if _, ok := out[w.PID]; !ok && w.PID > 0 && w.Title != "" {
			out[w.PID] = w.Title
		}
	}
	return out
}
