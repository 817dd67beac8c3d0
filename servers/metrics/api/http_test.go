package api

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	openapinamer "k8s.io/apiserver/pkg/endpoints/openapi"
	genericapiserver "k8s.io/apiserver/pkg/server"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	metricsv1 "k8s.io/metrics/pkg/apis/metrics/v1"
	"k8s.io/metrics/pkg/apis/metrics/v1beta1"
	metricsclient "k8s.io/metrics/pkg/client/clientset/versioned"

	"github.com/apichain/apichain/internal/version"
	"github.com/apichain/apichain/servers/metrics/openapi"
)

// serve installs the API in a bare generic apiserver (everyone is allowed everything) and
// serves it over plain HTTP: what the API does on the wire, without the chain.
func serve(t *testing.T) *rest.Config {
	t.Helper()
	scheme := NewScheme()
	codecs := NewCodecs(scheme)
	c := genericapiserver.NewConfig(codecs)
	c.EffectiveVersion = version.Effective()
	c.OpenAPIConfig = genericapiserver.DefaultOpenAPIConfig(openapi.GetOpenAPIDefinitions, openapinamer.NewDefinitionNamer(scheme))
	c.OpenAPIV3Config = genericapiserver.DefaultOpenAPIV3Config(openapi.GetOpenAPIDefinitions, openapinamer.NewDefinitionNamer(scheme))
	c.Authentication.Authenticator = authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
		return &authenticator.Response{User: &user.DefaultInfo{Name: "test", Groups: []string{user.SystemPrivilegedGroup}}}, true, nil
	})
	c.Authorization.Authorizer = authorizerfactory.NewAlwaysAllowAuthorizer()
	c.LoopbackClientConfig = &rest.Config{}
	c.ExternalAddress = "localhost:443" // no secure serving to derive it from
	s, err := c.Complete(nil).New("metrics-test", genericapiserver.NewEmptyDelegate())
	if err != nil {
		t.Fatal(err)
	}
	info := Config{Metrics: fakeMetrics{}, Nodes: testNodes(), Pods: testPods()}.APIGroupInfo(scheme, codecs)
	if err := s.InstallAPIGroup(&info); err != nil {
		t.Fatal(err)
	}
	s.PrepareRun()
	srv := httptest.NewServer(s.Handler)
	t.Cleanup(srv.Close)
	return &rest.Config{Host: srv.URL}
}

func TestServeJSONAndProtobuf(t *testing.T) {
	cfg := serve(t)
	ctx := context.Background()
	for _, contentType := range []string{runtime.ContentTypeJSON, runtime.ContentTypeProtobuf} {
		c := rest.CopyConfig(cfg)
		c.ContentType = contentType
		cs, err := metricsclient.NewForConfig(c)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(contentType, func(t *testing.T) {
			beta, err := cs.MetricsV1beta1().NodeMetricses().List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ga, err := cs.MetricsV1().NodeMetricses().List(ctx, metav1.ListOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(beta.Items) != 3 || len(ga.Items) != 3 {
				t.Fatalf("got %d v1beta1 and %d v1 nodes, want 3 each", len(beta.Items), len(ga.Items))
			}
			if diff := cmp.Diff(beta.Items[0].Usage, ga.Items[0].Usage); diff != "" || ga.Items[0].Name != "node1" {
				t.Errorf("v1 and v1beta1 differ: %s", diff)
			}

			n, err := cs.MetricsV1().NodeMetricses().Get(ctx, "node2", metav1.GetOptions{})
			if err != nil || n.Name != "node2" {
				t.Errorf("get node2: %v %v", n, err)
			}
			sel, err := cs.MetricsV1().NodeMetricses().List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=node3"})
			if err != nil || len(sel.Items) != 1 || sel.Items[0].Name != "node3" {
				t.Errorf("field selector: %v %v", sel, err)
			}
			sel, err = cs.MetricsV1().NodeMetricses().List(ctx, metav1.ListOptions{LabelSelector: "labelKey=labelValue"})
			if err != nil || len(sel.Items) != 1 || sel.Items[0].Name != "node1" {
				t.Errorf("label selector: %v %v", sel, err)
			}

			pods, err := cs.MetricsV1beta1().PodMetricses("ns1").List(ctx, metav1.ListOptions{FieldSelector: "metadata.name=pod2"})
			if err != nil || len(pods.Items) != 1 || len(pods.Items[0].Containers) != 2 {
				t.Errorf("pods in ns1 named pod2: %v %v", pods, err)
			}
			all, err := cs.MetricsV1().PodMetricses("").List(ctx, metav1.ListOptions{FieldSelector: "metadata.namespace=ns1", LabelSelector: "labelKey=otherValue"})
			if err != nil || len(all.Items) != 2 {
				t.Errorf("pods in all namespaces: %v %v", all, err)
			}
			// Only metadata.name and metadata.namespace select.
			if _, err := cs.MetricsV1().PodMetricses("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=node1"}); err == nil {
				t.Error("a field selector on spec.nodeName was accepted")
			}
		})
	}
}

func TestServeTable(t *testing.T) {
	cfg := serve(t)
	req, _ := http.NewRequest(http.MethodGet, cfg.Host+"/apis/metrics.k8s.io/v1/namespaces/ns1/pods", nil)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var table metav1.Table
	if err := json.NewDecoder(resp.Body).Decode(&table); err != nil {
		t.Fatal(err)
	}
	if table.Kind != "Table" || len(table.Rows) != 3 || len(table.ColumnDefinitions) != 4 {
		t.Fatalf("unexpected table: %+v", table)
	}
	if got := table.Rows[1].Cells; got[0] != "pod2" || got[1] != "20m" || got[2] != "15Mi" {
		t.Errorf("row of pod2: %v", got)
	}
}

func TestServeDiscovery(t *testing.T) {
	cfg := serve(t)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := dc.ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	if len(groups.Groups) != 1 || groups.Groups[0].PreferredVersion.Version != "v1" || len(groups.Groups[0].Versions) != 2 {
		t.Fatalf("groups: %+v", groups.Groups)
	}
	for _, gv := range []string{metricsv1.SchemeGroupVersion.String(), v1beta1.SchemeGroupVersion.String()} {
		rl, err := dc.ServerResourcesForGroupVersion(gv)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, r := range rl.APIResources {
			got = append(got, r.Name+":"+r.Kind+":"+strings.Join(r.Verbs, ","))
		}
		if want := "[nodes:NodeMetrics:get,list pods:PodMetrics:get,list]"; strings.Join(got, " ") != want[1:len(want)-1] {
			t.Errorf("%s resources %v, want %s", gv, got, want)
		}
	}
	// OpenAPI v3 knows both versions.
	paths, err := dc.OpenAPIV3().Paths()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"apis/metrics.k8s.io/v1", "apis/metrics.k8s.io/v1beta1"} {
		if _, ok := paths[p]; !ok {
			t.Errorf("no OpenAPI v3 for %s", p)
		}
	}
}
