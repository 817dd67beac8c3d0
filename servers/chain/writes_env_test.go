package chain_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"

	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/testchain"
)

// fuzzWrite is one fuzzed request.
type fuzzWrite struct {
	method, path, contentType string
	http1                     bool
	body                      []byte
}

func (w fuzzWrite) String() string {
	proto := "HTTP/2"
	if w.http1 {
		proto = "HTTP/1.1"
	}
	return fmt.Sprintf("%s %s (%q, %d bytes, %s)", w.method, w.path, w.contentType, len(w.body), proto)
}

// writeEnv is the chain the fuzzed writes go to, and the clients that write.
type writeEnv struct {
	targets []*writeTarget

	dir   string
	chain *testchain.Chain
	h2    *http.Client
	h1    *http1Client
	// sentinels are the resourceVersions of objects no input names.
	sentinels map[string]string
	// last is the request before, named when the next one is not answered.
	last string
}

func (e *writeEnv) stop() {
	if e.h1 != nil {
		e.h1.close()
	}
	if e.chain != nil {
		_ = e.chain.Stop()
	}
	if e.dir != "" {
		_ = os.RemoveAll(e.dir)
	}
}

// setUp starts the chain and makes what the inputs need: the targets, their namespace, the
// custom resource's CRD and the sentinels.
func (e *writeEnv) setUp() error {
	dir, err := os.MkdirTemp("", "fuzz-writes-")
	if err != nil {
		return err
	}
	e.dir = dir
	if e.chain, err = testchain.StartIn(dir, nil); err != nil {
		return err
	}
	admin := e.chain.Admin
	rt, err := rest.TransportFor(admin)
	if err != nil {
		return err
	}
	e.h2 = &http.Client{Transport: rt, Timeout: 2 * time.Minute}
	if e.h1, err = newHTTP1Client(admin); err != nil {
		return err
	}
	// What the targets need: their namespace with its service account, the CRD of the
	// custom resource; and the sentinels, in that namespace and in another.
	crd, err := json.Marshal(coretest.WidgetCRD("fuzz.example.com"))
	if err != nil {
		return err
	}
	for _, obj := range []struct{ collection, body string }{
		{"/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fuzz"}}`},
		{"/api/v1/namespaces", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"fuzz-sentinel"}}`},
		{"/api/v1/namespaces/fuzz/serviceaccounts", `{"apiVersion":"v1","kind":"ServiceAccount","metadata":{"name":"default"}}`},
		{"/api/v1/namespaces/fuzz/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"keep","labels":{"fuzz-sentinel":"yes"}},"data":{"a":"b"}}`},
		{"/api/v1/namespaces/fuzz-sentinel/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"keep","labels":{"fuzz-sentinel":"yes"}},"data":{"a":"b"}}`},
		{"/apis/apiextensions.k8s.io/v1/customresourcedefinitions", string(crd)},
	} {
		if err := e.post(obj.collection, []byte(obj.body)); err != nil {
			return err
		}
	}
	// The custom resource is served once discovery lists it.
	var mapper meta.RESTMapper
	err = wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 30*time.Second, true, func(context.Context) (bool, error) {
		groups, err := restmapper.GetAPIGroupResources(discovery.NewDiscoveryClientForConfigOrDie(admin))
		if err != nil {
			return false, nil
		}
		mapper = restmapper.NewDiscoveryRESTMapper(groups)
		_, err = mapper.RESTMapping(schema.GroupKind{Group: "fuzz.example.com", Kind: "Widget"}, "v1")
		return err == nil, nil
	})
	if err != nil {
		return fmt.Errorf("the custom resource is not served: %w", err)
	}
	for _, tg := range e.targets {
		m, err := mapper.RESTMapping(tg.gvk.GroupKind(), tg.gvk.Version)
		if err != nil {
			return err
		}
		ns := ""
		if tg.namespaced {
			ns = fuzzNamespace
		}
		tg.collection = coretest.CollectionPath(m.Resource, ns)
		tg.path = tg.collection + "/" + tg.name()
		if tg.subresource != "" {
			tg.path += "/" + tg.subresource
			continue // its object is its resource's
		}
		body, err := json.Marshal(tg.object)
		if err != nil {
			return err
		}
		if err := e.post(tg.collection, body); err != nil {
			return err
		}
	}
	e.sentinels, err = e.readSentinels()
	return err
}

func (e *writeEnv) post(collection string, body []byte) error {
	resp, answer, err := e.do(http.MethodPost, collection, body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("creating in %s: %d %.300s", collection, resp.StatusCode, answer)
	}
	return nil
}

// do sends a request of the test's own (not a fuzzed one) over HTTP/2.
func (e *writeEnv) do(method, path string, body []byte) (*http.Response, []byte, error) {
	return e.send(fuzzWrite{method: method, path: path, contentType: "application/json", body: body})
}

