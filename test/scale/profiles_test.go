package scale

import (
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/pprof"
	"os"
	"path/filepath"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// TestProfiles takes profiles from Go's own pprof handlers, as the chain serves them: a CPU
// step covered by one-second chunks until it ends, and a heap profile; and an error from a
// server that serves none.
func TestProfiles(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.Handle("/debug/pprof/heap", pprof.Handler("heap"))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	ctx := context.Background()

	dir := t.TempDir()
	p := &Profiles{Client: restClient(t, srv.URL), Dir: dir, Chunk: time.Second}
	end := p.CPU(ctx, "step")
	// End it once the first chunk is saved; a second may be under way, a third is not.
	first := filepath.Join(dir, "cpu-step-00.pb.gz")
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, time.Minute, true, func(context.Context) (bool, error) {
		_, err := os.Stat(first)
		return err == nil, nil
	}); err != nil {
		t.Fatalf("no first chunk: %v", err)
	}
	if err := end(); err != nil {
		t.Fatal(err)
	}
	if err := isProfile(first); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "cpu-step-02.pb.gz")); err == nil {
		t.Error("a chunk started after the step ended")
	}
	if err := p.Heap(ctx, "now"); err != nil {
		t.Fatal(err)
	}
	if err := isProfile(filepath.Join(dir, "heap-now.pb.gz")); err != nil {
		t.Error(err)
	}

	none := httptest.NewServer(http.NotFoundHandler())
	defer none.Close()
	p = &Profiles{Client: restClient(t, none.URL), Dir: t.TempDir(), Chunk: time.Second}
	if err := p.CPU(ctx, "step")(); err == nil {
		t.Error("no error from a server without /debug/pprof/profile")
	}
	if err := p.Heap(ctx, "now"); err == nil {
		t.Error("no error from a server without /debug/pprof/heap")
	}
}

func restClient(t *testing.T, url string) rest.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: url})
	if err != nil {
		t.Fatal(err)
	}
	return cs.Discovery().RESTClient()
}

// isProfile says why name is not a pprof profile: one is a gzipped protocol buffer, not empty.
func isProfile(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	n, err := io.Copy(io.Discard, z)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if n == 0 {
		return fmt.Errorf("%s: empty", name)
	}
	return nil
}
