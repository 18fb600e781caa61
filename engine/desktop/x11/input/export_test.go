//go:build linux

package input

// TypeChunk is typeChunk, for the tests of package input_test.
const TypeChunk = typeChunk
