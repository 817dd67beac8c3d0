package core_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

// TestEventsAcrossGroups: core/v1 and events.k8s.io/v1 Events are the same objects (one storage
// under /registry/events), each shown in its API's shape, as in kube-apiserver.
func TestEventsAcrossGroups(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	core, ev1 := cs.CoreV1().Events(ns), cs.EventsV1().Events(ns)

	w, err := ev1.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=from-core"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	// Written as core/v1, read as events.k8s.io/v1.
	first := metav1.NewTime(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC))
	created, err := core.Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "from-core"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: ns, FieldPath: "spec.containers{c}"},
		Reason:         "Pulled", Message: "pulled the image", Type: corev1.EventTypeNormal,
		Source:         corev1.EventSource{Component: "kubelet", Host: "node-1"},
		FirstTimestamp: first, LastTimestamp: first, Count: 3,
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := ev1.Get(ctx, "from-core", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.UID != created.UID || got.ResourceVersion != created.ResourceVersion || got.Note != "pulled the image" || got.Reason != "Pulled" ||
		got.Regarding.Name != "p" || got.Regarding.FieldPath != "spec.containers{c}" || got.DeprecatedSource.Component != "kubelet" ||
		got.DeprecatedCount != 3 || !got.DeprecatedFirstTimestamp.Equal(&first) || got.Type != "Normal" {
		t.Errorf("core event read as events.k8s.io/v1: %+v", got)
	}
	select {
	case e := <-w.ResultChan():
		if e.Type != watch.Added || e.Object.(*eventsv1.Event).Note != "pulled the image" {
			t.Errorf("events.k8s.io watch: %s %+v", e.Type, e.Object)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no events.k8s.io watch event for a core event")
	}

	// Written as events.k8s.io/v1, read as core/v1.
	now := metav1.NewMicroTime(time.Date(2026, 1, 2, 3, 4, 5, 123456000, time.UTC))
	written, err := ev1.Create(ctx, &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "from-events"},
		EventTime:  now, Type: "Warning", Reason: "BackOff", Action: "Restart", Note: "back-off restarting",
		ReportingController: "example.com/controller", ReportingInstance: "controller-1",
		Regarding: corev1.ObjectReference{Kind: "Pod", Name: "q", Namespace: ns},
		Series:    &eventsv1.EventSeries{Count: 2, LastObservedTime: now},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	back, err := core.Get(ctx, "from-events", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if back.UID != written.UID || back.Message != "back-off restarting" || back.InvolvedObject.Name != "q" || back.ReportingController != "example.com/controller" ||
		back.ReportingInstance != "controller-1" || back.Action != "Restart" || back.Series == nil || back.Series.Count != 2 || !back.EventTime.Equal(&now) {
		t.Errorf("events.k8s.io event read as core/v1: %+v", back)
	}

	// Field selectors in each API's own names.
	for sel, want := range map[string]string{"regarding.name=q": "from-events", "reportingController=example.com/controller": "from-events", "regarding.name=p,reason=Pulled": "from-core", "type=Warning": "from-events"} {
		l, err := ev1.List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil || len(l.Items) != 1 || l.Items[0].Name != want {
			t.Errorf("events.k8s.io list %q: %v %v", sel, err, l)
		}
	}
	if l, err := core.List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=q,reportingComponent=example.com/controller"}); err != nil || len(l.Items) != 1 {
		t.Errorf("core list by involvedObject.name: %v %v", err, l)
	}
	if _, err := ev1.List(ctx, metav1.ListOptions{FieldSelector: "note=x"}); !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "field label not supported: note") {
		t.Errorf("events.k8s.io list by an unsupported field: %v", err)
	}

	// The Table is core's, rows included.
	table := coretest.Table(t, shared, "/apis/events.k8s.io/v1/namespaces/"+ns+"/events/from-events")
	if len(table.Rows) != 1 || table.Rows[0].Cells[2] != "BackOff" || table.Rows[0].Cells[3] != "pod/q" || table.Rows[0].Cells[6] != "back-off restarting" {
		t.Errorf("events.k8s.io table: %+v", table.Rows)
	}

	// Deleted through one API, gone from the other.
	if err := core.Delete(ctx, "from-events", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := ev1.Get(ctx, "from-events", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("events.k8s.io get after core delete: %v", err)
	}
}

// TestEventsV1Validation: events.k8s.io/v1 validates strictly (pkg/apis/core/validation/events.go
// for request version events.k8s.io/v1), core/v1 as before.
func TestEventsV1Validation(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	_, err := cs.EventsV1().Events(ns).Create(ctx, &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "bad"},
		Regarding:  corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: ns},
		Type:       "Odd",
	}, metav1.CreateOptions{})
	want := []string{"eventTime: Required value", `type: Invalid value: "": has invalid value: Odd`}
	if !apierrors.IsInvalid(err) {
		t.Fatalf("invalid events.k8s.io event: %v", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not have %q", err, w)
		}
	}
	// Once created, the reason cannot change through events.k8s.io.
	now := metav1.NewMicroTime(time.Now())
	e, err := cs.EventsV1().Events(ns).Create(ctx, &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "good"}, EventTime: now, Type: "Normal", Reason: "R", Action: "A",
		ReportingController: "example.com/c", ReportingInstance: "i", Regarding: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: ns},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	e.Reason = "Other"
	if _, err := cs.EventsV1().Events(ns).Update(ctx, e, metav1.UpdateOptions{}); !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `reason: Invalid value: "Other": field is immutable`) {
		t.Errorf("changing the reason: %v", err)
	}
}

