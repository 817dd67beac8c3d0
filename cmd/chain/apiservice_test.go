package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	aggregator "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/apichain/apichain/internal/apiservice"
)

const wardleAPIService = "v1alpha1.wardle.example.com"

var flunders = schema.GroupVersionResource{Group: "wardle.example.com", Version: "v1alpha1", Resource: "flunders"}

// TestSampleAPIServerThroughTheChain registers the upstream k8s.io/sample-apiserver with
// `chain apiservice add`, starts it with the flags the command printed and nothing else (its
// defaults: API Priority and Fairness on, its admission plugins, delegated authentication and
// authorization), and uses it through the chain as kube-apiserver's users would: discovery,
// kubectl, a watch, a user whose rights the server asks the chain about. Then it stops the
// server (the APIService turns unavailable, its group answers 503), starts it again (back),
// and removes the registration.
func TestSampleAPIServerThroughTheChain(t *testing.T) {
	kubectl, err := exec.LookPath("kubectl")
	if err != nil {
		t.Skip("kubectl is not installed")
	}
	sample := buildSampleAPIServer(t)
	r := startBinary(t, "--metrics", "off")
	defer r.stop(t)
	admin := filepath.Join(r.dir, "admin.kubeconfig")
	cfg := adminConfig(t, r.dir)
	ctx := context.Background()

	port := strconv.Itoa(freeTCPPorts(t, 1)[0])
	out, err := chainCommand(t, admin, "apiservice", "add", wardleAPIService, "--group-version", "wardle.example.com/v1alpha1",
		"--url", "https://127.0.0.1:"+port, "--insecure-skip-tls-verify", "--write-kubeconfig", filepath.Join(r.dir, "wardle.kubeconfig"))
	if err != nil {
		t.Fatalf("chain apiservice add: %v\n%s", err, out)
	}
	for _, want := range []string{"serviceaccount/v1alpha1-wardle-example-com created", "apiservice.apiregistration.k8s.io/v1alpha1.wardle.example.com created"} {
		if !strings.Contains(out, want) {
			t.Errorf("chain apiservice add printed no %q:\n%s", want, out)
		}
	}
	flags := printedFlags(out)
	if len(flags) == 0 {
		t.Fatalf("chain apiservice add printed no flags:\n%s", out)
	}

	// Default flags: only where to listen, the chain's kubeconfigs and etcd, as printed.
	server := startSampleAPIServer(t, sample, flags)
	waitReady(t, port)
	waitAvailable(t, cfg, true)

	// kubectl, through the Aggregator's proxy: create, list, explain (OpenAPI v3 merged).
	kc := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(kubectl, args...)
		cmd.Env = append(os.Environ(), "KUBECONFIG="+admin)
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), err, b)
		}
		return string(b)
	}
	manifest := filepath.Join(r.dir, "flunder.yaml")
	if err := os.WriteFile(manifest, []byte("apiVersion: wardle.example.com/v1alpha1\nkind: Flunder\nmetadata:\n  name: first\n  namespace: default\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := kc("create", "-f", manifest); !strings.Contains(got, "flunder.wardle.example.com/first created") {
		t.Errorf("kubectl create: %s", got)
	}
	if got := kc("get", "flunders", "-n", "default", "-o", "name"); !strings.Contains(got, "flunder.wardle.example.com/first") {
		t.Errorf("kubectl get flunders: %s", got)
	}
	// kube-aggregator's OpenAPI v3 controller merges a remote's documents about a second after
	// its APIService changes (Available, here), as in kube-apiserver: explain waits for them.
	dc := discovery.NewDiscoveryClientForConfigOrDie(cfg)
	waitFor(t, ctx, "wardle.example.com/v1alpha1 in /openapi/v3", func(context.Context) (bool, error) {
		paths, err := dc.OpenAPIV3().Paths()
		if err != nil {
			return false, nil
		}
		_, ok := paths["apis/wardle.example.com/v1alpha1"]
		return ok, nil
	})
	// A cache of its own: kube-aggregator answers /openapi/v3 with the moment it answers as
	// Last-Modified (to the second) and no ETag, so a kubectl whose disk cache holds the root
	// from the create above, fetched earlier in the same second, is told 304 Not Modified and
	// explains from the root without wardle (kube-apiserver answers the same).
	if got := kc("explain", "flunders", "--cache-dir", filepath.Join(r.dir, "explain-cache")); !strings.Contains(got, "Flunder") || !strings.Contains(got, "wardle.example.com") {
		t.Errorf("kubectl explain flunders:\n%s", got)
	}
	checkWardleDiscovery(t, cfg, true)

	// A watch through the proxy sees a create.
	dyn := dynamic.NewForConfigOrDie(cfg)
	w, err := dyn.Resource(flunders).Namespace("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("watch flunders: %v", err)
	}
	defer w.Stop()
	second := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "wardle.example.com/v1alpha1", "kind": "Flunder", "metadata": map[string]any{"name": "second"}}}
	if _, err := dyn.Resource(flunders).Namespace("default").Create(ctx, second, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create a flunder: %v", err)
	}
	waitWatched(t, w, "second")

	// An ordinary user: refused at the chain's head until RBAC in the chain lets her list
	// flunders; then the Aggregator names her in X-Remote-User and the server asks the chain
	// (its SubjectAccessReview) before it answers.
	alice := rest.CopyConfig(cfg)
	alice.Impersonate = rest.ImpersonationConfig{UserName: "alice"}
	aliceFlunders := dynamic.NewForConfigOrDie(alice).Resource(flunders).Namespace("default")
	if _, err := aliceFlunders.List(ctx, metav1.ListOptions{}); !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `User "alice"`) {
		t.Errorf("alice lists flunders before any RBAC: %v, want Forbidden naming User \"alice\"", err)
	}
	grantFlunderReader(t, cfg, "alice")
	waitFor(t, ctx, "alice may list flunders", func(ctx context.Context) (bool, error) {
		_, err := aliceFlunders.List(ctx, metav1.ListOptions{})
		return err == nil, nil
	})

	// The server stops: the APIService turns unavailable with the reason, its group answers 503.
	stopProcess(t, server)
	waitAvailable(t, cfg, false)
	if _, err := dyn.Resource(flunders).Namespace("default").List(ctx, metav1.ListOptions{}); !apierrors.IsServiceUnavailable(err) {
		t.Errorf("listing flunders with the server down: %v, want 503 ServiceUnavailable", err)
	}

	// It comes back, with its flunders (they are in the chain's etcd).
	startSampleAPIServer(t, sample, flags)
	waitAvailable(t, cfg, true)
	if _, err := dyn.Resource(flunders).Namespace("default").Get(ctx, "first", metav1.GetOptions{}); err != nil {
		t.Errorf("flunder first after the server's restart: %v", err)
	}

	out, err = chainCommand(t, admin, "apiservice", "remove", wardleAPIService)
	if err != nil {
		t.Fatalf("chain apiservice remove: %v\n%s", err, out)
	}
	if _, err := aggregator.NewForConfigOrDie(cfg).ApiregistrationV1().APIServices().Get(ctx, wardleAPIService, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the APIService after remove: %v, want NotFound", err)
	}
	if _, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().ServiceAccounts("kube-system").Get(ctx, "v1alpha1-wardle-example-com", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the ServiceAccount after remove: %v, want NotFound", err)
	}
	checkWardleDiscovery(t, cfg, false)
}

