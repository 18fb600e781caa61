package snapshot

import "golang.org/x/sys/windows"

// freeBytes is the space the caller has left on dir's volume.
func freeBytes(dir string) (int64, bool) {
	p, err := windows.UTF16PtrFromString(dir)
	if err != nil {
		return 0, false
	}
	var free uint64
	if windows.GetDiskFreeSpaceEx(p, &free, nil, nil) != nil {
		return 0, false
	}
	return int64(free), true
}
