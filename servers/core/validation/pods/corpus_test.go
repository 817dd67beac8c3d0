package pods

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// TestCorpus runs kube-apiserver's validation corpus cases of this package's kinds straight
// through its functions, defaulted as Core defaults them: an accepted object has no errors, a
// rejected one the same causes (field and type). servers/chain's TestValidationCorpus sends
// them through a running chain.
func TestCorpus(t *testing.T) {
	raw, err := os.ReadFile(reference + "validation-corpus.json")
	if err != nil {
		t.Fatal(err)
	}
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
	if err := json.Unmarshal(raw, &corpus); err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, tc := range corpus.Cases {
		kind, _, _ := strings.Cut(tc.Name, "/")
		check := checks[kind]
		if check.create == nil || tc.Expect.Code == 403 { // 403: refused by admission, not validation
			continue
		}
		ran++
		t.Run(tc.Name, func(t *testing.T) {
			obj := check.new()
			decode(t, string(tc.Object), obj)
			errs := check.create(obj)
			if tc.Op == "update" {
				if len(errs) != 0 {
					t.Fatalf("the object to update is invalid: %v", errs)
				}
				updated := check.new()
				decode(t, string(tc.Update), updated)
				// As stored, and as the update names what it replaces.
				obj.(metav1.Object).SetResourceVersion("1")
				updated.(metav1.Object).SetResourceVersion("1")
				errs = check.update(updated, obj)
			}
			var got, want []string
			for _, e := range errs {
				got = append(got, fmt.Sprintf("%s %s", e.Field, e.Type.String()))
			}
			for _, c := range tc.Expect.Causes {
				want = append(want, c.Field+" "+reasons[c.Reason])
			}
			slices.Sort(got)
			got = slices.Compact(got)
			slices.Sort(want)
			if !slices.Equal(got, want) {
				t.Errorf("causes %q, want %q\n%v", got, want, errs)
			}
		})
	}
	if ran < 59 {
		t.Errorf("ran %d cases; the corpus has 59 of these kinds that validation decides", ran)
	}
}

// reasons maps a Status cause's reason to the field.ErrorType it comes from.
var reasons = map[string]string{
	string(field.ErrorTypeInvalid):      field.ErrorTypeInvalid.String(),
	string(field.ErrorTypeRequired):     field.ErrorTypeRequired.String(),
	string(field.ErrorTypeForbidden):    field.ErrorTypeForbidden.String(),
	string(field.ErrorTypeNotSupported): field.ErrorTypeNotSupported.String(),
	string(field.ErrorTypeDuplicate):    field.ErrorTypeDuplicate.String(),
	string(field.ErrorTypeNotFound):     field.ErrorTypeNotFound.String(),
	string(field.ErrorTypeTooLong):      field.ErrorTypeTooLong.String(),
	string(field.ErrorTypeTooMany):      field.ErrorTypeTooMany.String(),
}

// checks are this package's kinds: a new object, its create and its update validation. An
// update keeps the stored status, as the main resource of a kind with /status does.
var checks = map[string]struct {
	new    func() runtime.Object
	create func(runtime.Object) field.ErrorList
	update func(obj, old runtime.Object) field.ErrorList
}{
	"Pod": {func() runtime.Object { return &corev1.Pod{} },
		func(o runtime.Object) field.ErrorList { return ValidatePod(o.(*corev1.Pod)) },
		func(o, old runtime.Object) field.ErrorList {
			o.(*corev1.Pod).Status = old.(*corev1.Pod).Status
			return ValidatePodUpdate(o.(*corev1.Pod), old.(*corev1.Pod))
		}},
	"PodTemplate": {func() runtime.Object { return &corev1.PodTemplate{} },
		func(o runtime.Object) field.ErrorList { return ValidatePodTemplate(o.(*corev1.PodTemplate)) },
		func(o, old runtime.Object) field.ErrorList {
			return ValidatePodTemplateUpdate(o.(*corev1.PodTemplate), old.(*corev1.PodTemplate))
		}},
	"PersistentVolume": {func() runtime.Object { return &corev1.PersistentVolume{} },
		func(o runtime.Object) field.ErrorList { return ValidatePersistentVolume(o.(*corev1.PersistentVolume)) },
		func(o, old runtime.Object) field.ErrorList {
			o.(*corev1.PersistentVolume).Status = old.(*corev1.PersistentVolume).Status
			return ValidatePersistentVolumeUpdate(o.(*corev1.PersistentVolume), old.(*corev1.PersistentVolume))
		}},
	"PersistentVolumeClaim": {func() runtime.Object { return &corev1.PersistentVolumeClaim{} },
		func(o runtime.Object) field.ErrorList {
			return ValidatePersistentVolumeClaim(o.(*corev1.PersistentVolumeClaim))
		},
		func(o, old runtime.Object) field.ErrorList {
			o.(*corev1.PersistentVolumeClaim).Status = old.(*corev1.PersistentVolumeClaim).Status
			return ValidatePersistentVolumeClaimUpdate(o.(*corev1.PersistentVolumeClaim), old.(*corev1.PersistentVolumeClaim))
		}},
}