// TestEventsAreReadFromEtcd: as kube-apiserver (its default --watch-cache-sizes), the chain keeps
// no watch cache for Events, in either group. Cached, every Event of the last hour (--event-ttl)
// would be held in memory twice, and a busy cluster's memory would grow for an hour: the leak
// the hour-long soak found.
func TestEventsAreReadFromEtcd(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	ns := testchain.Namespace(t, shared)
	ctx := context.Background()
	w, err := cs.EventsV1().Events(ns).Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := cs.CoreV1().Events(ns).Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "from-etcd"},
		InvolvedObject: corev1.ObjectReference{Kind: "Pod", Name: "p", Namespace: ns},
		Reason:         "Started", Message: "started", Type: corev1.EventTypeNormal,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "beside-the-event"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Watches and lists of Events, served by etcd, see the new Event.
	select {
	case e := <-w.ResultChan():
		if ev, ok := e.Object.(*eventsv1.Event); e.Type != watch.Added || !ok || ev.Name != "from-etcd" {
			t.Errorf("watch of Events: %s %+v", e.Type, e.Object)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no watch event for a new Event")
	}
	list, err := cs.CoreV1().Events(ns).List(ctx, metav1.ListOptions{FieldSelector: "reason=Started"})
	if err != nil || len(list.Items) != 1 {
		t.Errorf("list of Events by reason: %v, %v", list, err)
	}

	// A watch cache counts the events it receives from etcd: the ConfigMap's cache shows it;
	// no cache of Events exists to count the Event.
	var received map[string]bool
	testchain.Eventually(t, "the ConfigMaps' watch cache to count the new ConfigMap", func(context.Context) (bool, error) {
		received = watchCacheEventsReceived(t)
		return received["configmaps."], nil
	})
	for _, gr := range []string{"events.", "events.events.k8s.io"} {
		if received[gr] {
			t.Errorf("%s has a watch cache; kube-apiserver reads Events from etcd", gr)
		}
	}
}

// watchCacheEventsReceived lists the resources ("resource.group") whose watch cache counts
// events received in the shared chain's /metrics.
func watchCacheEventsReceived(t *testing.T) map[string]bool {
	t.Helper()
	families := testchain.Metrics(t, shared)
	out := map[string]bool{}
	for _, m := range families["apiserver_watch_cache_events_received_total"].GetMetric() {
		var group, resource string
		for _, l := range m.GetLabel() {
			switch l.GetName() {
			case "group":
				group = l.GetValue()
			case "resource":
				resource = l.GetValue()
			}
		}
		out[resource+"."+group] = true
	}
	return out
}
