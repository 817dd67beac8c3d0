package pods

import (
	"fmt"
	"path"
	"slices"

	corev1 "k8s.io/api/core/v1"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// volumeList: each volume has a unique DNS-label name and exactly one source.
func (s *podSpec) volumeList(path *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i := range s.Volumes {
		v, p := &s.Volumes[i], path.Index(i)
		errs = append(errs, uniqueLabel(p.Child("name"), v.Name, seen)...)
		// An ephemeral volume's claim is named <pod>-<volume>: that must be a valid name too.
		if v.Ephemeral != nil && s.isPod && s.meta.Name != "" {
			claim := s.meta.Name + "-" + v.Name
			for _, msg := range utilvalidation.IsDNS1123Subdomain(claim) {
				errs = append(errs, field.Invalid(p.Child("name"), v.Name, fmt.Sprintf("PVC name %q: %v", claim, msg)))
			}
		}
		errs = append(errs, s.volumeSource(p, &v.VolumeSource)...)
	}
	return errs
}

// volumeSource: exactly one source, and the rules of the common ones. The legacy in-tree
// plugins (gcePersistentDisk, rbd, cephfs, ...) only count as a source here.
func (s *podSpec) volumeSource(p *field.Path, v *corev1.VolumeSource) field.ErrorList {
	members := setMembers(v)
	// kube-apiserver looks at emptyDir first: beside another source, the other one is reported.
	if i := slices.Index(members, "emptyDir"); i > 0 {
		members = append([]string{"emptyDir"}, slices.Delete(members, i, i+1)...)
	}
	errs := exactlyOne(p, members, "must specify a volume type", "may not specify more than 1 volume type")
	return validation.Join(errs,
		validation.IfSet(p.Child("hostPath"), v.HostPath, hostPathSource),
		validation.IfSet(p.Child("emptyDir"), v.EmptyDir, func(p *field.Path, e corev1.EmptyDirVolumeSource) field.ErrorList {
			return validation.When(e.SizeLimit != nil && e.SizeLimit.Sign() < 0,
				field.Forbidden(p.Child("sizeLimit"), "SizeLimit field must be a valid resource quantity"))
		}),
		validation.IfSet(p.Child("secret"), v.Secret, func(p *field.Path, sec corev1.SecretVolumeSource) field.ErrorList {
			return validation.Join(requiredName(p.Child("secretName"), sec.SecretName),
				validation.IfSet(p.Child("defaultMode"), sec.DefaultMode, fileMode),
				validation.Each(p.Child("items"), sec.Items, keyToPath))
		}),
		validation.IfSet(p.Child("nfs"), v.NFS, nfsSource),
		validation.IfSet(p.Child("persistentVolumeClaim"), v.PersistentVolumeClaim, func(p *field.Path, c corev1.PersistentVolumeClaimVolumeSource) field.ErrorList {
			return validation.Required(p.Child("claimName"), c.ClaimName)
		}),
		validation.IfSet(p.Child("downwardAPI"), v.DownwardAPI, func(p *field.Path, d corev1.DownwardAPIVolumeSource) field.ErrorList {
			errs := validation.IfSet(p.Child("defaultMode"), d.DefaultMode, fileMode)
			for i := range d.Items {
				errs = append(errs, downwardAPIFile(p, &d.Items[i])...)
			}
			return errs
		}),
		validation.IfSet(p.Child("configMap"), v.ConfigMap, func(p *field.Path, cm corev1.ConfigMapVolumeSource) field.ErrorList {
			return validation.Join(requiredName(p.Child("name"), cm.Name),
				validation.IfSet(p.Child("defaultMode"), cm.DefaultMode, fileMode),
				validation.Each(p.Child("items"), cm.Items, keyToPath))
		}),
		validation.IfSet(p.Child("projected"), v.Projected, s.projectedSource),
		validation.IfSet(p.Child("csi"), v.CSI, func(p *field.Path, c corev1.CSIVolumeSource) field.ErrorList {
			return validation.Join(csiDriver(p.Child("driver"), c.Driver),
				validation.IfSet(p.Child("nodePublishSecretRef"), c.NodePublishSecretRef, func(p *field.Path, r corev1.LocalObjectReference) field.ErrorList {
					return requiredName(p.Child("name"), r.Name)
				}))
		}),
		validation.IfSet(p.Child("ephemeral"), v.Ephemeral, func(p *field.Path, e corev1.EphemeralVolumeSource) field.ErrorList {
			if e.VolumeClaimTemplate == nil {
				return field.ErrorList{field.Required(p.Child("volumeClaimTemplate"), "")}
			}
			t := p.Child("volumeClaimTemplate")
			return validation.Join(templateMeta(t.Child("metadata"), &e.VolumeClaimTemplate.ObjectMeta),
				ValidatePersistentVolumeClaimSpec(&e.VolumeClaimTemplate.Spec, t.Child("spec")))
		}),
		validation.IfSet(p.Child("image"), v.Image, func(p *field.Path, img corev1.ImageVolumeSource) field.ErrorList {
			return validation.Join(validation.When(s.isPod && img.Reference == "", field.Required(p.Child("reference"), "")),
				optionalOneOf(p.Child("pullPolicy"), img.PullPolicy, corev1.PullAlways, corev1.PullIfNotPresent, corev1.PullNever))
		}),
	)
}

// hostPathSource: a path on the node, and what is expected there.
func hostPathSource(p *field.Path, h corev1.HostPathVolumeSource) field.ErrorList {
	errs := validation.Required(p.Child("path"), h.Path)
	errs = append(errs, noBacksteps(p.Child("path"), h.Path)...)
	if h.Type != nil {
		errs = append(errs, optionalOneOfOrEmpty(p.Child("type"), *h.Type, corev1.HostPathUnset, corev1.HostPathBlockDev,
			corev1.HostPathCharDev, corev1.HostPathDirectory, corev1.HostPathDirectoryOrCreate, corev1.HostPathFile,
			corev1.HostPathFileOrCreate, corev1.HostPathSocket)...)
	}
	return errs
}

// optionalOneOfOrEmpty: an enum whose empty value is one of the allowed ones.
func optionalOneOfOrEmpty[T ~string](p *field.Path, value T, allowed ...T) field.ErrorList {
	return validation.When(!contains(allowed, value), field.NotSupported(p, value, allowed))
}

// nfsSource: a server and an absolute path it exports.
func nfsSource(p *field.Path, n corev1.NFSVolumeSource) field.ErrorList {
	return validation.Join(
		validation.Required(p.Child("server"), n.Server),
		validation.Required(p.Child("path"), n.Path),
		validation.When(n.Path != "" && !path.IsAbs(n.Path), field.Invalid(p.Child("path"), n.Path, "must be an absolute path")),
	)
}

// csiDriver: a CSI driver's name, a DNS subdomain of at most 63 characters.
func csiDriver(p *field.Path, driver string) field.ErrorList {
	if driver == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	return validation.Join(validation.When(len(driver) > 63, field.TooLong(p, driver, 63)),
		invalid(p, driver, utilvalidation.IsDNS1123Subdomain(driver)))
}

// keyToPath: a key of a ConfigMap or Secret, projected to a file.
func keyToPath(p *field.Path, k *corev1.KeyToPath) field.ErrorList {
	return validation.Join(
		validation.Required(p.Child("key"), k.Key),
		fileName(p.Child("path"), k.Path),
		validation.IfSet(p.Child("mode"), k.Mode, fileMode),
	)
}

// downwardAPIFile: a file holding a pod field or a container resource. kube-apiserver reports
// these at the volume source (p), without the item's index.
func downwardAPIFile(p *field.Path, f *corev1.DownwardAPIVolumeFile) field.ErrorList {
	errs := fileName(p.Child("path"), f.Path)
	switch {
	case f.FieldRef != nil && f.ResourceFieldRef != nil:
		errs = append(errs, field.Invalid(p, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
	case f.FieldRef != nil:
		errs = append(errs, podField(p.Child("fieldRef"), f.FieldRef, volumePodFields)...)
	case f.ResourceFieldRef != nil:
		errs = append(errs, containerField(p.Child("resourceFieldRef"), f.ResourceFieldRef, true)...)
	default:
		errs = append(errs, field.Required(p, "one of fieldRef and resourceFieldRef is required"))
	}
	return append(errs, validation.IfSet(p.Child("mode"), f.Mode, fileMode)...)
}

// Projected service account tokens live between 10 minutes and 2^32 seconds.
const (
	minTokenSeconds = 10 * 60
	maxTokenSeconds = 1 << 32
)

// projectedSource: several sources in one directory, one kind per source, no file twice.
func (s *podSpec) projectedSource(p *field.Path, pr corev1.ProjectedVolumeSource) field.ErrorList {
	errs := validation.IfSet(p.Child("defaultMode"), pr.DefaultMode, fileMode)
	files := map[string]bool{}
	// A file projected twice is reported at projected, with the source's name (or the path).
	addFile := func(file, source string) {
		if files[file] {
			errs = append(errs, field.Invalid(p, source, "conflicting duplicate paths"))
		}
		files[file] = true
	}
	for i, src := range pr.Sources {
		sp := p.Child("sources").Index(i)
		if len(setMembers(&src)) > 1 {
			errs = append(errs, field.Forbidden(sp, "may not specify more than 1 volume type per source"))
		}
		if sec := src.Secret; sec != nil {
			errs = append(errs, validation.Required(sp.Child("secret", "name"), sec.Name)...)
			errs = append(errs, validation.Each(sp.Child("secret", "items"), sec.Items, keyToPath)...)
			for _, item := range sec.Items {
				addFile(item.Path, sec.Name)
			}
		}
		if cm := src.ConfigMap; cm != nil {
			errs = append(errs, validation.Required(sp.Child("configMap", "name"), cm.Name)...)
			errs = append(errs, validation.Each(sp.Child("configMap", "items"), cm.Items, keyToPath)...)
			for _, item := range cm.Items {
				addFile(item.Path, cm.Name)
			}
		}
		if d := src.DownwardAPI; d != nil {
			for j := range d.Items {
				errs = append(errs, downwardAPIFile(sp.Child("downwardAPI"), &d.Items[j])...)
				addFile(d.Items[j].Path, d.Items[j].Path)
			}
		}
		if tok := src.ServiceAccountToken; tok != nil {
			tp := sp.Child("serviceAccountToken")
			switch exp := tok.ExpirationSeconds; {
			case exp == nil:
				errs = append(errs, field.Required(tp.Child("expirationSeconds"), ""))
			case *exp < minTokenSeconds:
				errs = append(errs, field.Invalid(tp.Child("expirationSeconds"), *exp, "may not specify a duration less than 10 minutes"))
			case *exp > maxTokenSeconds:
				errs = append(errs, field.Invalid(tp.Child("expirationSeconds"), *exp, "may not specify a duration larger than 2^32 seconds"))
			}
			// kube-apiserver reports the token's path at projected.path.
			errs = append(errs, fileName(p.Child("path"), tok.Path)...)
			addFile(tok.Path, tok.Path)
			// A pod's token is its service account's; a template gets one when it becomes a pod.
			errs = append(errs, validation.When(s.isPod && s.ServiceAccountName == "",
				field.Forbidden(tp, "must not be specified when serviceAccountName is not set"))...)
		}
	}
	return errs
}
