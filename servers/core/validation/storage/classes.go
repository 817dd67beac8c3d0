package storage

import (
	"reflect"
	"strings"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// VolumeAttributesClasses and CSIStorageCapacities.

// ValidateVolumeAttributesClass is the rule list of a new VolumeAttributesClass: a driver
// named like a label key (in any case) and at least one parameter, within a StorageClass's
// limits.
func ValidateVolumeAttributesClass(c *storagev1.VolumeAttributesClass) field.ErrorList {
	driver := field.NewPath("driverName")
	return validation.Join(
		validation.Meta(&c.ObjectMeta, false, validation.SubdomainName, metadata),
		validation.Required(driver, c.DriverName),
		ifNotEmpty(c.DriverName, func() field.ErrorList { return validation.QualifiedName(driver, strings.ToLower(c.DriverName)) }),
		parameters(field.NewPath("parameters"), c.Parameters),
		validation.When(len(c.Parameters) == 0, field.Required(field.NewPath("parameters"), "must contain at least one key/value pair")),
	)
}

// ValidateVolumeAttributesClassUpdate is the rule list of an update: neither the driver nor
// the parameters change, and the class is valid as if new.
func ValidateVolumeAttributesClassUpdate(c, old *storagev1.VolumeAttributesClass) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&c.ObjectMeta, &old.ObjectMeta, metadata),
		validation.When(c.DriverName != old.DriverName, field.Forbidden(field.NewPath("driverName"), "updates to driverName are forbidden.")),
		validation.When(!reflect.DeepEqual(c.Parameters, old.Parameters), // an empty map is a change from none
			field.Forbidden(field.NewPath("parameters"), "updates to parameters are forbidden.")),
		ValidateVolumeAttributesClass(c),
	)
}

// ValidateCSIStorageCapacity is the rule list of a new CSIStorageCapacity.
func ValidateCSIStorageCapacity(c *storagev1.CSIStorageCapacity) field.ErrorList {
	return csiStorageCapacity(c, nil)
}

// ValidateCSIStorageCapacityUpdate is the rule list of an update: the capacity as if new (its
// topology may keep the invalid label values the stored one has), and the topology and class
// it was reported for stay; the capacities may change.
func ValidateCSIStorageCapacityUpdate(c, old *storagev1.CSIStorageCapacity) field.ErrorList {
	return validation.Join(
		csiStorageCapacity(c, old.NodeTopology),
		validation.MetaUpdate(&c.ObjectMeta, &old.ObjectMeta, metadata),
		validation.When(!equality.Semantic.DeepEqual(c.NodeTopology, old.NodeTopology),
			field.Invalid(field.NewPath("nodeTopology"), c.NodeTopology, "field is immutable")),
		validation.When(c.StorageClassName != old.StorageClassName,
			field.Invalid(field.NewPath("storageClassName"), c.StorageClassName, "field is immutable")),
	)
}

// csiStorageCapacity: which nodes the capacity is for, in which class, and how much; the
// largest volume size is the driver's to report as it likes.
func csiStorageCapacity(c *storagev1.CSIStorageCapacity, oldTopology *metav1.LabelSelector) field.ErrorList {
	errs := validation.Join(
		validation.Meta(&c.ObjectMeta, true, validation.SubdomainName, metadata),
		validation.SelectorKeepingOld(field.NewPath("nodeTopology"), c.NodeTopology, oldTopology),
		validation.DNSSubdomain(field.NewPath("storageClassName"), c.StorageClassName),
	)
	if c.Capacity != nil {
		errs = append(errs, validation.NonNegativeQuantity(field.NewPath("capacity"), *c.Capacity)...)
	}
	return errs
}
