package chain_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/runtime/serializer/cbor/direct"
	"sigs.k8s.io/yaml"

	"github.com/apichain/apichain/servers/core"
	"github.com/apichain/apichain/test/core/coretest"
	"github.com/apichain/apichain/test/reference"
)

// FuzzWrites sends fuzzed writes to a chain of its own and holds it to its promises for bad
// input: every request gets an answer on its connection (HTTP/2 as client-go speaks it, or
// HTTP/1.1 written whole before the answer is read, as Python's clients do, on a connection
// kept between requests); every answer is 2xx, or 4xx with a Kubernetes Status; objects the
// writes do not name stay as they were; the chain stays up and /readyz says ok.
//
// An input picks a target (one object of each of 34 kinds of kube-apiserver's validation
// corpus, a custom resource, a CRD, an APIService, pods/status and deployments/scale), a verb
// (POST to the collection, PUT or PATCH to the object), a content type (JSON, YAML, protobuf,
// CBOR, text/plain, none, and the patch types: JSON, merge, strategic merge, apply as YAML and
// as CBOR), flags (HTTP/1.1, dryRun=All, fieldValidation=Strict, no fieldManager for an
// apply, the body as the value of one field) and the body. The seeds: for every target, POST
// and PUT with each of the six body types and PATCH with each of the five patch types, values
// of the wrong type, and requests the chain once answered with a 500 or not at all. `go test`
// runs the seeds; docs/reliability.md says how to fuzz for longer.
func FuzzWrites(f *testing.F) {
	targets, err := loadWriteTargets()
	if err != nil {
		f.Fatal(err)
	}
	scheme, err := core.NewScheme()
	if err != nil {
		f.Fatal(err)
	}
	encode := bodyEncoder(scheme)
	n := 0
	for i, tg := range targets {
		for _, s := range tg.seeds(encode) {
			f.Add(uint8(i), s.verb, s.contentType, s.flags|uint8(n%2), s.body) // every other one over HTTP/1.1
			n++
		}
	}
	for _, s := range onceBrokenSeeds(targets) {
		f.Add(s.target, s.verb, s.contentType, s.flags, s.body)
	}

	// The chain starts here, before any input: in a fuzzing run every process starts one (the
	// coordinator's stays idle), because an input that runs for more than 10 s ends its worker
	// as hung, and a chain's start is no input's business.
	env := &writeEnv{targets: targets}
	f.Cleanup(env.stop)
	if err := env.setUp(); err != nil {
		f.Fatalf("setting up the fuzzed chain: %v", err)
	}
	f.Fuzz(func(t *testing.T, target, verb, contentType, flags uint8, body []byte) {
		w := env.write(target, verb, contentType, flags, body)
		resp, answer, err := env.send(w)
		logWrite(w, resp, err)
		last := env.last
		env.last = w.String()
		switch {
		case err != nil:
			t.Fatalf("dropped: %s got no answer: %v (the request before on this client: %s)", w, err, last)
		case resp.StatusCode >= 500:
			t.Fatalf("5xx: %s: %d %.500s", w, resp.StatusCode, answer)
		case resp.StatusCode >= 400:
			var st metav1.Status
			if err := json.Unmarshal(answer, &st); err != nil || st.Kind != "Status" || st.Code != int32(resp.StatusCode) || st.Message == "" {
				t.Fatalf("not a Status: %s: %d %s %.500s", w, resp.StatusCode, resp.Header.Get("Content-Type"), answer)
			}
		case resp.StatusCode < 200 || resp.StatusCode >= 300:
			t.Fatalf("%s: %d %.500s", w, resp.StatusCode, answer)
		}
		env.checkChain(t, w)
	})
}

// The content types an input chooses from (contentType modulo their number): every body
// kube-apiserver reads, some it refuses, and none at all.
var writeContentTypes = []string{
	"application/json", "application/yaml", "application/vnd.kubernetes.protobuf", "application/cbor", "text/plain", "",
	"application/merge-patch+json", "application/json-patch+json", "application/strategic-merge-patch+json",
	"application/apply-patch+yaml", "application/apply-patch+cbor",
}

// The indexes of writeContentTypes that seeds use.
const (
	ctJSON, ctYAML, ctProtobuf, ctCBOR, ctText, ctNone      = 0, 1, 2, 3, 4, 5
	ctMerge, ctJSONPatch, ctStrategic, ctApply, ctApplyCBOR = 6, 7, 8, 9, 10
)

