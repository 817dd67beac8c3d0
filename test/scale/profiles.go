package scale

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"k8s.io/client-go/rest"
)

// Profiles saves a server's pprof profiles into Dir while the workload runs: its CPU over a
// step, and its heap at a moment. The server must serve /debug/pprof to Client (the chain
// does, to an admin).
type Profiles struct {
	Client rest.Interface
	Dir    string
	// Chunk is the length of one CPU profile: /debug/pprof/profile blocks for the seconds it
	// is asked for and cannot be cut short, so a step of unknown length is covered by
	// consecutive chunks, cpu-<step>-NN.pb.gz; `go tool pprof` merges them when given all.
	// Zero means 5 s.
	Chunk time.Duration
}

// CPU starts profiling the server's CPU for step, and returns what ends it: no chunk starts
// after that, and it waits for the one under way (at most a Chunk more). A step has at least
// one chunk. The first error is returned by the end function.
func (p *Profiles) CPU(ctx context.Context, step string) (end func() error) {
	chunk := p.Chunk
	if chunk <= 0 {
		chunk = 5 * time.Second
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var err error
	wg.Go(func() {
		for i := 0; ; i++ {
			b, e := p.Client.Get().AbsPath("/debug/pprof/profile").
				Param("seconds", strconv.Itoa(int(chunk.Seconds()))).
				Timeout(chunk + time.Minute).DoRaw(ctx)
			if e == nil {
				e = p.write(fmt.Sprintf("cpu-%s-%02d.pb.gz", step, i), b)
			}
			if e != nil {
				err = fmt.Errorf("CPU profile %d of %s: %w", i, step, e)
				return
			}
			select { // checked after a chunk, so that a step has at least one
			case <-stop:
				return
			case <-ctx.Done():
				return
			default:
			}
		}
	})
	return func() error {
		close(stop)
		wg.Wait()
		return err
	}
}

// Heap saves the server's heap profile as heap-<name>.pb.gz. It asks for a garbage
// collection first (gc=1), so that what it shows is what is live, not what awaits collection.
func (p *Profiles) Heap(ctx context.Context, name string) error {
	b, err := p.Client.Get().AbsPath("/debug/pprof/heap").Param("gc", "1").DoRaw(ctx)
	if err != nil {
		return fmt.Errorf("heap profile %s: %w", name, err)
	}
	return p.write("heap-"+name+".pb.gz", b)
}

func (p *Profiles) write(name string, b []byte) error {
	if err := os.MkdirAll(p.Dir, 0o755); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(p.Dir, name), b, 0o644)
}