// write turns an input into a request.
func (e *writeEnv) write(target, verb, contentType, flags uint8, body []byte) fuzzWrite {
	tg := e.targets[int(target)%len(e.targets)]
	w := fuzzWrite{contentType: writeContentTypes[int(contentType)%len(writeContentTypes)], http1: flags&flagHTTP1 != 0, body: body}
	if flags&flagSplice != 0 {
		fields := tg.fields()
		w.body = splice(tg.written(), fields[int(flags>>spliceShift)%len(fields)], w.contentType, body)
	}
	switch verb % 3 {
	case verbPost:
		w.method, w.path = http.MethodPost, tg.collection
		if tg.subresource != "" {
			w.path = tg.path
		}
	case verbPut:
		w.method, w.path = http.MethodPut, tg.path
	default:
		w.method, w.path = http.MethodPatch, tg.path
	}
	var query []string
	if strings.HasPrefix(w.contentType, "application/apply-patch") && flags&flagNoApplyUser == 0 {
		query = append(query, "fieldManager=fuzz")
	}
	if flags&flagDryRun != 0 {
		query = append(query, "dryRun=All")
	}
	if flags&flagStrict != 0 {
		query = append(query, "fieldValidation=Strict")
	}
	if len(query) > 0 {
		w.path += "?" + strings.Join(query, "&")
	}
	return w
}

// splice writes value as field of obj: the whole object with the field replaced, or for the
// patch types that take part of an object, only the field; JSON, which YAML reads too.
func splice(obj map[string]any, field []string, contentType string, value []byte) []byte {
	const mark = "\x00spliced\x00"
	if contentType == "application/json-patch+json" {
		return []byte(`[{"op":"add","path":"/` + strings.Join(field, "/") + `","value":` + string(value) + `}]`)
	}
	if contentType == "application/merge-patch+json" || contentType == "application/strategic-merge-patch+json" {
		obj = map[string]any{}
	}
	obj = runtime.DeepCopyJSON(obj)
	parent := obj
	for _, k := range field[:len(field)-1] {
		if _, ok := parent[k].(map[string]any); !ok {
			parent[k] = map[string]any{}
		}
		parent = parent[k].(map[string]any)
	}
	parent[field[len(field)-1]] = mark
	b, _ := json.Marshal(obj)
	quoted, _ := json.Marshal(mark)
	return bytes.Replace(b, quoted, value, 1)
}

// send sends a fuzzed request and reads its whole answer.
func (e *writeEnv) send(w fuzzWrite) (*http.Response, []byte, error) {
	req, err := http.NewRequest(w.method, e.chain.Admin.Host+w.path, bytes.NewReader(w.body))
	if err != nil {
		return nil, nil, err
	}
	if w.contentType != "" {
		req.Header.Set("Content-Type", w.contentType)
	}
	req.Header.Set("Accept", "application/json")
	if w.http1 {
		return e.h1.roundTrip(req)
	}
	resp, err := e.h2.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(resp.Body)
	return resp, answer, err
}

// checkChain checks that the chain is up and ready and that no object an input does not name
// has changed.
func (e *writeEnv) checkChain(t *testing.T, w fuzzWrite) {
	t.Helper()
	select {
	case <-e.chain.Done():
		t.Fatalf("the chain stopped after %s: %v", w, e.chain.Err())
	default:
	}
	resp, answer, err := e.do(http.MethodGet, "/readyz", nil)
	if err != nil || resp.StatusCode != http.StatusOK || string(answer) != "ok" {
		t.Fatalf("/readyz after %s: %v %s", w, err, answer)
	}
	now, err := e.readSentinels()
	if err != nil {
		t.Fatalf("reading the sentinels after %s: %v", w, err)
	}
	for name, rv := range e.sentinels {
		if now[name] != rv {
			t.Fatalf("changed: %s changed (resourceVersion %s, was %s) after %s", name, now[name], rv, w)
		}
	}
}

// readSentinels returns the resourceVersions of the objects labelled fuzz-sentinel that the
// set-up made, by namespace/name.
func (e *writeEnv) readSentinels() (map[string]string, error) {
	resp, answer, err := e.do(http.MethodGet, "/api/v1/configmaps?labelSelector=fuzz-sentinel", nil)
	if err != nil {
		return nil, err
	}
	var list metav1.PartialObjectMetadataList
	if err := json.Unmarshal(answer, &list); err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("listing: %d %v %.300s", resp.StatusCode, err, answer)
	}
	rvs := map[string]string{}
	for _, item := range list.Items {
		if item.Name == "keep" {
			rvs[item.Namespace+"/"+item.Name] = item.ResourceVersion
		}
	}
	if len(rvs) != 2 {
		return nil, fmt.Errorf("%d sentinels, want 2", len(rvs))
	}
	return rvs, nil
}

// logWrite appends what was sent and the answer's code to the file $FUZZ_WRITES_LOG, if set:
// a record of a fuzzing run (every process of it appends), which the test does not need.
func logWrite(w fuzzWrite, resp *http.Response, err error) {
	path := os.Getenv("FUZZ_WRITES_LOG")
	if path == "" {
		return
	}
	answer := "no answer"
	if err == nil {
		answer = strconv.Itoa(resp.StatusCode)
	}
	if f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
		fmt.Fprintf(f, "%s %s\n", answer, w)
		f.Close()
	}
}
