// Package validationtest holds what the tests of Core's validation packages share: objects
// decoded and defaulted as Core sees them, errors compared as kube-apiserver prints them, the
// merge with the generated declarative rules, and kube-apiserver's validation corpus run
// straight through a package's functions.
//
// It is imported only by tests (servers/core/validation/<group>/*_test.go).
package validationtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/operation"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/apichain/apichain/servers/core/defaults"
	"github.com/apichain/apichain/servers/core/validation/declarative"
)

// Scheme knows every kind Core serves, defaults objects as Core does before it validates
// them, and knows the generated declarative rules of every kind.
var Scheme = func() *kruntime.Scheme {
	s := kruntime.NewScheme()
	for _, add := range []func(*kruntime.Scheme) error{clientgoscheme.AddToScheme, defaults.RegisterDefaults, declarative.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// Reference is the directory of the repository's copy of kube-apiserver's observed behaviour
// (test/reference at the repository's root).
func Reference() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "..", "test", "reference")
}

// ReadReference reads a file of the reference, such as defaulted/node.json.
func ReadReference(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(Reference(), name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// Decode reads YAML (or JSON) documents into obj and defaults it, as Core does before it
// validates. Each document is laid over the ones before it as a JSON merge patch would be:
// maps merge, anything else (lists included) is replaced, null removes.
func Decode(t testing.TB, obj kruntime.Object, docs ...string) {
	t.Helper()
	if len(docs) == 1 {
		// Straight into the type, so that YAML scalars read as its fields' types ("y" a string).
		if err := yaml.Unmarshal([]byte(docs[0]), obj); err != nil {
			t.Fatalf("decoding %q: %v", docs[0], err)
		}
		Scheme.Default(obj)
		return
	}
	var merged interface{}
	for _, doc := range docs {
		var v interface{}
		if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
			t.Fatalf("decoding %q: %v", doc, err)
		}
		merged = overlay(merged, v)
	}
	raw, err := json.Marshal(merged)
	if err == nil {
		err = json.Unmarshal(raw, obj)
	}
	if err != nil {
		t.Fatalf("decoding %s: %v", raw, err)
	}
	Scheme.Default(obj)
}

func overlay(base, top interface{}) interface{} {
	b, bok := base.(map[string]interface{})
	m, mok := top.(map[string]interface{})
	if !bok || !mok {
		return top
	}
	for k, v := range m {
		if v == nil {
			delete(b, k)
		} else {
			b[k] = overlay(b[k], v)
		}
	}
	return b
}

// Expect compares errs with want, in order: each wanted string is the start of the error as
// kube-apiserver prints it ("path: Type: value: message").
func Expect(t testing.TB, name string, errs field.ErrorList, want ...string) {
	t.Helper()
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	ok := len(got) == len(want)
	for i := 0; ok && i < len(want); i++ {
		ok = strings.HasPrefix(got[i], want[i])
	}
	if !ok {
		t.Errorf("%s:\n got  %s\n want %s", name, strings.Join(got, "\n      "), strings.Join(want, "\n      "))
	}
}

// Merged is what a client gets from Core for obj (old is nil on create): errs, the handwritten
// errors, merged by k8s.io/apiserver with the generated declarative rules of obj's kind.
func Merged(t testing.TB, obj, old kruntime.Object, errs field.ErrorList) field.ErrorList {
	t.Helper()
	gvks, _, err := Scheme.ObjectKinds(obj)
	if err != nil {
		t.Fatal(err)
	}
	ctx := request.WithRequestInfo(context.Background(), &request.RequestInfo{APIGroup: gvks[0].Group, APIVersion: gvks[0].Version})
	op := operation.Create
	if old != nil {
		op = operation.Update
	}
	return rest.ValidateDeclarativelyWithMigrationChecks(ctx, Scheme, obj, old, errs, op, rest.DeclarativeValidationConfig{Options: declarative.Options()})
}

// Kind is one kind's validation as its registry calls it. Prepare, when set, does what the
// registry does to an object before it validates it (old is nil on create): a Job's
// generated selector, a Secret's stringData, a Service's allocated IPs.
type Kind struct {
	New     func() kruntime.Object
	Create  func(kruntime.Object) field.ErrorList
	Update  func(obj, old kruntime.Object) field.ErrorList
	Prepare func(obj, old kruntime.Object)
}

// Of is the Kind of the validation functions of one type, with at most one preparation.
func Of[E any, T interface {
	*E
	kruntime.Object
}](create func(T) field.ErrorList, update func(obj, old T) field.ErrorList, prepare ...func(obj, old T)) Kind {
	k := Kind{
		New:    func() kruntime.Object { return T(new(E)) },
		Create: func(o kruntime.Object) field.ErrorList { return create(o.(T)) },
		Update: func(o, old kruntime.Object) field.ErrorList { return update(o.(T), old.(T)) },
	}
	if len(prepare) > 0 {
		k.Prepare = func(o, old kruntime.Object) {
			var oldT T
			if old != nil {
				oldT = old.(T)
			}
			prepare[0](o.(T), oldT)
		}
	}
	return k
}

// Corpus runs kube-apiserver's validation corpus cases of kinds (but those in skip, each with
// why) straight through their functions, merged with the declarative rules and with the
// generic metadata checks k8s.io/apiserver adds: an accepted object has no errors, a rejected
// one the same causes (field and type, in any order). It fails if fewer than min cases ran.
// test/core/compare's TestValidationCorpus sends the same cases through a running chain.
func Corpus(t *testing.T, kinds map[string]Kind, min int, skip map[string]string) {
	var corpus struct {
		Cases []struct {
			Name           string
			Op             string
			Object, Update json.RawMessage
			Expect         struct {
				Code   int
				Causes []struct{ Field, Reason string }
			}
		}
	}
	if err := json.Unmarshal(ReadReference(t, "validation-corpus.json"), &corpus); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, tc := range corpus.Cases {
		name, _, _ := strings.Cut(tc.Name, "/")
		kind, ok := kinds[name]
		if !ok || tc.Expect.Code == 403 { // 403: refused by admission, not validation
			continue
		}
		if why, skipped := skip[tc.Name]; skipped {
			t.Logf("%s: skipped: %s", tc.Name, why)
			continue
		}
		ran++
		t.Run(tc.Name, func(t *testing.T) {
			obj := kind.New()
			Decode(t, obj, string(tc.Object))
			if m := obj.(metav1.Object); m.GetName() == "" && m.GetGenerateName() != "" {
				m.SetName(m.GetGenerateName() + "x7k2q") // as the apiserver does before validating
			}
			if kind.Prepare != nil {
				kind.Prepare(obj, nil)
			}
			errs := generic(obj, Merged(t, obj, nil, kind.Create(obj)))
			if tc.Op == "update" {
				if len(errs) != 0 {
					t.Fatalf("the object to update is invalid: %v", errs)
				}
				updated := kind.New()
				Decode(t, updated, string(tc.Update))
				// As stored, and as the update names what it replaces.
				old := obj.(metav1.Object)
				old.SetResourceVersion("1")
				updated.(metav1.Object).SetResourceVersion("1")
				updated.(metav1.Object).SetUID(old.GetUID())
				if kind.Prepare != nil {
					kind.Prepare(updated, obj)
				}
				// What k8s.io/apiserver checks of every update before the kind's rules.
				errs = apivalidation.ValidateObjectMetaAccessorUpdate(updated.(metav1.Object), old, field.NewPath("metadata"))
				errs = append(errs, Merged(t, updated, obj, kind.Update(updated, obj))...)
			}
			var want []string
			for _, c := range tc.Expect.Causes {
				want = append(want, c.Field+" "+c.Reason)
			}
			if got, want := causes(errs), sortedSet(want); !slices.Equal(got, want) {
				t.Errorf("causes %q, want %q\n%v", got, want, errs)
			}
		})
	}
	if ran < min {
		t.Errorf("ran %d corpus cases, want at least %d", ran, min)
	}
}

// generic is k8s.io/apiserver's own check of a new object's metadata, which runs once the
// kind's rules found nothing: any name that can stand in a URL path.
func generic(obj kruntime.Object, errs field.ErrorList) field.ErrorList {
	if len(errs) > 0 {
		return errs
	}
	m, err := meta.Accessor(obj)
	if err != nil {
		panic(err)
	}
	return apivalidation.ValidateObjectMetaAccessor(m, m.GetNamespace() != "", path.ValidatePathSegmentName, field.NewPath("metadata"))
}

// causes lists errs as a Status lists its causes: "field reason", sorted, without repeats.
func causes(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Field+" "+string(e.Type))
	}
	return sortedSet(out)
}