// buildSampleAPIServer builds k8s.io/sample-apiserver at the version go.mod pins (a tool of
// the module) into a temporary directory.
func buildSampleAPIServer(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "sample-apiserver")
	if out, err := exec.Command("go", "build", "-o", bin, "k8s.io/sample-apiserver").CombinedOutput(); err != nil {
		t.Fatalf("go build k8s.io/sample-apiserver: %v\n%s", err, out)
	}
	return bin
}

// chainCommand runs the chain binary with args, KUBECONFIG set to kubeconfig.
func chainCommand(t *testing.T, kubeconfig string, args ...string) (string, error) {
	cmd := exec.Command(build(t), args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// printedFlags are the flags `chain apiservice add` printed for the server: the indented
// lines after "flags for".
func printedFlags(out string) []string {
	var flags []string
	after := false
	for sc := bufio.NewScanner(strings.NewReader(out)); sc.Scan(); {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "flags for"):
			after = true
		case after && strings.HasPrefix(line, "  "):
			flags = append(flags, strings.Fields(line)...)
		}
	}
	return flags
}

// startSampleAPIServer starts it with flags and a certificate directory of its own, and kills
// it when the test ends.
func startSampleAPIServer(t *testing.T, bin string, flags []string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, append(flags, "--cert-dir", t.TempDir())...)
	log, err := os.Create(filepath.Join(t.TempDir(), "sample-apiserver.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
		if t.Failed() {
			b, _ := os.ReadFile(log.Name())
			t.Logf("sample-apiserver's log:\n%s", tail(string(b)))
		}
		log.Close()
	})
	return cmd
}

