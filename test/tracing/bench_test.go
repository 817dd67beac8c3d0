package tracing_test

import (
	"context"
	"fmt"
	"runtime"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// BenchmarkRecording measures what recording every request's trace costs: two chains, one
// recording (as `chain` runs by default) and one not (as chaintest runs), each sent the same
// create and get of a ConfigMap over HTTPS by client-go, alternating, so that the machine's
// noise falls on both alike. It reports each chain's create+get time and the difference in
// percent; then, untimed, what each create+get allocates in the process (client and server
// together: the difference is the server's), which the machine's noise does not move.
//
//	go test -run '^$' -bench Recording -benchtime 2000x ./test/tracing
func BenchmarkRecording(b *testing.B) {
	off := testchain.Start(b, func(o *chain.Options) { o.RecordTraces = false })
	on := testchain.Start(b, func(o *chain.Options) { o.RecordTraces = true })
	ctx := context.Background()
	client := func(c *chain.Chain) kubernetes.Interface {
		cfg := rest.CopyConfig(c.Admin)
		cfg.QPS = -1 // no client-side rate limit: the servers are measured, not client-go's limiter
		return kubernetes.NewForConfigOrDie(cfg)
	}
	clients := []kubernetes.Interface{client(off), client(on)}
	n := 0
	createGet := func(cs kubernetes.Interface) time.Duration {
		n++
		name := fmt.Sprintf("bench-%d", n)
		start := time.Now()
		if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"k": "v"},
		}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, name, metav1.GetOptions{}); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for range 200 { // warm both (connections, caches, authorizer decisions)
		for _, cs := range clients {
			createGet(cs)
		}
	}
	var took [2]time.Duration
	b.ResetTimer()
	for b.Loop() {
		for i, cs := range clients {
			took[i] += createGet(cs)
		}
	}
	b.StopTimer()
	count := float64(b.N)
	b.ReportMetric(float64(took[0].Nanoseconds())/count, "off-ns/create+get")
	b.ReportMetric(float64(took[1].Nanoseconds())/count, "on-ns/create+get")
	b.ReportMetric(100*(float64(took[1])/float64(took[0])-1), "recording-overhead-%")

	// Allocations, in batches (reading them stops the world), alternating.
	const batch, batches = 50, 4
	var allocs, bytes [2]uint64
	var before, after runtime.MemStats
	for range batches {
		for i, cs := range clients {
			runtime.ReadMemStats(&before)
			for range batch {
				createGet(cs)
			}
			runtime.ReadMemStats(&after)
			allocs[i] += after.Mallocs - before.Mallocs
			bytes[i] += after.TotalAlloc - before.TotalAlloc
		}
	}
	pairs := float64(batch * batches)
	b.ReportMetric(float64(allocs[0])/pairs, "off-allocs/create+get")
	b.ReportMetric(float64(allocs[1])/pairs, "on-allocs/create+get")
	b.ReportMetric(float64(bytes[0])/pairs, "off-B/create+get")
	b.ReportMetric(float64(bytes[1])/pairs, "on-B/create+get")
}
