// Package a11y reads the accessibility tree of a desktop's foreground window and reports
// it with UI Automation control-type names and screen coordinates: on Linux from AT-SPI2
// over D-Bus (a11y.go, walk.go, batch.go, peer.go, foreground.go, x11.go), on Windows from
// UI Automation itself through COM (uia_windows.go, com_windows.go). Limits, role names
// and the ranking of Find's matches are shared (find.go, uia.go).
package a11y