func stopProcess(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
}

// waitReady waits for the server's own /readyz (which needs no credentials) to answer 200: its
// informers (namespaces, admission configuration, FlowSchemas and PriorityLevelConfigurations)
// have synced from the chain.
func waitReady(t *testing.T, port string) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}, Timeout: 10 * time.Second}
	last := "no answer"
	err := wait.PollUntilContextTimeout(context.Background(), 100*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		resp, err := client.Get("https://127.0.0.1:" + port + "/readyz?verbose")
		if err != nil {
			last = err.Error()
			return false, nil
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		last = string(b)
		return resp.StatusCode == http.StatusOK, nil
	})
	if err != nil {
		t.Fatalf("sample-apiserver with its default flags never became ready; its last /readyz:\n%s", last)
	}
}

// waitAvailable waits for the APIService's Available condition to be available; when it turns
// False it must say why, as kube-aggregator's availability controller does.
func waitAvailable(t *testing.T, cfg *rest.Config, available bool) {
	t.Helper()
	client := aggregator.NewForConfigOrDie(cfg).ApiregistrationV1().APIServices()
	want := apiregistrationv1.ConditionTrue
	if !available {
		want = apiregistrationv1.ConditionFalse
	}
	var last apiregistrationv1.APIServiceCondition
	waitFor(t, context.Background(), "APIService "+wardleAPIService+" Available="+string(want), func(ctx context.Context) (bool, error) {
		svc, err := client.Get(ctx, wardleAPIService, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		for _, c := range svc.Status.Conditions {
			if c.Type == apiregistrationv1.Available {
				last = c
				return c.Status == want, nil
			}
		}
		return false, nil
	})
	if !available && (last.Reason != "FailedDiscoveryCheck" || !strings.Contains(last.Message, "connection refused")) {
		t.Errorf("Available=False with reason %q, message %q; want FailedDiscoveryCheck, connection refused", last.Reason, last.Message)
	}
}

// checkWardleDiscovery: the group is in the chain's discovery, legacy and aggregated (client-go
// asks for the aggregated form first), with its flunders; or it is gone from both.
func checkWardleDiscovery(t *testing.T, cfg *rest.Config, present bool) {
	t.Helper()
	dc := discovery.NewDiscoveryClientForConfigOrDie(cfg)
	waitFor(t, context.Background(), "wardle.example.com in discovery: "+strconv.FormatBool(present), func(ctx context.Context) (bool, error) {
		_, lists, err := dc.ServerGroupsAndResources()
		if err != nil && present {
			return false, nil
		}
		found := false
		for _, l := range lists {
			if l.GroupVersion != "wardle.example.com/v1alpha1" {
				continue
			}
			for _, r := range l.APIResources {
				found = found || r.Name == "flunders"
			}
		}
		return found == present, nil
	})
	groups, err := dc.ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, g := range groups.Groups {
		found = found || g.Name == "wardle.example.com"
	}
	if found != present {
		t.Errorf("wardle.example.com in /apis: %v, want %v", found, present)
	}
}

func waitWatched(t *testing.T, w watch.Interface, name string) {
	t.Helper()
	timeout := time.After(2 * time.Minute)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("the watch ended before flunder %s was added", name)
			}
			if u, isObj := ev.Object.(*unstructured.Unstructured); isObj && ev.Type == watch.Added && u.GetName() == name {
				return
			}
		case <-timeout:
			t.Fatalf("no ADDED event for flunder %s", name)
		}
	}
}

