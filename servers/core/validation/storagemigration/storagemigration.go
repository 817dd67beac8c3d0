// Package storagemigration validates the storagemigration.k8s.io kind Core serves:
// StorageVersionMigration, the request that every object of one resource be written again, so
// that etcd holds them all in the current storage version.
//
// It sits in the Core server of the chain: the Definition of servers/core/registry/
// storagemigration calls these functions as its Validate hooks, after the request is decoded
// and before the object is stored; a non-empty error list becomes kube-apiserver's 422 Invalid.
// The rules, paths and messages are kube-apiserver v1.37.2's, as observed. The generated
// declarative rules (the status conditions' list type) are alpha, so only ours are shown.
//
// No migrator runs in the chain (kube-controller-manager's storage-version-migrator-controller
// is not one of its controllers): migrations are stored and their status is whatever a
// migrator writes through /status.
package storagemigration

import (
	"fmt"
	"strings"

	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/resourceversion"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

type svm = storagemigrationv1.StorageVersionMigration

var (
	metadata = field.NewPath("metadata")
	resource = field.NewPath("spec", "resource")
	status   = field.NewPath("status")
)

// ValidateStorageVersionMigration is the rule list of a new migration: the resource to migrate,
// named as an APIService names it (a DNS-1035 label, in a group that is a DNS subdomain).
func ValidateStorageVersionMigration(m *svm) field.ErrorList {
	r := m.Spec.Resource
	errs := validation.Meta(&m.ObjectMeta, false, validation.SubdomainName, metadata)
	if r.Resource == "" {
		errs = append(errs, field.Required(resource.Child("resource"), "resource is required to be set"))
	} else {
		errs = append(errs, joined(resource.Child("resource"), r.Resource, utilvalidation.IsDNS1035Label(r.Resource))...)
	}
	if r.Group != "" {
		errs = append(errs, joined(resource.Child("group"), r.Group, utilvalidation.IsDNS1123Subdomain(r.Group))...)
	}
	return errs
}

// joined reports all of a value's problems as one error.
func joined(p *field.Path, value string, msgs []string) field.ErrorList {
	return validation.When(len(msgs) > 0, field.Invalid(p, value, strings.Join(msgs, ",")))
}

// ValidateStorageVersionMigrationUpdate: a migration is valid as if new, and its spec never
// changes.
func ValidateStorageVersionMigrationUpdate(m, old *svm) field.ErrorList {
	return validation.Join(
		ValidateStorageVersionMigration(m),
		validation.MetaUpdate(&m.ObjectMeta, &old.ObjectMeta, metadata),
		// kube-apiserver prints the spec as its internal type.
		validation.When(m.Spec != old.Spec, field.Invalid(field.NewPath("spec"), validation.Internal(m.Spec), "field is immutable")),
	)
}

// ValidateStorageVersionMigrationStatusUpdate: the migrator's progress: the resourceVersion it
// migrates up to (an integer, set once), and conditions of which Succeeded and Failed are never
// both true, and once true stay so.
func ValidateStorageVersionMigrationStatusUpdate(m, old *svm) field.ErrorList {
	rv, conditions := status.Child("resourceVersion"), status.Child("conditions")
	errs := validation.MetaUpdate(&m.ObjectMeta, &old.ObjectMeta, metadata)
	if v := m.Status.ResourceVersion; v != "" {
		if same, err := resourceversion.CompareResourceVersion(v, v); err != nil || same != 0 {
			if err == nil {
				err = fmt.Errorf("unable to compare resource versions, %s is not equal to %s", v, v)
			}
			errs = append(errs, field.Invalid(rv, v, err.Error()))
		}
	}
	errs = append(errs, metavalidation.ValidateConditions(m.Status.Conditions, conditions)...)
	succeeded, failed := isTrue(m, storagemigrationv1.MigrationSucceeded), isTrue(m, storagemigrationv1.MigrationFailed)
	return validation.Join(errs,
		validation.When(old.Status.ResourceVersion != "" && old.Status.ResourceVersion != m.Status.ResourceVersion,
			field.Invalid(rv, m.Status.ResourceVersion, "field is immutable")),
		validation.When(succeeded && failed, field.Invalid(conditions, m.Status.Conditions, "Both success and failed conditions cannot be true at the same time")),
		validation.When(isTrue(old, storagemigrationv1.MigrationSucceeded) && !succeeded,
			field.Invalid(conditions, m.Status.Conditions, "Success condition cannot be set to false once it is true")),
		validation.When(isTrue(old, storagemigrationv1.MigrationFailed) && !failed,
			field.Invalid(conditions, m.Status.Conditions, "Failed condition cannot be set to false once it is true")),
	)
}

func isTrue(m *svm, t storagemigrationv1.MigrationConditionType) bool {
	c := meta.FindStatusCondition(m.Status.Conditions, string(t))
	return c != nil && c.Status == metav1.ConditionTrue
}