// The verbs (verb modulo 3) and flags of an input.
const (
	verbPost, verbPut, verbPatch = 0, 1, 2

	flagHTTP1       = 1 << 0 // HTTP/1.1 on a kept connection instead of client-go's HTTP/2
	flagDryRun      = 1 << 1 // ?dryRun=All
	flagStrict      = 1 << 2 // ?fieldValidation=Strict
	flagNoApplyUser = 1 << 3 // an apply without ?fieldManager
	// flagSplice: the body is not the whole request body but the value of one field of the
	// target's object (the field: the flags' top three bits), the rest of the body written
	// as the content type expects: values of the wrong type in otherwise valid requests.
	flagSplice = 1 << 4
)

// spliceShift is where the flags keep the field a spliced body goes to.
const spliceShift = 5

// writeTarget is one object the fuzzed writes go to.
type writeTarget struct {
	gvk         schema.GroupVersionKind
	namespaced  bool
	subresource string // "status", "scale": PUT and PATCH go to it, POST too
	// object is valid and exists in the chain before any input runs (the subresources'
	// objects are their resource's); body is what a seed writes to the subresource, if other.
	object map[string]any
	body   map[string]any
	// collection and path, once a chain runs: where POST and PUT or PATCH go.
	collection, path string
}

// fields are where a spliced body can go: some of every object's metadata, then the
// object's own top-level fields (the flags reach the first eight).
func (tg *writeTarget) fields() [][]string {
	fields := [][]string{{"metadata", "labels"}, {"metadata", "finalizers"}, {"metadata", "ownerReferences"}, {"metadata", "resourceVersion"}}
	for _, k := range slices.Sorted(maps.Keys(tg.written())) {
		if k != "apiVersion" && k != "kind" && k != "metadata" {
			fields = append(fields, []string{k})
		}
	}
	return fields
}

// written is what seeds write: the object, or its subresource's body.
func (tg *writeTarget) written() map[string]any {
	if tg.body != nil {
		return tg.body
	}
	return tg.object
}

const fuzzNamespace = "fuzz"

func (tg *writeTarget) name() string {
	return tg.object["metadata"].(map[string]any)["name"].(string)
}

// loadWriteTargets reads one valid object of each kind from kube-apiserver's validation corpus
// (for the kinds whose valid objects the corpus lacks, an object whose only mistake is its
// name, which is replaced), and adds the targets of ApiExtensions, the Aggregator and two
// subresources. The order is the same in every process of a fuzzing run.
func loadWriteTargets() ([]*writeTarget, error) {
	corpus, err := reference.ReadCorpus()
	if err != nil {
		return nil, err
	}
	valid, misnamed := map[string]map[string]any{}, map[string]map[string]any{}
	for _, c := range corpus.Cases {
		kind, _ := c.Object["kind"].(string)
		switch {
		case c.Op == "create" && c.Expect.Code < 300 && valid[kind] == nil:
			valid[kind] = c.Object
		case strings.HasPrefix(c.Name, kind+"/name-") && misnamed[kind] == nil:
			misnamed[kind] = c.Object
		}
	}
	byKind := map[string]*writeTarget{}
	for kind, obj := range misnamed {
		if valid[kind] == nil {
			valid[kind] = obj
		}
	}
	// A valid webhook configuration would send every later write to a webhook that is not
	// there: 500s that are the chain's right answer, not a fault.
	delete(valid, "ValidatingWebhookConfiguration")
	var targets []*writeTarget
	for _, kind := range slices.Sorted(maps.Keys(valid)) {
		obj := moveNamespace(runtime.DeepCopyJSON(valid[kind]), corpus.Namespace, fuzzNamespace).(map[string]any)
		meta := obj["metadata"].(map[string]any)
		_, namespaced := meta["namespace"]
		if kind != "IPAddress" { // named by its address
			meta["name"] = "fuzz-target"
		}
		gv, err := schema.ParseGroupVersion(obj["apiVersion"].(string))
		if err != nil {
			return nil, err
		}
		byKind[kind] = &writeTarget{gvk: gv.WithKind(kind), namespaced: namespaced, object: obj}
		targets = append(targets, byKind[kind])
	}
	widget := map[string]any{"apiVersion": "fuzz.example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "fuzz-target", "namespace": fuzzNamespace}, "spec": map[string]any{"size": int64(3), "replicas": int64(1)}}
	apiService := map[string]any{"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService", "metadata": map[string]any{"name": "v1.fuzzapi.example.com"},
		"spec": map[string]any{"group": "fuzzapi.example.com", "version": "v1", "groupPriorityMinimum": int64(100), "versionPriority": int64(10)}}
	crd, err := runtime.DefaultUnstructuredConverter.ToUnstructured(coretest.WidgetCRD("fuzztoys.example.com"))
	if err != nil {
		return nil, err
	}
	crd["apiVersion"], crd["kind"] = "apiextensions.k8s.io/v1", "CustomResourceDefinition"
	pod, deployment := byKind["Pod"], byKind["Deployment"]
	scale := map[string]any{"apiVersion": "autoscaling/v1", "kind": "Scale", "metadata": map[string]any{"name": "fuzz-target", "namespace": fuzzNamespace}, "spec": map[string]any{"replicas": int64(2)}}
	return append(targets,
		&writeTarget{gvk: schema.GroupVersionKind{Group: "fuzz.example.com", Version: "v1", Kind: "Widget"}, namespaced: true, object: widget},
		&writeTarget{gvk: schema.GroupVersionKind{Group: "apiextensions.k8s.io", Version: "v1", Kind: "CustomResourceDefinition"}, object: crd},
		&writeTarget{gvk: schema.GroupVersionKind{Group: "apiregistration.k8s.io", Version: "v1", Kind: "APIService"}, object: apiService},
		&writeTarget{gvk: pod.gvk, namespaced: true, subresource: "status", object: pod.object},
		&writeTarget{gvk: deployment.gvk, namespaced: true, subresource: "scale", object: deployment.object, body: scale},
	), nil
}

// moveNamespace replaces the namespace from by to wherever a value of v names it (the
// object's, an event's involved object's, a subject's).
func moveNamespace(v any, from, to string) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = moveNamespace(x, from, to)
		}
	case []any:
		for i, x := range v {
			v[i] = moveNamespace(x, from, to)
		}
	case string:
		if v == from {
			return to
		}
	}
	return v
}

