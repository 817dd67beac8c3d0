package storage

import (
	"math"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
	"github.com/apichain/apichain/servers/core/validation/pods"
)

// The limits of what an attacher reports in a VolumeAttachment's status.
const (
	maxAttachmentMetadataSize = 256 << 10
	maxVolumeErrorMessage     = 1024
)

// ValidateVolumeAttachment is the rule list of a new VolumeAttachment: the attachment, and,
// for new objects only (older ones may keep what was allowed then), an attacher named as a
// CSI driver is named and a valid volume name. The generated rules report the attacher's
// name (required, a DNS subdomain in any case, at most 63) with messages of their own: ours
// are dropped for theirs.
func ValidateVolumeAttachment(va *storagev1.VolumeAttachment) field.ErrorList {
	errs := volumeAttachment(va)
	if va.Spec.Attacher != "" {
		for _, e := range csiDriverName(spec.Child("attacher"), va.Spec.Attacher) {
			origin := "format=k8s-long-name-caseless"
			if e.Type == field.ErrorTypeTooLong {
				origin = "maxLength"
			}
			errs = append(errs, validation.Covered(origin, field.ErrorList{e})...)
		}
	}
	if name := va.Spec.Source.PersistentVolumeName; name != nil && *name != "" {
		errs = append(errs, validation.DNSSubdomain(spec.Child("source", "persistentVolumeName"), *name)...)
	}
	return errs
}

// ValidateVolumeAttachmentUpdate is the rule list of an update, of the object or of its
// status: a valid attachment whose spec stays (the generated rule reports it).
func ValidateVolumeAttachmentUpdate(va, old *storagev1.VolumeAttachment) field.ErrorList {
	return validation.Join(
		volumeAttachment(va),
		validation.When(!equality.Semantic.DeepEqual(va.Spec, old.Spec), field.Invalid(spec, validation.Internal(va.Spec), "field is immutable").
			WithOrigin("immutable").MarkCoveredByDeclarative()),
	)
}

// volumeAttachment: which attacher attaches which volume to which node, and what it reported.
func volumeAttachment(va *storagev1.VolumeAttachment) field.ErrorList {
	src := spec.Child("source")
	const exactlyOne = "must specify exactly one of inlineVolumeSpec and persistentVolumeName"
	s, status := &va.Spec, field.NewPath("status")
	errs := validation.Join(
		validation.Meta(&va.ObjectMeta, false, validation.SubdomainName, metadata),
		validation.When(s.Attacher == "", field.Required(spec.Child("attacher"), "").MarkCoveredByDeclarative()),
	)
	switch pv, inline := s.Source.PersistentVolumeName, s.Source.InlineVolumeSpec; {
	case pv == nil && inline == nil:
		errs = append(errs, field.Required(src, exactlyOne))
	case pv != nil && inline != nil:
		errs = append(errs, field.Forbidden(src, exactlyOne))
	case pv != nil:
		errs = append(errs, validation.When(*pv == "", field.Required(src.Child("persistentVolumeName"), "must specify non empty persistentVolumeName"))...)
	default:
		errs = append(errs, pods.InlinePersistentVolumeSpec(src.Child("inlineVolumeSpec"), inline)...)
	}
	size := 0
	for k, v := range va.Status.AttachmentMetadata {
		size += len(k) + len(v)
	}
	return validation.Join(errs,
		validation.DNSSubdomain(spec.Child("nodeName"), s.NodeName),
		validation.When(size > maxAttachmentMetadataSize, field.TooLong(status.Child("attachmentMetadata"), "", maxAttachmentMetadataSize)),
		validation.IfSet(status.Child("attachError"), va.Status.AttachError, volumeError),
		validation.IfSet(status.Child("detachError"), va.Status.DetachError, volumeError),
	)
}

// volumeError: an attacher's error message is short and its code not negative. kube-apiserver
// names the limit of the metadata, not the message's, in the message.
func volumeError(p *field.Path, e storagev1.VolumeError) field.ErrorList {
	return validation.Join(
		validation.When(len(e.Message) > maxVolumeErrorMessage, field.TooLong(p.Child("message"), "", maxAttachmentMetadataSize)),
		validation.IfSet(p.Child("errorCode"), e.ErrorCode, func(p *field.Path, c int32) field.ErrorList {
			return validation.When(c < 0, field.Invalid(p, c, maxInt32Range))
		}),
	)
}

// maxInt32Range is the message of a code that must fit an int32 and not be negative.
var maxInt32Range = utilvalidation.InclusiveRangeError(0, math.MaxInt32)
