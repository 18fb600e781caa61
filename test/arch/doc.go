// Package arch holds the test that makes the layout of the design executable: which
// packages may import which, what the Windows and macOS builds link, where platform
// code may live and what engine packages are called. It has no code of its own.
package arch
