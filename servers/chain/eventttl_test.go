package chain_test

import (
	"context"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	cliflag "k8s.io/component-base/cli/flag"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// TestEventTTLOption: --event-ttl parses into the options, defaults to kube-apiserver's hour,
// and must be whole seconds (an etcd lease's unit), at least one.
func TestEventTTLOption(t *testing.T) {
	o := chain.NewOptions()
	if o.EventTTL != time.Hour {
		t.Errorf("default %v, want 1h", o.EventTTL)
	}
	var fss cliflag.NamedFlagSets
	o.AddFlags(&fss)
	if err := fss.FlagSet("etcd").Parse([]string{"--event-ttl=5m"}); err != nil {
		t.Fatal(err)
	}
	if o.EventTTL != 5*time.Minute {
		t.Errorf("parsed %v, want 5m", o.EventTTL)
	}
	for _, tc := range []struct {
		ttl  time.Duration
		want string // "" for valid
	}{
		{time.Second, ""},
		{2 * time.Hour, ""},
		{0, "--event-ttl 0s must be whole seconds, 1s or more"},
		{-time.Minute, "--event-ttl -1m0s must be whole seconds, 1s or more"},
		{1500 * time.Millisecond, "--event-ttl 1.5s must be whole seconds, 1s or more"},
	} {
		all := validationErrors(t, func(o *chain.Options) { o.EventTTL = tc.ttl })
		if (tc.want == "") != (all == "") || !strings.Contains(all, tc.want) {
			t.Errorf("ttl %v: errors %q, want %q", tc.ttl, all, tc.want)
		}
	}
}

// TestEventTTLExpiresEvents: Events are written with an etcd lease of --event-ttl, through
// either API, and etcd deletes them when it runs out; a ConfigMap written beside them stays.
func TestEventTTLExpiresEvents(t *testing.T) {
	c := testchain.Start(t, func(o *chain.Options) { o.EventTTL = 2 * time.Second })
	ctx := context.Background()
	cs := kubernetes.NewForConfigOrDie(c.Admin)
	now := metav1.Now()
	if _, err := cs.CoreV1().Events("default").Create(ctx, &corev1.Event{
		ObjectMeta:     metav1.ObjectMeta{Name: "core-event"},
		InvolvedObject: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "default", Name: "stays"},
		Reason:         "Tested", Message: "expires", Type: corev1.EventTypeNormal,
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.EventsV1().Events("default").Create(ctx, &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "events-event"},
		EventTime:  metav1.NowMicro(), ReportingController: "test/ttl", ReportingInstance: "test",
		Action: "Test", Reason: "Tested", Note: "expires", Type: corev1.EventTypeNormal,
		Regarding: corev1.ObjectReference{Kind: "ConfigMap", Namespace: "default", Name: "stays"},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "stays"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The lease is what expires them: granted for the TTL (plus, at most, the few seconds
	// k8s.io/apiserver reuses one lease for the writes that follow).
	client := etcdClient(t, c)
	if got, err := client.Get(ctx, "/registry/events/default/core-event"); err != nil {
		t.Fatal(err)
	} else if len(got.Kvs) == 1 {
		ttl, err := client.TimeToLive(ctx, clientv3.LeaseID(got.Kvs[0].Lease))
		if err != nil {
			t.Fatal(err)
		}
		if ttl.GrantedTTL < 2 || ttl.GrantedTTL > 5 {
			t.Errorf("the Event's lease was granted for %d s, want about 2", ttl.GrantedTTL)
		}
	} // else: already expired on a slow machine, which the waits below see too

	for _, name := range []string{"core-event", "events-event"} {
		testchain.Eventually(t, "Event "+name+" to expire", func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().Events("default").Get(ctx, name, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			return false, err
		})
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "stays", metav1.GetOptions{}); err != nil {
		t.Errorf("the ConfigMap written beside the Events: %v", err)
	}
}
