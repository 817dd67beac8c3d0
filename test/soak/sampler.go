package soak

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/internal/etcd"
)

// Sample is the soak's figures at one moment: the chain process as /proc and its /metrics see
// it, etcd's, and the latencies of the requests since the sample before.
type Sample struct {
	At time.Duration
	// Start numbers the chain process (1 for the first start, 2 after the first restart...);
	// Up is false if it could not be read (it was down).
	Start int
	Up    bool

	RSS, Heap, ChildRSS float64 // MiB: the chain's, its Go heap in use, the metrics server's
	// RSSAnon and RSSFile split RSS (MiB): the process's own pages, and mapped files' (etcd's
	// database file among them). HeapLive is the heap the last GC found reachable (MiB): Heap
	// swings between collections, HeapLive is what the chain holds.
	RSSAnon, RSSFile, HeapLive float64
	// Objects counts what the API servers store (apiserver_resource_objects, all resources),
	// Events the Events among them: data that grows is not a leak.
	Objects, Events int
	Goroutines, FDs int
	Threads         int
	// EtcdDB is etcd's database file, EtcdDBInUse the part of it holding data, EtcdDisk all of
	// etcd's files (WAL, snapshots and database), all in MiB; CompactRev etcd's last compaction.
	EtcdDB, EtcdDBInUse, EtcdDisk float64
	CompactRev                    int64
	// Compactions counts the compactions etcd has done since this chain process started.
	Compactions int64

	// Requests is how many were answered since the sample before; P99 of each verb among them.
	Requests int
	P50, P99 map[string]time.Duration
}

// Sampler takes a Sample every Every.
type Sampler struct {
	Every    time.Duration
	DataDir  string
	Recorder *Recorder
	// Metrics reads the chain's /metrics (an admin client).
	Metrics rest.Interface
	// Process says which chain process is running (start count, pid; 0 while it is down).
	Process func() (int, int)
	// OnCompaction is told when etcd's compaction revision moves.
	OnCompaction func(rev int64)
	// HeapProfiles, if set, saves the chain's heap profile (/debug/pprof/heap) into ProfileDir
	// at about every such interval, as heap-<start>-<minutes>m.pb.gz: what a rising Go heap
	// is made of, compared with `go tool pprof -base`.
	HeapProfiles time.Duration
	ProfileDir   string

	samples list[Sample]
}

// Run samples until ctx is done.
func (s *Sampler) Run(ctx context.Context) {
	t := time.NewTicker(s.Every)
	defer t.Stop()
	var lastCompact int64
	var lastProfile time.Duration
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		sm := s.take(ctx)
		if ctx.Err() != nil {
			return // taken while the soak ended: its reads were cut short
		}
		if s.HeapProfiles > 0 && sm.Up && sm.At-lastProfile >= s.HeapProfiles {
			lastProfile = sm.At
			s.saveHeapProfile(ctx, sm)
		}
		if sm.CompactRev > 0 && sm.CompactRev != lastCompact {
			lastCompact = sm.CompactRev
			if s.OnCompaction != nil {
				s.OnCompaction(sm.CompactRev)
			}
		}
		s.samples.add(sm)
	}
}

// saveHeapProfile writes the chain's heap profile beside the report; a profile that cannot be
// read (the chain is restarting) is skipped, not an error of the run.
func (s *Sampler) saveHeapProfile(ctx context.Context, sm Sample) {
	b, err := s.Metrics.Get().AbsPath("/debug/pprof/heap").DoRaw(ctx)
	if err != nil {
		return
	}
	name := fmt.Sprintf("heap-%d-%03.0fm.pb.gz", sm.Start, sm.At.Minutes())
	_ = os.WriteFile(filepath.Join(s.ProfileDir, name), b, 0o644)
}

// Once takes a sample now, out of turn: the last one, at the end of the run.
func (s *Sampler) Once(ctx context.Context) { s.samples.add(s.take(ctx)) }

// Samples are the samples taken so far.
func (s *Sampler) Samples() []Sample { return s.samples.all() }

// list is a list that goroutines add to while others read copies of it.
type list[T any] struct {
	mu    sync.Mutex
	items []T
}

