// Package validationtest holds what the tests of Core's validation packages share: objects
// decoded and defaulted as Core has them when it validates, expectations on field errors, the
// merge with the generated declarative rules that a client sees, and kube-apiserver's
// validation corpus run straight through a package's functions. Tests only.
package validationtest

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/operation"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"github.com/apichain/apichain/servers/core/defaults"
	"github.com/apichain/apichain/servers/core/validation/declarative"
)

// Scheme defaults objects as Core does before it validates them, and knows the declarative
// rules of every kind.
var Scheme = func() *k8sruntime.Scheme {
	s := k8sruntime.NewScheme()
	for _, add := range []func(*k8sruntime.Scheme) error{clientgoscheme.AddToScheme, defaults.RegisterDefaults, declarative.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// Decode reads YAML (or JSON) into obj and defaults it.
func Decode(t testing.TB, doc string, obj k8sruntime.Object) {
	t.Helper()
	if err := yaml.Unmarshal([]byte(doc), obj); err != nil {
		t.Fatalf("decoding %q: %v", doc, err)
	}
	Scheme.Default(obj)
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

// Declared is what a client gets for obj (old is nil on create): errs, a package's errors,
// merged by k8s.io/apiserver with the generated declarative rules of obj's kind.
func Declared(t testing.TB, obj, old k8sruntime.Object, errs field.ErrorList) field.ErrorList {
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

// Kind is one kind of a package under test: a new object, its create and update validation,
// and what the registry does to it before validating (nil: nothing).
type Kind struct {
	New     func() k8sruntime.Object
	Create  func(k8sruntime.Object) field.ErrorList
	Update  func(obj, old k8sruntime.Object) field.ErrorList
	Prepare func(obj, old k8sruntime.Object)
}

// KindOf makes a Kind of typed functions; prepare may be nil.
func KindOf[T k8sruntime.Object](create func(T) field.ErrorList, update func(obj, old T) field.ErrorList, prepare func(obj, old T)) Kind {
	k := Kind{
		New:    func() k8sruntime.Object { return reflect.New(reflect.TypeFor[T]().Elem()).Interface().(T) },
		Create: func(o k8sruntime.Object) field.ErrorList { return create(o.(T)) },
		Update: func(o, old k8sruntime.Object) field.ErrorList { return update(o.(T), old.(T)) },
	}
	if prepare != nil {
		k.Prepare = func(o, old k8sruntime.Object) {
			var oldT T
			if old != nil {
				oldT = old.(T)
			}
			prepare(o.(T), oldT)
		}
	}
	return k
}

// reference is the repository's copy of kube-apiserver's observed behaviour.
func reference() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "../../../chain/testdata/reference")
}

// ReadReference reads a file of the reference, such as defaulted/node.json.
func ReadReference(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(reference(), name))
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// RunCorpus sends kube-apiserver's validation corpus cases of kinds (but those in skip, each
// with why) through their functions, merged with the declarative rules and followed by the
// generic metadata check as k8s.io/apiserver does: an accepted object has no errors, a
// rejected one the same causes (field and type). It returns how many cases ran.
// servers/chain's TestValidationCorpus sends them through a running chain.
func RunCorpus(t *testing.T, kinds map[string]Kind, skip map[string]string) int {
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
		kind, _, _ := strings.Cut(tc.Name, "/")
		k, ok := kinds[kind]
		if !ok || tc.Expect.Code == 403 { // 403: refused by admission, not validation
			continue
		}
		if why, skipped := skip[tc.Name]; skipped {
			t.Logf("%s: skipped: %s", tc.Name, why)
			continue
		}
		ran++
		t.Run(tc.Name, func(t *testing.T) {
			obj := k.New()
			Decode(t, string(tc.Object), obj)
			if m := obj.(metav1.Object); m.GetName() == "" && m.GetGenerateName() != "" {
				m.SetName(m.GetGenerateName() + "x7k2q") // as the apiserver does before validating
			}
			if k.Prepare != nil {
				k.Prepare(obj, nil)
			}
			errs := generic(obj, Declared(t, obj, nil, k.Create(obj)))
			if tc.Op == "update" {
				if len(errs) != 0 {
					t.Fatalf("the object to update is invalid: %v", errs)
				}
				updated := k.New()
				Decode(t, string(tc.Update), updated)
				// As stored, and as the update names what it replaces.
				obj.(metav1.Object).SetResourceVersion("1")
				updated.(metav1.Object).SetResourceVersion("1")
				if k.Prepare != nil {
					k.Prepare(updated, obj)
				}
				errs = Declared(t, updated, obj, k.Update(updated, obj))
			}
			var want []string
			for _, c := range tc.Expect.Causes {
				want = append(want, c.Field+" "+c.Reason)
			}
			if got, want := causes(errs), sorted(want); !slices.Equal(got, want) {
				t.Errorf("causes %q, want %q\n%v", got, want, errs)
			}
		})
	}
	return ran
}

// generic is k8s.io/apiserver's own check of a new object's metadata, which runs once the
// kind's rules found nothing: any name that can stand in a URL path.
func generic(obj k8sruntime.Object, errs field.ErrorList) field.ErrorList {
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
	return slices.Compact(sorted(out))
}

func sorted(s []string) []string {
	slices.Sort(s)
	return s
}
