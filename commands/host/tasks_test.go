package host

import (
	"context"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A task is its owner's only, and a cancelled one ends cancelled with no result.
func TestTaskIsItsOwnersAndCancels(t *testing.T) {
	var st taskStore
	ended := make(chan struct{})
	first := st.start(context.Background(), "alice", "w365-0.", func(ctx context.Context) (mcp.Result, error) {
		<-ctx.Done()
		close(ended)
		return &mcp.CallToolResult{}, nil
	})
	if first.ResultType != "task" || first.Status != taskWorking || first.TTLMs != nil || first.TaskID[:9] != "w365-0.t-" {
		t.Fatalf("first state %+v", first)
	}
	ctx := context.WithValue(context.Background(), taskOwnerKey{}, "bob")
	st.mu.Lock()
	_, err := st.lookup(ctx, &TaskParams{TaskID: first.TaskID})
	st.mu.Unlock()
	if err == nil {
		t.Fatal("bob found alice's task")
	}
	st.mu.Lock()
	tk, err := st.lookup(context.WithValue(context.Background(), taskOwnerKey{}, "alice"), &TaskParams{TaskID: first.TaskID})
	if err == nil {
		tk.stop()
	}
	st.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	<-ended
	for {
		st.mu.Lock()
		w := tk.wire("complete")
		st.mu.Unlock()
		if w.Status != taskWorking {
			if w.Status != taskCancelled || w.Result != nil || w.TTLMs == nil {
				t.Fatalf("after cancel: %+v", w)
			}
			return
		}
		time.Sleep(time.Millisecond)
	}
}

// Past taskKept finished tasks the oldest go; working ones stay.
func TestTaskStoreKeepsABoundedNumberOfFinishedTasks(t *testing.T) {
	st := taskStore{byID: map[string]*task{}}
	now := time.Now()
	for i := range taskKept + 10 {
		id := string(rune('a'+i%26)) + time.Duration(i).String()
		st.byID[id] = &task{id: id, status: taskCompleted, updated: now.Add(time.Duration(i) * time.Millisecond)}
	}
	st.byID["w"] = &task{id: "w", status: taskWorking, updated: now.Add(-time.Hour)}
	st.byID["old"] = &task{id: "old", status: taskCompleted, updated: now.Add(-taskTTL - time.Minute)}
	st.pruneLocked(now.Add(time.Second))
	if len(st.byID) != taskKept+1 || st.byID["w"] == nil || st.byID["old"] != nil {
		t.Fatalf("%d tasks kept, working %v, expired %v", len(st.byID), st.byID["w"] != nil, st.byID["old"] != nil)
	}
	for _, tk := range st.byID {
		if tk.status == taskCompleted && tk.updated.Before(now.Add(10*time.Millisecond)) {
			t.Fatalf("an oldest task stayed: %+v", tk)
		}
	}
}