func (l *list[T]) add(v T) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.items = append(l.items, v)
}

func (l *list[T]) all() []T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]T(nil), l.items...)
}

func (s *Sampler) take(ctx context.Context) Sample {
	sm := Sample{At: s.Recorder.Since(), P50: map[string]time.Duration{}, P99: map[string]time.Duration{}}
	for verb, lat := range s.Recorder.Window() {
		slices.Sort(lat)
		sm.Requests += len(lat)
		sm.P50[verb], sm.P99[verb] = Percentile(lat, 50), Percentile(lat, 99)
	}
	start, pid := s.Process()
	sm.Start = start
	if pid == 0 {
		return sm
	}
	p, err := ReadProc(pid)
	if err != nil {
		return sm
	}
	sm.RSS, sm.FDs, sm.Threads = mib(p.RSSBytes), p.FDs, p.Threads
	sm.RSSAnon, sm.RSSFile = mib(p.AnonBytes), mib(p.FileBytes)
	if children := Children(pid); len(children) > 0 {
		if c, err := ReadProc(children[0]); err == nil {
			sm.ChildRSS = mib(c.RSSBytes)
		}
	}
	// Each read has its own time: on a busy machine the chain's /metrics (a few hundred kB)
	// may take seconds.
	metricsCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if body, err := s.Metrics.Get().AbsPath("/metrics").DoRaw(metricsCtx); err == nil {
		m := parseMetrics(body)
		sm.Goroutines = int(m["go_goroutines"])
		sm.Heap = mib(int64(m["go_memstats_heap_alloc_bytes"]))
		sm.HeapLive = mib(int64(m["go_gc_heap_live_bytes"]))
		sm.Objects, sm.Events = storedObjects(body)
		sm.Up = true
	}
	etcdCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if m, err := etcdMetrics(etcdCtx, s.DataDir); err == nil {
		sm.EtcdDB = mib(int64(m["etcd_mvcc_db_total_size_in_bytes"]))
		sm.EtcdDBInUse = mib(int64(m["etcd_mvcc_db_total_size_in_use_in_bytes"]))
		sm.CompactRev = int64(m["etcd_debugging_mvcc_compact_revision"])
		sm.Compactions = int64(m["etcd_debugging_mvcc_db_compaction_total_duration_milliseconds_count"])
	}
	sm.EtcdDisk = mib(DirBytes(filepath.Join(s.DataDir, "etcd")))
	return sm
}

// parseMetrics reads the unlabelled series of a Prometheus text exposition.
func parseMetrics(body []byte) map[string]float64 {
	out := map[string]float64{}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok || strings.HasPrefix(name, "#") || strings.Contains(name, "{") {
			continue
		}
		if f, err := strconv.ParseFloat(strings.TrimSpace(value), 64); err == nil {
			out[name] = f
		}
	}
	return out
}

// storedObjects sums apiserver_resource_objects over all resources, and gives the Events'
// (core and events.k8s.io share one count) apart.
func storedObjects(body []byte) (all, events int) {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		series, value, ok := strings.Cut(sc.Text(), "} ")
		if !ok || !strings.HasPrefix(series, "apiserver_resource_objects{") {
			continue
		}
		n, err := strconv.ParseFloat(strings.TrimSpace(value), 64)
		if err != nil || n < 0 { // -1: not counted yet
			continue
		}
		all += int(n)
		if strings.Contains(series, `resource="events"`) {
			events += int(n)
		}
	}
	return all, events
}

// etcdMetrics reads the embedded etcd's /metrics on its unix socket (named in the data dir).
func etcdMetrics(ctx context.Context, dataDir string) (map[string]float64, error) {
	endpoints, err := etcd.ReadEndpoints(dataDir)
	if err != nil {
		return nil, err
	}
	socket, ok := strings.CutPrefix(endpoints[0], "unix://")
	if !ok {
		return nil, fmt.Errorf("etcd is not embedded: %s", endpoints[0])
	}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
		return (&net.Dialer{}).DialContext(ctx, "unix", socket)
	}}}
	defer client.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://etcd/metrics", nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		return nil, err
	}
	return parseMetrics(b.Bytes()), nil
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }
