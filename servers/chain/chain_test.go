package chain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apichain/apichain/internal/pki"
	"github.com/apichain/apichain/servers/chain"
	"github.com/apichain/apichain/test/testchain"
)

// shared is one chain for the tests that only read or create uniquely named objects.
var shared *chain.Chain

func TestMain(m *testing.M) { testchain.Main(m, &shared) }

func TestStartPrintsProgressAndWritesKubeconfig(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	c, err := testchain.StartIn(dir, &out)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Stop()

	for _, stage := range []string{"pki: created", "etcd: embedded member", "config:", "servers: aggregator → core → apiextensions → not-found", "serving: https://127.0.0.1:", "ready: /readyz ok"} {
		if !regexp.MustCompile(`(?m)^\[ *\d+ms\] ` + regexp.QuoteMeta(stage)).MatchString(out.String()) {
			t.Errorf("progress has no line for %q:\n%s", stage, out.String())
		}
	}
	// The kubeconfig works on its own: user admin in system:masters, the server CA trusted.
	cfg, err := clientcmd.BuildConfigFromFlags("", filepath.Join(dir, "admin.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	if _, err := cs.CoreV1().Namespaces().Get(context.Background(), "kube-system", metav1.GetOptions{}); err != nil {
		t.Errorf("with admin.kubeconfig: %v", err)
	}
	if st, err := os.Stat(filepath.Join(dir, "admin.kubeconfig")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("admin.kubeconfig mode = %v, %v; want 0600", st.Mode(), err)
	}
	if st, err := os.Stat(filepath.Join(dir, "pki", "ca.key")); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("ca.key mode = %v, %v; want 0600", st.Mode(), err)
	}
}

func TestChainServerHeaderShowsWhoAnswered(t *testing.T) {
	cases := []struct {
		path   string
		server string
		code   int
	}{
		{"/readyz", "aggregator", 200},
		{"/apis", "aggregator", 200},
		{"/apis/apiregistration.k8s.io/v1/apiservices", "aggregator", 200},
		{"/api/v1/namespaces", "core", 200},
		{"/api/v1/namespaces/default/configmaps", "core", 200},
		{"/apis/coordination.k8s.io/v1/leases", "core", 200},
		{"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "extensions", 200},
		{"/apis/nope.example.com/v1/things", "not-found", 404},
		{"/no/such/path", "not-found", 404},
	}
	for _, tc := range cases {
		resp, body := testchain.Get(t, shared, tc.path)
		if got := resp.Header.Get(chain.ChainServerHeader); got != tc.server || resp.StatusCode != tc.code {
			t.Errorf("GET %s: %s=%q, code %d; want %q, %d\n%s", tc.path, chain.ChainServerHeader, got, resp.StatusCode, tc.server, tc.code, body)
		}
	}
}

func TestUnknownGroupIsNotFoundStatus(t *testing.T) {
	resp, body := testchain.Get(t, shared, "/apis/nope.example.com/v1/things")
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil || st.Kind != "Status" {
		t.Fatalf("body is not a Status: %v: %s", err, body)
	}
	if resp.StatusCode != 404 || st.Reason != metav1.StatusReasonNotFound || st.Code != 404 {
		t.Errorf("got %d %+v", resp.StatusCode, st)
	}
}

func TestAuthentication(t *testing.T) {
	// Anonymous: the public-info paths only.
	anon := rest.AnonymousClientConfig(shared.Admin)
	if resp, body := testchain.Do(t, anon, http.MethodGet, "/readyz", nil, ""); resp.StatusCode != 200 || string(body) != "ok" {
		t.Errorf("anonymous /readyz: %d %s", resp.StatusCode, body)
	}
	if resp, body := testchain.Do(t, anon, http.MethodGet, "/api/v1/namespaces", nil, ""); resp.StatusCode != 403 ||
		!strings.Contains(string(body), `namespaces is forbidden: User \"system:anonymous\" cannot list resource \"namespaces\" in API group \"\" at the cluster scope`) {
		t.Errorf("anonymous list namespaces: %d %s", resp.StatusCode, body)
	}
	// A client certificate from another CA is not accepted.
	other := rest.AnonymousClientConfig(shared.Admin)
	other.TLSClientConfig.CertData, other.TLSClientConfig.KeyData = foreignAdminCert(t)
	if resp, body := testchain.Do(t, other, http.MethodGet, "/api/v1/namespaces", nil, ""); resp.StatusCode != 401 && resp.StatusCode != 403 {
		t.Errorf("foreign client cert: %d %s", resp.StatusCode, body)
	}
}

// foreignAdminCert is an admin certificate (system:masters) from a PKI the chain never saw.
func foreignAdminCert(t *testing.T) ([]byte, []byte) {
	t.Helper()
	files := pki.FilesIn(t.TempDir())
	if _, err := pki.Ensure(files, pki.ServingNames{DNS: []string{"localhost"}}); err != nil {
		t.Fatal(err)
	}
	certPEM, err := os.ReadFile(files.AdminCert)
	if err != nil {
		t.Fatal(err)
	}
	keyPEM, err := os.ReadFile(files.AdminKey)
	if err != nil {
		t.Fatal(err)
	}
	return certPEM, keyPEM
}

func TestProtobufClient(t *testing.T) {
	cfg := rest.CopyConfig(shared.Admin)
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf"
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx := context.Background()
	ns := testchain.Namespace(t, shared)
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "pb"}, Data: map[string]string{"a": "b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm, err := cs.CoreV1().ConfigMaps(ns).Get(ctx, "pb", metav1.GetOptions{})
	if err != nil || cm.Data["a"] != "b" {
		t.Fatalf("protobuf get: %v", err)
	}
	resp, body := testchain.Request(t, shared.Admin, http.MethodGet, "/api/v1/namespaces/"+ns+"/configmaps/pb", nil, map[string]string{"Accept": "application/vnd.kubernetes.protobuf"})
	if resp.Header.Get("Content-Type") != "application/vnd.kubernetes.protobuf" || !bytes.HasPrefix(body, []byte("k8s\x00")) {
		t.Errorf("not protobuf: %s", resp.Header.Get("Content-Type"))
	}
}

func TestNonAdminIsForbidden(t *testing.T) {
	_, err := kubernetes.NewForConfigOrDie(testchain.UserConfig(t, shared, "bob", "devs")).CoreV1().Pods("default").List(context.Background(), metav1.ListOptions{})
	want := `pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"`
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), want) {
		t.Errorf("bob lists pods: %v, want Forbidden %q", err, want)
	}
}

func TestVersionAndReadyzVerbose(t *testing.T) {
	cs, _ := testchain.Clients(t, shared)
	v, err := cs.Discovery().ServerVersion()
	if err != nil || v.Major != "1" || v.Minor != "37" || !strings.HasPrefix(v.GitVersion, "v1.37.") || !strings.HasSuffix(v.GitVersion, "+apichain") {
		t.Errorf("version %+v %v", v, err)
	}
	_, body := testchain.Get(t, shared, "/readyz?verbose")
	for _, hook := range []string{
		"poststarthook/start-apiextensions-controllers", "poststarthook/crd-informer-synced", // ApiExtensions
		"poststarthook/start-core-system-namespaces", "poststarthook/start-core-kubernetes-service", // Core
		"poststarthook/start-aggregator-autoregistration", "autoregister-completion", "poststarthook/apiservice-registration-controller", // Aggregator
		"etcd",
	} {
		if !strings.Contains(string(body), "[+]"+hook+" ok") {
			t.Errorf("/readyz?verbose lacks %s:\n%s", hook, body)
		}
	}
}