// writeSeed is one seed: the fuzz function's arguments.
type writeSeed struct {
	target, verb, contentType, flags uint8
	body                             []byte
}

// seeds writes the target's object in every body form kube-apiserver reads or refuses, with
// POST (under another name: the target exists) and PUT, and patches it in every patch type.
func (tg *writeTarget) seeds(encode func(map[string]any, int) []byte) []writeSeed {
	obj := tg.written()
	created := runtime.DeepCopyJSON(obj)
	created["metadata"].(map[string]any)["name"] = "fuzz-new"
	var seeds []writeSeed
	for _, ct := range []int{ctJSON, ctYAML, ctProtobuf, ctCBOR, ctText, ctNone} {
		seeds = append(seeds, writeSeed{verb: verbPost, contentType: uint8(ct), body: encode(created, ct)}, writeSeed{verb: verbPut, contentType: uint8(ct), body: encode(obj, ct)})
	}
	return append(seeds,
		writeSeed{verb: verbPatch, contentType: ctMerge, body: []byte(`{"metadata":{"labels":{"fuzz":"merge"}}}`)},
		writeSeed{verb: verbPatch, contentType: ctJSONPatch, body: []byte(`[{"op":"add","path":"/metadata/labels","value":{"fuzz":"json-patch"}}]`)},
		writeSeed{verb: verbPatch, contentType: ctStrategic, body: []byte(`{"metadata":{"labels":{"fuzz":"strategic"},"annotations":{"$patch":"replace"}}}`)},
		writeSeed{verb: verbPatch, contentType: ctApply, body: encode(obj, ctYAML)},
		writeSeed{verb: verbPatch, contentType: ctApplyCBOR, body: encode(obj, ctCBOR)},
		// Values of the wrong type in the object's labels and its first own field.
		writeSeed{verb: verbPatch, contentType: ctApply, flags: flagSplice, body: []byte(`"x"`)},
		writeSeed{verb: verbPut, contentType: ctJSON, flags: flagSplice | 4<<spliceShift, body: []byte(`[1,2]`)},
		writeSeed{verb: verbPatch, contentType: ctStrategic, flags: flagSplice | 4<<spliceShift, body: []byte(`{"$patch":"nope"}`)},
	)
}

