package main

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	admissionv1 "k8s.io/api/admission/v1"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
)

// TestGracefulShutdownDrainsRequestsAndWatches sends SIGTERM while a create is held open (by a
// validating webhook that answers only when the test says so) and three watches are open:
// the chain stops listening, the held create still completes with 201 (held half a second past
// the watches' end), every watch stream ends cleanly (the body ends, no reset and no half
// event), etcd closes, and the exit code is 0.
// It also checks that --unsafe-no-fsync really turns fsync off.
func TestGracefulShutdownDrainsRequestsAndWatches(t *testing.T) {
	r := startBinary(t, "--metrics=off")
	cfg := adminConfig(t, r.dir)
	cs := adminClient(t, r.dir)
	ctx := context.Background()
	const ns = "shutdown"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{"test": ns}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}

	// The webhook holds the create of ConfigMap "held" until release is closed.
	arrived, release := make(chan struct{}), make(chan struct{})
	var arrivedOnce, releaseOnce sync.Once
	seen := make(chan string, 100)
	hook := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		var review admissionv1.AdmissionReview
		if err := json.NewDecoder(req.Body).Decode(&review); err != nil || review.Request == nil {
			http.Error(w, "bad review", http.StatusBadRequest)
			return
		}
		select {
		case seen <- review.Request.Name:
		default:
		}
		if review.Request.Name == "held" {
			arrivedOnce.Do(func() { close(arrived) })
			<-release
		}
		review.Response = &admissionv1.AdmissionResponse{UID: review.Request.UID, Allowed: true}
		review.Request = nil
		_ = json.NewEncoder(w).Encode(review)
	}))
	defer hook.Close()
	// Deferred after Close, so run before it: Close waits for the held call to return.
	defer releaseOnce.Do(func() { close(release) })
	fsyncs := walFsyncs(t, r.dir)
	registerWebhook(t, cs, hook, ns)
	// The webhook is in effect once a create reaches it.
	for i := 0; ; i++ {
		name := fmt.Sprintf("probe-%d", i)
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if drainedHas(seen, name) {
			break
		}
		if i == 200 {
			t.Fatal("the webhook never saw a create")
		}
	}
	// --unsafe-no-fsync: etcd wrote the webhook configuration and the probes without a single
	// WAL fsync (it fsyncs only when it creates the WAL, before the option applies).
	if n := walFsyncs(t, r.dir); n != fsyncs {
		t.Errorf("with --unsafe-no-fsync etcd fsynced its WAL %d times for a few writes", n-fsyncs)
	}

	list, err := cs.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	watches := make([]*rawWatch, 3)
	for i := range watches {
		watches[i] = startRawWatch(t, cfg, "/api/v1/namespaces/"+ns+"/configmaps?watch=true&resourceVersion="+list.ResourceVersion)
	}

	held := make(chan error, 1)
	go func() {
		_, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held"}}, metav1.CreateOptions{})
		held <- err
	}()
	<-arrived
	exited := make(chan error, 1)
	sigterm := time.Now()
	if err := r.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	go func() { exited <- r.cmd.Wait() }()

	// Shutdown is under way once the listener is closed: new connections are refused.
	host := strings.TrimPrefix(cfg.Host, "https://")
	if err := wait.PollUntilContextTimeout(ctx, 20*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		c, err := net.Dial("tcp", host)
		if err == nil {
			c.Close()
		}
		return err != nil, nil
	}); err != nil {
		t.Fatal("the chain still accepts connections 30 s after SIGTERM")
	}
	closed := time.Since(sigterm)
	// The watches end while the create is still held: the chain ends them as soon as it stops
	// accepting requests, instead of leaving them to be cut when the drain gives up.
	for i, w := range watches {
		select {
		case <-w.done:
		case <-time.After(30 * time.Second):
			t.Fatalf("watch %d still open 30 s after SIGTERM", i)
		}
		if w.err != nil {
			t.Errorf("watch %d ended with %v after %d events, want a clean end of stream", i, w.err, w.events)
		}
	}
	watchesEnded := time.Since(sigterm)
	select {
	case err := <-held:
		t.Fatalf("the held create finished before the webhook answered: %v", err)
	default:
	}
	// Hold the create a while longer, with every other connection idle: a chain that cut the
	// connections it still has open after a fixed grace, rather than after the requests in
	// flight are answered, would cut this one. (Holding a request is the test's input here, not
	// a wait for a condition.)
	time.Sleep(500 * time.Millisecond)
	released := time.Since(sigterm)
	releaseOnce.Do(func() { close(release) })
	if err := <-held; err != nil {
		t.Errorf("the create in flight at SIGTERM: %v, want it to complete", err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("exit after SIGTERM: %v, want 0", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the chain did not exit within a minute of SIGTERM")
	}
	t.Logf("after SIGTERM: listener closed %v, watches ended %v, exit 0 %v (the held create released at %v)",
		closed.Round(time.Millisecond), watchesEnded.Round(time.Millisecond), time.Since(sigterm).Round(time.Millisecond), released.Round(time.Millisecond))
}

// registerWebhook sends every ConfigMap create in namespace ns to hook, failing the create if
// the hook does not answer (so that a create can only succeed through it).
func registerWebhook(t *testing.T, cs kubernetes.Interface, hook *httptest.Server, ns string) {
	t.Helper()
	caBundle := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: hook.Certificate().Raw})
	_, err := cs.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(context.Background(), &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "hold-" + ns},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name:                    "hold.apichain.test",
			ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To(hook.URL + "/validate"), CABundle: caBundle},
			Rules:                   []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create}, Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{"configmaps"}}}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{"test": ns}},
			FailurePolicy:           ptr.To(admissionregistrationv1.Fail),
			SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](30), // the most allowed: the test holds one call
		}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// rawWatch reads a JSON watch stream event by event and records how it ended: err is nil for a
// clean end of the stream, anything else (a reset, a truncated event) is kept.
type rawWatch struct {
	events int
	err    error
	done   chan struct{}
}

func startRawWatch(t *testing.T, cfg *rest.Config, path string) *rawWatch {
	t.Helper()
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	u, err := url.Parse(cfg.Host + path)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: rt}).Do(&http.Request{Method: http.MethodGet, URL: u, Header: http.Header{"Accept": {"application/json"}}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		t.Fatalf("watch %s: %d %s", path, resp.StatusCode, b)
	}
	w := &rawWatch{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		defer resp.Body.Close()
		dec := json.NewDecoder(resp.Body)
		for {
			var ev metav1.WatchEvent
			if err := dec.Decode(&ev); err != nil {
				if !errors.Is(err, io.EOF) {
					w.err = err
				}
				return
			}
			w.events++
		}
	}()
	return w
}

// drainedHas empties ch and says whether name was in it.
func drainedHas(ch <-chan string, name string) bool {
	found := false
	for {
		select {
		case n := <-ch:
			found = found || n == name
		default:
			return found
		}
	}
}
