// Package storage validates the storage.k8s.io kinds of the Core server: StorageClass,
// VolumeAttributesClass, CSIDriver, CSINode, CSIStorageCapacity and VolumeAttachment.
//
// It sits in the Core server of the chain: each kind's Definition
// (servers/core/registry/storage) calls these functions as its Validate hooks, after the
// request is decoded and defaulted and before the object is stored; a non-empty error list
// becomes kube-apiserver's 422 Invalid. The rules, paths and messages are kube-apiserver
// v1.37.2's, as observed, quirks included: a CSIDriver's attachRequired is reported on
// spec.attachedRequired, a CSINode's topology keys on the driver. The generated declarative
// rules report that a StorageClass's provisioner is required and that provisioner, parameters,
// reclaimPolicy and volumeBindingMode are immutable, and that a VolumeAttachment's attacher is
// required, a DNS subdomain of at most 63 characters in any case, and its spec immutable: ours,
// marked as covered by them, are dropped in favour of theirs.
//
// Left out: kube-apiserver reports a topology term without expressions as a duplicate of the
// terms it has not looked at yet; here only a term equal to an earlier one is a duplicate.
package storage

import (
	"maps"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// The limits of a class's parameters, which are passed on to its provisioner.
const (
	maxParameters     = 512
	maxParametersSize = 256 << 10
)

// ValidateStorageClass is the rule list of a new StorageClass.
func ValidateStorageClass(sc *storagev1.StorageClass) field.ErrorList {
	return validation.Join(
		validation.Meta(&sc.ObjectMeta, false, validation.SubdomainName, field.NewPath("metadata")),
		// A provisioner is named like a label key; its case does not matter.
		validation.When(sc.Provisioner == "", field.Required(field.NewPath("provisioner"), "").MarkCoveredByDeclarative()),
		ifNotEmpty(sc.Provisioner, func() field.ErrorList {
			return validation.QualifiedName(field.NewPath("provisioner"), strings.ToLower(sc.Provisioner))
		}),
		parameters(field.NewPath("parameters"), sc.Parameters),
		validation.IfSet(field.NewPath("reclaimPolicy"), sc.ReclaimPolicy, func(p *field.Path, v corev1.PersistentVolumeReclaimPolicy) field.ErrorList {
			return ifNotEmpty(string(v), func() field.ErrorList {
				return validation.OneOf(p, v, corev1.PersistentVolumeReclaimDelete, corev1.PersistentVolumeReclaimRetain)
			})
		}),
		bindingMode(field.NewPath("volumeBindingMode"), sc.VolumeBindingMode),
		topologies(field.NewPath("allowedTopologies"), sc.AllowedTopologies),
	)
}

// ValidateStorageClassUpdate is the rule list of an update: the class as if new, and only
// its metadata, mount options, allowVolumeExpansion and allowedTopologies may change.
func ValidateStorageClassUpdate(sc, old *storagev1.StorageClass) field.ErrorList {
	return validation.Join(
		ValidateStorageClass(sc),
		validation.MetaUpdate(&sc.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata")),
		validation.ImmutableDeclared(field.NewPath("parameters"), sc.Parameters, old.Parameters),
		validation.ImmutableDeclared(field.NewPath("provisioner"), sc.Provisioner, old.Provisioner),
		validation.ImmutableDeclared(field.NewPath("reclaimPolicy"), sc.ReclaimPolicy, old.ReclaimPolicy),
		validation.ImmutableDeclared(field.NewPath("volumeBindingMode"), sc.VolumeBindingMode, old.VolumeBindingMode),
	)
}

func ifNotEmpty(s string, check func() field.ErrorList) field.ErrorList {
	if s == "" {
		return nil
	}
	return check()
}

// parameters: at most 512, keys not empty, 256 KiB in all.
func parameters(path *field.Path, params map[string]string) field.ErrorList {
	if len(params) > maxParameters {
		return field.ErrorList{field.TooLong(path, "", maxParameters)}
	}
	var errs field.ErrorList
	size := 0
	for k, v := range params {
		errs = append(errs, validation.When(k == "", field.Invalid(path, k, "field can not be empty."))...)
		size += len(k) + len(v)
	}
	return append(errs, validation.When(size > maxParametersSize, field.TooLong(path, "", maxParametersSize))...)
}

// bindingMode: when a claim of the class gets its volume; defaulted to Immediate.
func bindingMode(path *field.Path, mode *storagev1.VolumeBindingMode) field.ErrorList {
	if mode == nil {
		return field.ErrorList{field.Required(path, "")}
	}
	return validation.OneOf(path, *mode, storagev1.VolumeBindingImmediate, storagev1.VolumeBindingWaitForFirstConsumer)
}

// topologies: where the class's volumes may be provisioned, as terms of label requirements;
// each requirement names a label key once per term and lists its values once; no term twice.
func topologies(path *field.Path, terms []corev1.TopologySelectorTerm) field.ErrorList {
	var errs field.ErrorList
	var seen []map[string][]string
	for i, term := range terms {
		exprs := path.Index(i).Child("matchLabelExpressions")
		byKey := map[string][]string{}
		for j, req := range term.MatchLabelExpressions {
			p := exprs.Index(j)
			values := slices.Clone(req.Values)
			slices.Sort(values)
			errs = append(errs, validation.Join(
				validation.When(len(req.Values) == 0, field.Required(p.Child("values"), "")),
				validation.Duplicates(p.Child("values"), req.Values),
				metavalidation.ValidateLabelName(req.Key, p.Child("key")),
			)...)
			if _, dup := byKey[req.Key]; dup {
				errs = append(errs, field.Duplicate(p.Child("key"), req.Key))
			}
			byKey[req.Key] = slices.Compact(values)
		}
		if slices.ContainsFunc(seen, func(m map[string][]string) bool {
			return maps.EqualFunc(m, byKey, slices.Equal[[]string])
		}) {
			errs = append(errs, field.Duplicate(exprs, ""))
		}
		seen = append(seen, byKey)
	}
	return errs
}
