package chain_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/test/testchain"
)

// TestWatchersUnderLoad: 100 watchers of the ConfigMaps of one namespace, all from the same
// resourceVersion, while 20 writers make 10,000 writes (5,000 creates, each followed by an
// update). Every watcher must see exactly the acknowledged writes, in strictly increasing
// resourceVersion order. A watch resumed from the resourceVersion of the middle write gets
// exactly the writes after it. After etcd is compacted and the chain restarted (a new watch
// cache), a watch or an exact list from that resourceVersion is 410 Gone, as kube-apiserver
// answers.
//
// Everything is on loopback, and every loop ends by itself: the writers after their share,
// the watchers once they have every write or after 10 minutes (a bound for a hung run, far
// above what a loaded 2-core machine needs: the test measures nothing).
func TestWatchersUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("100 watchers × 10,000 writes: skipped with -short")
	}
	const watchers, writers, writes = 100, 20, 10_000
	dir := t.TempDir()
	c, err := testchain.StartIn(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	stopped := false
	defer func() {
		if !stopped {
			c.Stop()
		}
	}()
	cs := fastClient(t, c.Admin)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	const ns = "load"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	start, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}

	// The watchers, each on its own stream, all from the same resourceVersion.
	results := make([]*watchResult, watchers)
	var wg sync.WaitGroup
	for i := range results {
		results[i] = &watchResult{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i].collect(ctx, cs, ns, start.ResourceVersion, writes)
		}()
	}

	// The writers: each creates its ConfigMaps and updates each once, recording the
	// resourceVersion of every acknowledged write.
	began := time.Now()
	acked := make([][]uint64, writers)
	var ww sync.WaitGroup
	for w := range writers {
		ww.Add(1)
		go func() {
			defer ww.Done()
			for i := range writes / writers / 2 {
				cm, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
					ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("w%d-%d", w, i)}, Data: map[string]string{"v": "0"}}, metav1.CreateOptions{})
				if err != nil {
					t.Errorf("create: %v", err)
					return
				}
				acked[w] = append(acked[w], rv(t, cm.ResourceVersion))
				cm.Data["v"] = "1"
				if cm, err = cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
					t.Errorf("update: %v", err)
					return
				}
				acked[w] = append(acked[w], rv(t, cm.ResourceVersion))
			}
		}()
	}
	ww.Wait()
	written := time.Since(began)
	want := slices.Concat(acked...)
	slices.Sort(want)
	if len(want) != writes {
		t.Fatalf("%d writes acknowledged, want %d", len(want), writes)
	}
	wg.Wait()
	delivered := time.Since(began)

	resumes := 0
	for i, r := range results {
		resumes += r.resumes
		if r.err != nil {
			t.Errorf("watcher %d: %v", i, r.err)
			continue
		}
		if !slices.IsSorted(r.rvs) || len(slices.Compact(slices.Clone(r.rvs))) != len(r.rvs) {
			t.Errorf("watcher %d: resourceVersions not strictly increasing", i)
		}
		if !slices.Equal(r.rvs, want) {
			t.Errorf("watcher %d: %d events, want the %d acknowledged writes (first difference at %d)", i, len(r.rvs), len(want), firstDiff(r.rvs, want))
		}
	}
	t.Logf("%d writes by %d writers in %v (%.0f writes/s); %d watchers got all %d events in %v (%.0f events/s delivered); watches the server ended and the watcher resumed: %d",
		writes, writers, written.Round(time.Millisecond), float64(writes)/written.Seconds(), watchers, writes,
		delivered.Round(time.Millisecond), float64(watchers*writes)/delivered.Seconds(), resumes)

	// Resumed from the middle: exactly the writes after it, in order.
	mid := want[writes/2]
	var resumed watchResult
	resumed.collect(ctx, cs, ns, strconv.FormatUint(mid, 10), writes-writes/2-1)
	if resumed.err != nil || !slices.Equal(resumed.rvs, want[writes/2+1:]) {
		t.Errorf("watch resumed from %d: %v, %d events, want the %d writes after it", mid, resumed.err, len(resumed.rvs), writes-writes/2-1)
	}

	// Too old: compact etcd at the last write, as kube-apiserver's compactor does every
	// 5 minutes, and restart the chain so that its watch cache starts after the compaction.
	compactEtcd(t, dir, int64(want[len(want)-1]))
	stopped = true
	if err := c.Stop(); err != nil {
		t.Fatal(err)
	}
	c, err = testchain.StartIn(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()
	cs = fastClient(t, c.Admin)
	w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: strconv.FormatUint(mid, 10)})
	switch {
	case err != nil:
		if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
			t.Errorf("watch from compacted %d: %v, want 410 Gone", mid, err)
		}
	default:
		ev, ok := <-w.ResultChan()
		w.Stop()
		st, isStatus := ev.Object.(*metav1.Status)
		if !ok || ev.Type != watch.Error || !isStatus || st.Code != 410 {
			t.Errorf("watch from compacted %d: first event %v %#v, want an ERROR event with a 410 Status", mid, ev.Type, ev.Object)
		} else {
			t.Logf("watch from compacted %d: ERROR event, 410 %s: %s", mid, st.Reason, st.Message)
		}
	}
	_, err = cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{ResourceVersion: strconv.FormatUint(mid, 10), ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsResourceExpired(err) && !apierrors.IsGone(err) {
		t.Errorf("exact list at compacted %d: %v, want 410 Gone", mid, err)
	} else {
		t.Logf("exact list at compacted %d: %v", mid, err)
	}
}

