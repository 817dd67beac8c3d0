package loop_test

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/apichain/apichain/controllers/internal/loop"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestEventsKeepEachRecordersIdentity: controllers that share the manager's one broadcaster
// still write their events with their own clients. Here one of them may not create events:
// its event is refused, while the other's, recorded before and after it, are written.
func TestEventsKeepEachRecordersIdentity(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.Controllers = nil })
	admin := kubernetes.NewForConfigOrDie(c.Admin)
	nobody := kubernetes.NewForConfigOrDie(testchain.UserConfig(t, c, "nobody"))
	ctx, cancel := context.WithCancel(context.Background())
	e := loop.NewEvents(ctx)
	defer e.Stop()
	defer cancel() // first: Stop comes once ctx is done
	ctx = loop.WithEvents(ctx, e)

	allowed := loop.Recorder(ctx, admin, "allowed-controller")
	refused := loop.Recorder(ctx, nobody, "refused-controller")
	about := func(name string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)}}
	}
	allowed.Event(about("first"), corev1.EventTypeNormal, "Tested", "first")
	refused.Event(about("second"), corev1.EventTypeNormal, "Tested", "second")
	allowed.Event(about("third"), corev1.EventTypeNormal, "Tested", "third")

	// One broadcaster writes its events in order: once the third is in, the second was tried.
	events := map[string]corev1.Event{}
	testchain.Eventually(t, "the third event to be written", func(ctx context.Context) (bool, error) {
		list, err := admin.CoreV1().Events("default").List(ctx, metav1.ListOptions{})
		if err != nil {
			return false, err
		}
		for _, e := range list.Items {
			events[e.InvolvedObject.Name] = e
		}
		_, ok := events["third"]
		return ok, nil
	})
	if e, ok := events["first"]; !ok || e.Source.Component != "allowed-controller" {
		t.Errorf("the first event: %+v (written: %v)", e, ok)
	}
	if e, ok := events["second"]; ok {
		t.Errorf("the event of the recorder without rights was written, by another's client: %+v", e)
	}
	// And the refusal was the chain's: nobody may not create events.
	_, err := nobody.CoreV1().Events("default").Create(context.Background(), &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "direct"}, InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "default", Name: "x"},
	}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) {
		t.Errorf("nobody creating an event: %v, want Forbidden", err)
	}
}

// TestEventsStopWaitsForTheWrites: Stop returns only once no event is being written, so that
// nothing of the controllers' is still at work after the chain (or a chaintest Environment)
// has stopped. Events are recorded faster than they are written, then Stop comes while writes
// are under way.
func TestEventsStopWaitsForTheWrites(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.Controllers = nil })
	var inFlight, started atomic.Int32
	cfg := rest.CopyConfig(c.Admin)
	cfg.QPS = -1
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
			started.Add(1)
			inFlight.Add(1)
			defer inFlight.Add(-1)
			return rt.RoundTrip(r)
		})
	}
	client := kubernetes.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := loop.NewEvents(ctx)
	recorder := loop.Recorder(loop.WithEvents(ctx, e), client, "busy-controller")
	for i := range 300 {
		name := fmt.Sprintf("cm-%d", i)
		recorder.Event(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, UID: types.UID("uid-" + name)}},
			corev1.EventTypeNormal, "Tested", "one of many")
	}
	testchain.Eventually(t, "writes to be under way", func(context.Context) (bool, error) {
		return started.Load() > 0, nil
	})
	cancel()
	e.Stop()
	if n := inFlight.Load(); n != 0 {
		t.Errorf("%d event writes still in flight after Stop returned", n)
	}
	if n := started.Load(); n >= 300 {
		t.Logf("all %d events were written before the stop: the check above proved little", n)
	}
}

type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
