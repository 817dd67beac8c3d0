package loop

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// TestRunWaitsForItsWorkers: when the controller stops, Run returns only after the sync in
// hand has returned.
func TestRunWaitsForItsWorkers(t *testing.T) {
	queue := NewQueue("test")
	started, release := make(chan struct{}), make(chan struct{})
	var finished atomic.Bool
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	returned := start(ctx, queue, 2, func(ctx context.Context, key string) error {
		close(started)
		<-release
		finished.Store(true)
		return nil
	})
	queue.Add("a")
	<-started
	stop()
	// Run has seen the end once it shuts the queue down; the worker still holds "a".
	if err := wait.PollUntilContextTimeout(context.Background(), 10*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		return queue.ShuttingDown(), nil
	}); err != nil {
		t.Fatal("Run did not shut its queue down when its context ended")
	}
	select {
	case <-returned:
		t.Fatal("Run returned while a worker was still syncing")
	default:
	}
	close(release)
	<-returned
	if !finished.Load() {
		t.Fatal("Run returned before its worker's sync did")
	}
}

// TestRunRetriesFailedKeys: a key whose sync fails, plainly or marked Retry, comes back until
// its sync succeeds.
func TestRunRetriesFailedKeys(t *testing.T) {
	for name, fail := range map[string]error{
		"error": errors.New("write failed"),
		"Retry": Retry(errors.New("content remains")),
	} {
		t.Run(name, func(t *testing.T) {
			queue := NewQueue("test")
			var calls atomic.Int32
			succeeded := make(chan struct{})
			ctx, stop := context.WithCancel(context.Background())
			returned := start(ctx, queue, 1, func(ctx context.Context, key string) error {
				if calls.Add(1) < 3 {
					return fail
				}
				close(succeeded)
				return nil
			})
			queue.Add("a")
			select {
			case <-succeeded:
			case <-time.After(time.Minute):
				t.Errorf("the key did not come back after failing %d times", calls.Load())
			}
			stop()
			<-returned
			if got := calls.Load(); got != 3 {
				t.Errorf("sync ran %d times, want 3 (two failures, then success)", got)
			}
			if n := queue.NumRequeues("a"); n != 0 {
				t.Errorf("the rate limiter still counts %d failures of a key that succeeded", n)
			}
		})
	}
}

// start runs Run in a goroutine of its own, and returns a channel closed when Run returns.
func start(ctx context.Context, queue Queue, workers int, work func(context.Context, string) error) <-chan struct{} {
	returned := make(chan struct{})
	go func() {
		defer close(returned)
		Run(ctx, queue, workers, work)
	}()
	return returned
}