func grantFlunderReader(t *testing.T, cfg *rest.Config, user string) {
	t.Helper()
	rbac := kubernetes.NewForConfigOrDie(cfg).RbacV1()
	ctx := context.Background()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "flunder-reader"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"wardle.example.com"}, Resources: []string{"flunders"}, Verbs: []string{"get", "list", "watch"}}}}
	if _, err := rbac.ClusterRoles().Create(ctx, role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "flunder-reader"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: role.Name},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: user}}}
	if _, err := rbac.ClusterRoleBindings().Create(ctx, binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// TestAPIServiceAddRejectsBadInput: each bad input exits 1 with an error that says what is
// wrong, and leaves nothing written in the chain.
func TestAPIServiceAddRejectsBadInput(t *testing.T) {
	r := startBinary(t, "--metrics", "off")
	defer r.stop(t)
	admin := filepath.Join(r.dir, "admin.kubeconfig")
	notPEM := filepath.Join(r.dir, "not-a-ca.pem")
	if err := os.WriteFile(notPEM, []byte("hello\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := []string{"--group-version", "wardle.example.com/v1alpha1", "--url", "https://127.0.0.1:8443", "--insecure-skip-tls-verify"}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--group-version", "wardle.example.com/v1alpha1", "--url", "http://127.0.0.1:8443", "--insecure-skip-tls-verify"}, "only https"},
		{[]string{"--group-version", "wardle.example.com/v1alpha1", "--url", "https://127.0.0.1:99999", "--insecure-skip-tls-verify"}, "port"},
		{[]string{"--group-version", "wardle.example.com/v1alpha1", "--url", "https://127.0.0.1:8443/apis", "--insecure-skip-tls-verify"}, "no path"},
		{[]string{"--group-version", "wardle.example.com", "--url", "https://127.0.0.1:8443", "--insecure-skip-tls-verify"}, "want GROUP/VERSION"},
		{[]string{"--group-version", "Wardle_Example/v1alpha1", "--url", "https://127.0.0.1:8443", "--insecure-skip-tls-verify"}, `group "Wardle_Example"`},
		{[]string{"--group-version", "wardle.example.com/V1", "--url", "https://127.0.0.1:8443", "--insecure-skip-tls-verify"}, `version "V1"`},
		{[]string{"--group-version", "wardle.example.com/v1alpha1", "--url", "https://127.0.0.1:8443", "--ca-file", filepath.Join(r.dir, "missing.pem")}, "--ca-file"},
		{[]string{"--group-version", "wardle.example.com/v1alpha1", "--url", "https://127.0.0.1:8443", "--ca-file", notPEM}, "no PEM certificate"},
		{[]string{"--group-version", "wardle.example.com/v1alpha1", "--url", "https://127.0.0.1:8443"}, "--insecure-skip-tls-verify"},
		{append(ok[:len(ok):len(ok)], "--write-kubeconfig", filepath.Join(r.dir, "no-such-dir", "k")), "no directory"},
	} {
		out, err := chainCommand(t, admin, append([]string{"apiservice", "add", wardleAPIService}, tc.args...)...)
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 {
			t.Errorf("chain apiservice add %v: %v, want exit code 1\n%s", tc.args, err, out)
		}
		if !strings.Contains(out, tc.want) {
			t.Errorf("chain apiservice add %v: the error does not say %q:\n%s", tc.args, tc.want, out)
		}
	}
	// The name must be VERSION.GROUP.
	if out, err := chainCommand(t, admin, append([]string{"apiservice", "add", "wardle"}, ok...)...); err == nil || !strings.Contains(out, "VERSION.GROUP") {
		t.Errorf("chain apiservice add wardle: %v\n%s", err, out)
	}
	// Nothing of any of them was written.
	checkNothingManaged(t, r.dir)

	// A write that fails half-way (a user who may write all but the APIService) is taken back.
	half := halfRightsKubeconfig(t, r.dir)
	out, err := chainCommand(t, half, append([]string{"apiservice", "add", wardleAPIService, "--write-kubeconfig", filepath.Join(r.dir, "w.kubeconfig")}, ok...)...)
	if err == nil || !strings.Contains(out, "creating apiservice.apiregistration.k8s.io/"+wardleAPIService) {
		t.Errorf("chain apiservice add by a user who may not create APIServices: %v, want it to fail creating the APIService\n%s", err, out)
	}
	checkNothingManaged(t, r.dir)
	if _, err := os.Stat(filepath.Join(r.dir, "w.kubeconfig")); !os.IsNotExist(err) {
		t.Errorf("the kubeconfig of a failed add was written: %v", err)
	}

	// Added twice: the second add changes nothing and says what is there already.
	if out, err := chainCommand(t, admin, append([]string{"apiservice", "add", wardleAPIService}, ok...)...); err != nil {
		t.Fatalf("chain apiservice add: %v\n%s", err, out)
	}
	if out, err := chainCommand(t, admin, append([]string{"apiservice", "add", wardleAPIService}, ok...)...); err == nil || !strings.Contains(out, "exist already") {
		t.Errorf("a second chain apiservice add: %v, want an error saying it exists\n%s", err, out)
	}
	// remove leaves alone what it did not write.
	if out, err := chainCommand(t, admin, "apiservice", "remove", "v1.apps"); err == nil || !strings.Contains(out, "left alone") {
		t.Errorf("chain apiservice remove v1.apps: %v\n%s", err, out)
	}
	if out, err := chainCommand(t, admin, "apiservice", "remove", wardleAPIService); err != nil {
		t.Fatalf("chain apiservice remove: %v\n%s", err, out)
	}
	checkNothingManaged(t, r.dir)
}

// halfRightsKubeconfig is a kubeconfig of the user "half", who may write everything `chain
// apiservice add` writes but the APIService (the admin's certificate, impersonating her).
func halfRightsKubeconfig(t *testing.T, dir string) string {
	t.Helper()
	cfg := adminConfig(t, dir)
	all := []string{"get", "list", "create", "delete"}
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "half"}, Rules: []rbacv1.PolicyRule{
		{APIGroups: []string{""}, Resources: []string{"serviceaccounts", "serviceaccounts/token", "services"}, Verbs: all},
		{APIGroups: []string{"discovery.k8s.io"}, Resources: []string{"endpointslices"}, Verbs: all},
		{APIGroups: []string{"rbac.authorization.k8s.io"}, Resources: []string{"clusterroles", "clusterrolebindings", "roles", "rolebindings"}, Verbs: append(all, "bind", "escalate")},
		{APIGroups: []string{"apiregistration.k8s.io"}, Resources: []string{"apiservices"}, Verbs: []string{"get", "list"}},
	}}
	rbac := kubernetes.NewForConfigOrDie(cfg).RbacV1()
	if _, err := rbac.ClusterRoles().Create(context.Background(), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "half"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "half"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: "half"}}}
	if _, err := rbac.ClusterRoleBindings().Create(context.Background(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kc, err := clientcmd.LoadFromFile(filepath.Join(dir, "admin.kubeconfig"))
	if err != nil {
		t.Fatal(err)
	}
	for _, user := range kc.AuthInfos {
		user.Impersonate = "half"
	}
	path := filepath.Join(dir, "half.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// checkNothingManaged: no object in the chain carries the label of `chain apiservice add`.
func checkNothingManaged(t *testing.T, dir string) {
	t.Helper()
	cfg := adminConfig(t, dir)
	dyn := dynamic.NewForConfigOrDie(cfg)
	sel := metav1.ListOptions{LabelSelector: apiservice.ManagedByLabel + "=" + apiservice.ManagedBy}
	for _, gvr := range []schema.GroupVersionResource{
		apiregistrationv1.SchemeGroupVersion.WithResource("apiservices"),
		{Version: "v1", Resource: "services"},
		{Version: "v1", Resource: "serviceaccounts"},
		{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices"},
		rbacv1.SchemeGroupVersion.WithResource("clusterroles"),
		rbacv1.SchemeGroupVersion.WithResource("clusterrolebindings"),
		rbacv1.SchemeGroupVersion.WithResource("rolebindings"),
	} {
		l, err := dyn.Resource(gvr).List(context.Background(), sel)
		if err != nil {
			t.Fatalf("list %s: %v", gvr.Resource, err)
		}
		for _, o := range l.Items {
			t.Errorf("%s %s/%s is left", gvr.Resource, o.GetNamespace(), o.GetName())
		}
	}
}
