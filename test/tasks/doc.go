// Package tasks is an agent-task suite: a scripted agent that decides every action only
// from what the tools returned (no coordinates, refs, titles or selectors it did not read
// from an observation), on real Debian applications and on local pages
// (testdata/tasks/pages), each end state checked from outside: the file on disk, the form
// the page's server received, what the application printed. It drives the built binary
// over MCP (serve --mcp) as an agent would. `make test` runs the fast subset (go test);
// `make bench` runs every task with -tasks.all and prints tasks finished, calls, bytes and
// time per task, the browser tasks side by side with playwright-mcp (pinned in
// testdata/bench/peers). It has no code of its own outside its tests.
package tasks