// watchResult is what one watcher saw: the resourceVersions of its events, in order.
type watchResult struct {
	rvs     []uint64
	resumes int
	err     error
}

// collect watches from rv until it has n events (or ctx ends). If the server ends the watch
// (as kube-apiserver may at any time), it resumes from the last resourceVersion it saw, as
// informers do, and counts the resume.
func (r *watchResult) collect(ctx context.Context, cs kubernetes.Interface, ns, from string, n int) {
	last := from
	for len(r.rvs) < n {
		w, err := cs.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: last})
		if err != nil {
			r.err = fmt.Errorf("watch from %s: %w", last, err)
			return
		}
		for ev := range w.ResultChan() {
			cm, ok := ev.Object.(*corev1.ConfigMap)
			if !ok {
				r.err = fmt.Errorf("after %d events: %s event %#v", len(r.rvs), ev.Type, ev.Object)
				w.Stop()
				return
			}
			v, err := strconv.ParseUint(cm.ResourceVersion, 10, 64)
			if err != nil {
				r.err = err
				w.Stop()
				return
			}
			r.rvs = append(r.rvs, v)
			last = cm.ResourceVersion
			if len(r.rvs) == n {
				break
			}
		}
		w.Stop()
		if ctx.Err() != nil {
			r.err = fmt.Errorf("after %d of %d events: %w", len(r.rvs), n, ctx.Err())
			return
		}
		if len(r.rvs) < n {
			r.resumes++
		}
	}
}

// fastClient is a protobuf client without client-side rate limit, for load.
func fastClient(t *testing.T, admin *rest.Config) kubernetes.Interface {
	t.Helper()
	cfg := rest.CopyConfig(admin)
	cfg.QPS, cfg.Burst = -1, 0
	cfg.ContentType = runtime.ContentTypeProtobuf
	cfg.AcceptContentTypes = runtime.ContentTypeProtobuf
	return kubernetes.NewForConfigOrDie(cfg)
}

// compactEtcd compacts the chain's etcd (its endpoints are in the data dir) at rev.
func compactEtcd(t *testing.T, dataDir string, rev int64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, "etcd-endpoints"))
	if err != nil {
		t.Fatal(err)
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: strings.Fields(string(b)), DialTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := client.Compact(ctx, rev, clientv3.WithCompactPhysical()); err != nil {
		t.Fatalf("compacting etcd at %d: %v", rev, err)
	}
}

func rv(t *testing.T, s string) uint64 {
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Errorf("resourceVersion %q: %v", s, err)
	}
	return v
}

func firstDiff(a, b []uint64) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