func sortedSet(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}

// Accepted decodes the reference's defaulted object in file (what kube-apiserver accepted
// and returned) into kind's type and checks that it is valid on create and as an update that
// changes nothing.
func Accepted(t *testing.T, file string, kind Kind) {
	t.Helper()
	obj := kind.New()
	Decode(t, obj, string(ReadReference(t, filepath.Join("defaulted", file))))
	obj.(metav1.Object).SetResourceVersion("1")
	Expect(t, file+" create", Merged(t, obj, nil, kind.Create(obj)))
	same := obj.DeepCopyObject()
	Expect(t, file+" update", Merged(t, same, obj, kind.Update(same, obj)))
}

// Cases are a kind's table test: each a document laid over the kind's base object, and the
// errors Core reports for it, in order (see Expect).
type Cases []struct {
	Name, Doc string
	Want      []string
}

// Run checks each case: its document decoded over base, prepared as the registry does, and
// validated on create (old nil) or as an update of old, merged with the generated rules.
func (cases Cases) Run(t *testing.T, kind Kind, base string, old kruntime.Object) {
	t.Helper()
	for _, tc := range cases {
		obj := kind.New()
		Decode(t, obj, base, tc.Doc)
		if kind.Prepare != nil {
			kind.Prepare(obj, old)
		}
		var errs field.ErrorList
		if old == nil {
			errs = kind.Create(obj)
		} else {
			errs = kind.Update(obj, old)
		}
		Expect(t, tc.Name, Merged(t, obj, old, errs), tc.Want...)
	}
}
