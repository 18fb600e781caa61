//go:build !windows

package policy

// defaultLaunchDirs is empty on Linux and other Unix systems: launch_application starts
// the applications of the system's desktop entries (and the policy's launchApplications),
// never a program because of the directory it lies in.
func defaultLaunchDirs() []string { return nil }
