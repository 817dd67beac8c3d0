package core

import (
	corev1 "k8s.io/api/core/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// ValidateNamespace is the rule list of a Namespace being created: a DNS label for a name
// (it becomes part of DNS names) and finalizers that something will remove.
func ValidateNamespace(ns *corev1.Namespace) field.ErrorList {
	errs := validation.Meta(&ns.ObjectMeta, false, validation.LabelName, metadata)
	for _, f := range ns.Spec.Finalizers {
		// kube-apiserver reports these at spec.finalizers, without an index.
		errs = append(errs, finalizer(field.NewPath("spec", "finalizers"), string(f))...)
	}
	return errs
}

// ValidateNamespaceUpdate: a valid Namespace (spec.finalizers change only through /finalize).
func ValidateNamespaceUpdate(ns, old *corev1.Namespace) field.ErrorList {
	return validation.Join(ValidateNamespace(ns), validation.MetaUpdate(&ns.ObjectMeta, &old.ObjectMeta, metadata))
}

// ValidateNamespaceStatusUpdate: the phase says whether the namespace is being deleted.
func ValidateNamespaceStatusUpdate(ns, old *corev1.Namespace) field.ErrorList {
	phase := field.NewPath("status", "Phase") // sic: kube-apiserver's path
	deleting := !ns.DeletionTimestamp.IsZero()
	return validation.Join(
		validation.MetaUpdate(&ns.ObjectMeta, &old.ObjectMeta, metadata),
		validation.When(!deleting && ns.Status.Phase != corev1.NamespaceActive,
			field.Invalid(phase, ns.Status.Phase, "may only be 'Active' if `deletionTimestamp` is empty")),
		validation.When(deleting && ns.Status.Phase != corev1.NamespaceTerminating,
			field.Invalid(phase, ns.Status.Phase, "may only be 'Terminating' if `deletionTimestamp` is not empty")),
	)
}

// ValidateNamespaceFinalizeUpdate is the rule list of /finalize, which the namespace
// controller calls to remove the "kubernetes" finalizer once the namespace is empty.
func ValidateNamespaceFinalizeUpdate(ns, old *corev1.Namespace) field.ErrorList {
	errs := validation.MetaUpdate(&ns.ObjectMeta, &old.ObjectMeta, metadata)
	for i, f := range ns.Spec.Finalizers {
		errs = append(errs, finalizer(field.NewPath("spec", "finalizers").Index(i), string(f))...)
	}
	return errs
}

// finalizer: a qualified name, with a domain unless it is one Kubernetes defines.
func finalizer(path *field.Path, name string) field.ErrorList {
	return validation.Join(apivalidation.ValidateFinalizerName(name, path), validation.KubeFinalizer(path, name))
}
