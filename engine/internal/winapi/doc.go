//go:build windows

// Package winapi is the engine's one place for the Windows API: every DLL and procedure
// the engine calls that golang.org/x/sys/windows does not wrap, the constants and
// structures they take, and the COM helper (method tables, Release, QueryInterface,
// in-process CoCreateInstance, HRESULT errors) that DXGI capture and UI Automation share.
// Packages that need Windows import it instead of declaring user32 where they call it.
//
// Names are the Windows SDK's (SendInput, SW_RESTORE, MOUSEINPUT, E_NOTIMPL), as in
// golang.org/x/sys/windows, so that each can be looked up in Microsoft's documentation;
// a procedure is the *windows.LazyProc ProcName. Vtable slots are named
// Interface_Method after the C interface order of the SDK (and mingw-w64) headers.
// Loading is lazy: a DLL or procedure the system lacks fails when it is called (or
// Find is asked), not when the program starts.
package winapi