// bodyEncoder encodes an object as a content type of writeContentTypes: JSON for the ones
// that are not encodings, protobuf as Core's scheme writes it (for other kinds, the envelope
// with JSON inside, which no server can read).
func bodyEncoder(scheme *runtime.Scheme) func(map[string]any, int) []byte {
	codecs := serializer.NewCodecFactory(scheme)
	info, _ := runtime.SerializerInfoForMediaType(codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	return func(obj map[string]any, ct int) []byte {
		asJSON, err := json.Marshal(obj)
		if err != nil {
			panic(err) // a map decoded from JSON
		}
		switch ct {
		case ctYAML:
			b, _ := yaml.JSONToYAML(asJSON)
			return b
		case ctCBOR, ctApplyCBOR:
			b, _ := direct.Marshal(obj)
			return b
		case ctProtobuf:
			u := runtime.DeepCopyJSON(obj)
			gvk := schema.FromAPIVersionAndKind(u["apiVersion"].(string), u["kind"].(string))
			if typed, err := scheme.New(gvk); err == nil && runtime.DefaultUnstructuredConverter.FromUnstructured(u, typed) == nil {
				var b bytes.Buffer
				if codecs.EncoderForVersion(info.Serializer, gvk.GroupVersion()).Encode(typed, &b) == nil {
					return b.Bytes()
				}
			}
			return append([]byte("k8s\x00"), asJSON...)
		default:
			return asJSON
		}
	}
}

// onceBrokenSeeds are requests the chain once answered with a 500 or not at all (found by
// fuzzing and fixed), and their kin.
func onceBrokenSeeds(targets []*writeTarget) []writeSeed {
	index := func(kind, subresource string) uint8 {
		for i, tg := range targets {
			if tg.gvk.Kind == kind && tg.subresource == subresource {
				return uint8(i)
			}
		}
		panic("no target " + kind)
	}
	cm, dep, secret := index("ConfigMap", ""), index("Deployment", ""), index("Secret", "")
	apiService, crd, widget := index("APIService", ""), index("CustomResourceDefinition", ""), index("Widget", "")
	big := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"big"},"data":{"a":"` + strings.Repeat("x", 70000) + `"}}`
	return []writeSeed{
		// Strategic merge patches that strategicpatch cannot apply.
		{cm, verbPatch, ctStrategic, 0, []byte(`{"$patch":"nope"}`)},
		{cm, verbPatch, ctStrategic, flagHTTP1, []byte(`{"$patch":"merge"}`)},
		{apiService, verbPatch, ctStrategic, 0, []byte(`{"$patch":"merge"}`)},
		{crd, verbPatch, ctStrategic, flagDryRun, []byte(`{"$patch":"nope"}`)},
		{dep, verbPatch, ctStrategic, 0, []byte(`{"spec":{"template":{"spec":{"containers":[1,2]}}}}`)},
		{dep, verbPatch, ctStrategic, 0, []byte(`{"spec":{"template":{"spec":{"$setElementOrder/containers":[1]}}}}`)},
		// Apply patches whose fields have the wrong type, or are not in the schema.
		{cm, verbPatch, ctApply, 0, []byte("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: fuzz-target\n  namespace: fuzz\ndata: [1, 2]\n")},
		{cm, verbPatch, ctApply, flagDryRun | flagHTTP1, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fuzz-target"},"data":[1,2]}`)},
		{cm, verbPatch, ctApply, 0, []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"fuzz-target"},"spec":{"nope":1}}`)},
		{secret, verbPatch, ctApply, 0, []byte(`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"fuzz-target"},"data":{"k":"not base64!"}}`)},
		{widget, verbPatch, ctApply, flagStrict, []byte(`{"apiVersion":"fuzz.example.com/v1","kind":"Widget","metadata":{"name":"fuzz-target"},"spec":{"size":[1,2]}}`)},
		// Odd values in a ConfigMap's data (its first own field) and labels.
		{cm, verbPut, ctJSON, flagSplice | 4<<spliceShift, []byte(`1e400`)},
		{cm, verbPatch, ctMerge, flagSplice | 4<<spliceShift, []byte(`{"a":"\ud800\u0000\u202e"}`)},
		{cm, verbPut, ctYAML, flagSplice | 4<<spliceShift, []byte(`{"a":"` + strings.Repeat("x", 70000) + `"}`)},
		{cm, verbPatch, ctApply, flagSplice, []byte(nested(200))},
		{dep, verbPatch, ctJSONPatch, flagSplice | 4<<spliceShift, []byte(`{"replicas":"x","selector":[]}`)},
		// A 70 kB body of a type no server reads, over both protocols.
		{cm, verbPost, ctText, flagHTTP1, []byte(big)},
		{cm, verbPost, ctText, 0, []byte(big)},
		{cm, verbPut, ctText, flagHTTP1, []byte(big)},
	}
}
