package chain_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// testRequestTimeout is the --request-timeout of the failure tests' chains: short, so that what
// it bounds is seen in seconds (the default, as kube-apiserver's, is a minute).
const testRequestTimeout = 5 * time.Second

// TestEtcdUnreachable runs a chain on an external etcd and stops that etcd: /readyz says
// "[-]etcd failed", requests fail with a 5xx Status (504 Timeout once --request-timeout has
// passed) instead of hanging, and once etcd is back on the same address and data the chain
// recovers by itself: /readyz ok, writes work, and a watch opened before the outage goes on
// (resumed from its last resourceVersion, as informers do) and sees the writes made after it.
func TestEtcdUnreachable(t *testing.T) {
	etcd := startExternalEtcd(t)
	c := testchain.Start(t, func(o *chain.Options) {
		o.EtcdServers = []string{etcd.clientURL.String()}
		o.RequestTimeout = testRequestTimeout
	})
	cs := fastClient(t, c.Admin)
	ctx := context.Background()
	ns := "etcd-down"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A watch as an informer keeps one: resumed from its last resourceVersion whenever it ends.
	rw, err := watchtools.NewRetryWatcherWithContext(ctx, before.ResourceVersion, &cache.ListWatch{
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			return cs.CoreV1().ConfigMaps(ns).Watch(ctx, o)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer rw.Stop()

	etcd.stop()
	stopped := time.Now()
	var readyz []byte
	testchain.WaitFor(t, func() bool {
		resp, body := testchain.Get(t, c, "/readyz?verbose")
		readyz = body
		return resp.StatusCode != http.StatusOK && strings.Contains(string(body), "[-]etcd failed")
	})
	noticed := time.Since(stopped)

	// A write, a quorum read and a list, each sent once per client (client-go would retry a
	// 504 on its own), four times over HTTP/2 and four times over HTTP/1.1, all at once: each
	// must be answered with a 5xx Status at the deadline, not left hanging and not cut off.
	// (Before withAnswerBeforeDeadline, the handler's own error and the timeout filter raced
	// at the deadline, and most of these lost their stream or their connection.)
	type answer struct {
		what string
		code int
		st   metav1.Status
		err  error
		took time.Duration
	}
	answers := make(chan answer)
	sent := 0
	for _, tc := range []struct{ method, path, body string }{
		{http.MethodPost, "/api/v1/namespaces/" + ns + "/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"during"}}`},
		{http.MethodGet, "/api/v1/namespaces/" + ns + "/configmaps/before", ""},
		{http.MethodGet, "/api/v1/namespaces/" + ns + "/configmaps", ""},
	} {
		for i := range 8 {
			http1 := i%2 == 1
			sent++
			go func() {
				began := time.Now()
				a := answer{what: fmt.Sprintf("%s %s (HTTP/2)", tc.method, tc.path)}
				if http1 {
					a.what = fmt.Sprintf("%s %s (HTTP/1.1)", tc.method, tc.path)
					a.code, a.st, a.err = sendOnceHTTP1(c.Admin, tc.method, tc.path, tc.body)
				} else {
					a.code, a.st, a.err = sendOnce(c.Admin, tc.method, tc.path, tc.body, 30*time.Second)
				}
				a.took = time.Since(began)
				answers <- a
			}()
		}
	}
	figures := map[string]int{}
	for range sent {
		a := <-answers
		var netErr net.Error
		switch {
		case errors.As(a.err, &netErr) && netErr.Timeout():
			t.Errorf("%s with etcd down: no answer within 30 s: %v", a.what, a.err)
		case a.err != nil:
			t.Errorf("%s with etcd down: no answer, after %v: %v", a.what, a.took.Round(time.Millisecond), a.err)
		case a.code < 500 || a.st.Status != metav1.StatusFailure || a.st.Code != int32(a.code):
			t.Errorf("%s with etcd down: %d %+v, want a 5xx Status", a.what, a.code, a.st)
		default:
			figures[fmt.Sprintf("%d %s after %v", a.code, a.st.Reason, a.took.Round(time.Second))]++
		}
	}

	etcd.start(t)
	restarted := time.Now()
	testchain.WaitFor(t, func() bool {
		resp, _ := testchain.Get(t, c, "/readyz")
		return resp.StatusCode == http.StatusOK
	})
	recovered := time.Since(restarted)
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create after etcd came back: %v", err)
	}
	timeout := time.After(30 * time.Second)
	for seen := false; !seen; {
		select {
		case ev := <-rw.ResultChan():
			if cm, ok := ev.Object.(*corev1.ConfigMap); ok && cm.Name == "after" {
				seen = true
			}
		case <-timeout:
			t.Fatal("the watch opened before the outage never saw the create made after it")
		}
	}
	t.Logf("etcd stopped: /readyz failing after %v; %d requests answered %v; etcd back: /readyz ok after %v, writes and the watch resumed",
		noticed.Round(time.Millisecond), sent, figures, recovered.Round(time.Millisecond))
	if t.Failed() {
		t.Logf("/readyz?verbose with etcd down:\n%s", readyz)
	}
}

// TestEtcdErrorsAreStatuses runs a chain on an etcd that runs out of space (its quota is a few
// MiB): once etcd refuses every write ("etcdserver: mvcc: database space exceeded"), a create,
// an update and a patch each get a 500 InternalError Status that says so. Not a 500 without a
// reason, which the head's filter would take for a patch that cannot be applied and answer 400
// (badrequest.go), and not a 413, which is for objects etcd refuses for their own size
// (storageerrors.go).
func TestEtcdErrorsAreStatuses(t *testing.T) {
	etcd := startExternalEtcd(t, func(cfg *embed.Config) { cfg.QuotaBackendBytes = 8 << 20 })
	c := testchain.Start(t, func(o *chain.Options) { o.EtcdServers = []string{etcd.clientURL.String()} })
	cms := "/api/v1/namespaces/default/configmaps"
	data := strings.Repeat("x", 900*1024)
	if resp, body := testchain.Do(t, c.Admin, http.MethodPost, cms, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fill"}}`), "application/json"); resp.StatusCode != http.StatusCreated {
		t.Fatalf("creating: %d %s", resp.StatusCode, body)
	}
	// Each update keeps the old revision: etcd fills up.
	for i := 0; ; i++ {
		resp, body := testchain.Do(t, c.Admin, http.MethodPut, cms+"/fill", []byte(fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fill"},"data":{"a":"%d%s"}}`, i, data)), "application/json")
		if resp.StatusCode != http.StatusOK {
			break
		}
		if i == 50 {
			t.Fatalf("etcd still takes writes after %d MiB: %s", 50*900/1024, truncate(body))
		}
	}
	for _, tc := range []struct{ method, path, contentType, body string }{
		{http.MethodPost, cms, "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"more"}}`},
		{http.MethodPut, cms + "/fill", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fill"},"data":{"a":"b"}}`},
		{http.MethodPatch, cms + "/fill", "application/merge-patch+json", `{"data":{"a":"c"}}`},
		{http.MethodPatch, cms + "/fill?fieldManager=x&force=true", "application/apply-patch+yaml", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fill"},"data":{"a":"d"}}`},
	} {
		resp, body := testchain.Do(t, c.Admin, tc.method, tc.path, []byte(tc.body), tc.contentType)
		var st metav1.Status
		if err := json.Unmarshal(body, &st); err != nil || resp.StatusCode != http.StatusInternalServerError || st.Reason != metav1.StatusReasonInternalError ||
			!strings.Contains(st.Message, "database space exceeded") {
			t.Errorf("%s %s with etcd full: %d %s, want 500 InternalError", tc.method, tc.path, resp.StatusCode, truncate(body))
		}
	}
}

// sendOnce sends one request with cfg's credentials, no retries, and decodes the Status it gets.
func sendOnce(cfg *rest.Config, method, path, body string, timeout time.Duration) (int, metav1.Status, error) {
	var st metav1.Status
	cfg = rest.CopyConfig(cfg)
	cfg.Dial = (&net.Dialer{}).DialContext // a connection of its own, not client-go's shared one
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		return 0, st, err
	}
	req, err := http.NewRequest(method, cfg.Host+path, strings.NewReader(body))
	if err != nil {
		return 0, st, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := (&http.Client{Transport: rt, Timeout: timeout}).Do(req)
	if err != nil {
		return 0, st, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, st, err
	}
	_ = json.Unmarshal(b, &st)
	return resp.StatusCode, st, nil
}

// sendOnceHTTP1 is sendOnce over HTTP/1.1, on a connection of its own, as Python's clients send.
func sendOnceHTTP1(cfg *rest.Config, method, path, body string) (int, metav1.Status, error) {
	var st metav1.Status
	client, err := newHTTP1Client(cfg)
	if err != nil {
		return 0, st, err
	}
	defer client.close()
	req, err := http.NewRequest(method, cfg.Host+path, strings.NewReader(body))
	if err != nil {
		return 0, st, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, b, err := client.roundTrip(req)
	if err != nil {
		return 0, st, err
	}
	_ = json.Unmarshal(b, &st)
	return resp.StatusCode, st, nil
}

// externalEtcd is an etcd member the test starts and stops, always on the same loopback
// ports and data dir, as an external cluster the chain does not own.
type externalEtcd struct {
	dir                string
	clientURL, peerURL url.URL
	e                  *embed.Etcd
	mods               []func(*embed.Config)
}

// startExternalEtcd starts an etcd member, configured by mods beyond the defaults.
func startExternalEtcd(t *testing.T, mods ...func(*embed.Config)) *externalEtcd {
	t.Helper()
	x := &externalEtcd{dir: t.TempDir(), mods: mods}
	x.clientURL = url.URL{Scheme: "http", Host: testchain.FreeAddress(t)}
	x.peerURL = url.URL{Scheme: "http", Host: testchain.FreeAddress(t)}
	x.start(t)
	t.Cleanup(x.stop)
	return x
}

func (x *externalEtcd) start(t *testing.T) {
	t.Helper()
	cfg := embed.NewConfig()
	cfg.Name = "external"
	cfg.Dir = x.dir
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{x.clientURL}, []url.URL{x.clientURL}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{x.peerURL}, []url.URL{x.peerURL}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = true
	cfg.TickMs, cfg.ElectionMs = 10, 100 // one member: elected at once (as internal/etcd)
	cfg.LogLevel = "fatal"
	for _, m := range x.mods {
		m(cfg)
	}
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		t.Fatalf("starting etcd: %v", err)
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		t.Fatalf("etcd: %v", err)
	case <-time.After(time.Minute):
		e.Close()
		t.Fatal("etcd not ready within a minute")
	}
	x.e = e
}

func (x *externalEtcd) stop() {
	if x.e != nil {
		x.e.Close()
		x.e = nil
	}
}
