package validation

// Table tests for StorageClass validation; cases follow kubernetes v1.37.2
// pkg/apis/storage/validation/validation_test.go (TestValidateStorageClass,
// TestValidateStorageClassUpdate, TestValidateAllowedTopologies) and
// pkg/registry/storage/storageclass declarative validation tests: the declarative
// provisioner and immutability errors come last.

import (
	"strings"
	"testing"

	v1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/defaults"
)

func storageClass(mutate ...func(*storagev1.StorageClass)) *storagev1.StorageClass {
	sc := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "sc", ResourceVersion: "1"}, Provisioner: "kubernetes.io/foo-provisioner",
		Parameters: map[string]string{"foo": "bar"}}
	for _, m := range mutate {
		m(sc)
	}
	defaults.SetObjectDefaults_StorageClass(sc)
	return sc
}

func TestValidateStorageClass(t *testing.T) {
	topology := func(key string, values ...string) v1.TopologySelectorTerm {
		return v1.TopologySelectorTerm{MatchLabelExpressions: []v1.TopologySelectorLabelRequirement{{Key: key, Values: values}}}
	}
	cases := []struct {
		name string
		sc   *storagev1.StorageClass
		want []string
	}{
		{"valid", storageClass(), nil},
		{"valid retain and wait", storageClass(func(sc *storagev1.StorageClass) {
			sc.ReclaimPolicy = ptr.To(v1.PersistentVolumeReclaimRetain)
			sc.VolumeBindingMode = ptr.To(storagev1.VolumeBindingWaitForFirstConsumer)
			sc.AllowedTopologies = []v1.TopologySelectorTerm{topology("zone", "a", "b")}
		}), nil},
		// the declarative "required" replaces the handwritten one and comes last
		{"missing provisioner", storageClass(func(sc *storagev1.StorageClass) { sc.Provisioner = ""; sc.Parameters = map[string]string{"": "x"} }),
			[]string{`parameters: Invalid value: "": field can not be empty.`, `provisioner: Required value`}},
		{"invalid provisioner", storageClass(func(sc *storagev1.StorageClass) { sc.Provisioner = "kubernetes.io/invalid/provisioner" }),
			[]string{`provisioner: Invalid value: "kubernetes.io/invalid/provisioner": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`}},
		{"recycle is not a class policy", storageClass(func(sc *storagev1.StorageClass) { sc.ReclaimPolicy = ptr.To(v1.PersistentVolumeReclaimRecycle) }),
			[]string{`reclaimPolicy: Unsupported value: "Recycle": supported values: "Delete", "Retain"`}},
		{"bad binding mode", storageClass(func(sc *storagev1.StorageClass) { sc.VolumeBindingMode = ptr.To(storagev1.VolumeBindingMode("Later")) }),
			[]string{`volumeBindingMode: Unsupported value: "Later": supported values: "Immediate", "WaitForFirstConsumer"`}},
		{"duplicate topology", storageClass(func(sc *storagev1.StorageClass) {
			sc.AllowedTopologies = []v1.TopologySelectorTerm{topology("zone", "a"), topology("zone", "a")}
		}), []string{`allowedTopologies[1].matchLabelExpressions: Duplicate value: ""`}},
		{"empty topology values", storageClass(func(sc *storagev1.StorageClass) { sc.AllowedTopologies = []v1.TopologySelectorTerm{topology("zone")} }),
			[]string{`allowedTopologies[0].matchLabelExpressions[0].values: Required value`}},
		{"too many parameters", storageClass(func(sc *storagev1.StorageClass) {
			sc.Parameters = map[string]string{}
			for i := 0; i < 513; i++ {
				sc.Parameters[strings.Repeat("k", i+1)] = "v"
			}
		}), []string{`parameters: Too long: may not be more than 512 bytes`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, withDeclarative(t, tc.sc, nil, ValidateStorageClass(tc.sc)), tc.want)
	}
}

func TestValidateStorageClassUpdate(t *testing.T) {
	old := storageClass()
	cases := []struct {
		name   string
		mutate func(*storagev1.StorageClass)
		want   []string
	}{
		{"expansion and mount options may change", func(sc *storagev1.StorageClass) {
			sc.AllowVolumeExpansion = ptr.To(true)
			sc.MountOptions = []string{"ro"}
		}, nil},
		{"parameters are immutable", func(sc *storagev1.StorageClass) { sc.Parameters = map[string]string{"foo": "baz"} },
			[]string{`parameters: Invalid value: null: field is immutable`}},
		{"provisioner is immutable", func(sc *storagev1.StorageClass) { sc.Provisioner = "example.com/other" },
			[]string{`provisioner: Invalid value: null: field is immutable`}},
		{"policies are immutable", func(sc *storagev1.StorageClass) {
			sc.ReclaimPolicy = ptr.To(v1.PersistentVolumeReclaimRetain)
			sc.VolumeBindingMode = ptr.To(storagev1.VolumeBindingWaitForFirstConsumer)
		}, []string{`reclaimPolicy: Invalid value: null: field is immutable`, `volumeBindingMode: Invalid value: null: field is immutable`}},
	}
	for _, tc := range cases {
		sc := old.DeepCopy()
		tc.mutate(sc)
		expectErrors(t, tc.name, withDeclarative(t, sc, old, ValidateStorageClassUpdate(sc, old)), tc.want)
	}
}
