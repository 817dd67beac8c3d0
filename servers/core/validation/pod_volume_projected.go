package validation

// Downward API, projected, CSI and generic ephemeral volume validation, ported
// from kubernetes v1.37.2 pkg/apis/core/validation/validation.go and names.go
// (ValidateSignerName, ValidateClusterTrustBundleName). Feature gates:
// VolumeAttributesClass is GA (on).

import (
	"fmt"
	"strings"

	v1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	unversionedvalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

const (
	// certificates.MaxMaxExpirationSeconds and KubernetesMaxMaxExpirationSeconds.
	maxMaxExpirationSeconds           = 91 * 24 * 60 * 60
	kubernetesMaxMaxExpirationSeconds = 24 * 60 * 60
)

var validVolumeDownwardAPIFieldPathExpressions = sets.New(
	"metadata.name",
	"metadata.namespace",
	"metadata.labels",
	"metadata.annotations",
	"metadata.uid")

func validateDownwardAPIVolumeFile(file *v1.DownwardAPIVolumeFile, fldPath *field.Path, opts podValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}
	if len(file.Path) == 0 {
		allErrs = append(allErrs, field.Required(fldPath.Child("path"), ""))
	}
	allErrs = append(allErrs, ValidateLocalNonReservedPath(file.Path, fldPath.Child("path"))...)
	if file.FieldRef != nil {
		allErrs = append(allErrs, validateObjectFieldSelector(file.FieldRef, &validVolumeDownwardAPIFieldPathExpressions, fldPath.Child("fieldRef"))...)
		if file.ResourceFieldRef != nil {
			allErrs = append(allErrs, field.Invalid(fldPath, "resource", "fieldRef and resourceFieldRef can not be specified simultaneously"))
		}
	} else if file.ResourceFieldRef != nil {
		localValidContainerResourceFieldPathPrefixes := validContainerResourceFieldPathPrefixesWithDownwardAPIHugePages
		allErrs = append(allErrs, validateContainerResourceFieldSelector(file.ResourceFieldRef, &validContainerResourceFieldPathExpressions, &localValidContainerResourceFieldPathPrefixes, fldPath.Child("resourceFieldRef"), true)...)
	} else {
		allErrs = append(allErrs, field.Required(fldPath, "one of fieldRef and resourceFieldRef is required"))
	}
	if file.Mode != nil && (*file.Mode > 0777 || *file.Mode < 0) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("mode"), *file.Mode, fileModeErrorMsg))
	}
	allErrs = append(allErrs, validateUserField(file.User, fldPath.Child("user"))...)

	return allErrs
}

func validateDownwardAPIVolumeSource(downwardAPIVolume *v1.DownwardAPIVolumeSource, fldPath *field.Path, opts podValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}

	downwardAPIMode := downwardAPIVolume.DefaultMode
	if downwardAPIMode != nil && (*downwardAPIMode > 0777 || *downwardAPIMode < 0) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("defaultMode"), *downwardAPIMode, fileModeErrorMsg))
	}
	allErrs = append(allErrs, validateUserField(downwardAPIVolume.DefaultUser, fldPath.Child("defaultUser"))...)

	for _, file := range downwardAPIVolume.Items {
		allErrs = append(allErrs, validateDownwardAPIVolumeFile(&file, fldPath, opts)...)
	}
	return allErrs
}

func validateProjectedVolumeSource(projection *v1.ProjectedVolumeSource, fldPath *field.Path, opts podValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}

	projectionMode := projection.DefaultMode
	if projectionMode != nil && (*projectionMode > 0777 || *projectionMode < 0) {
		allErrs = append(allErrs, field.Invalid(fldPath.Child("defaultMode"), *projectionMode, fileModeErrorMsg))
	}
	allErrs = append(allErrs, validateUserField(projection.DefaultUser, fldPath.Child("defaultUser"))...)

	allErrs = append(allErrs, validateProjectionSources(projection, fldPath, opts)...)
	return allErrs
}

// pathSet records projected paths and reports "conflicting duplicate paths".
type pathSet struct {
	seen sets.Set[string]
}

func (p *pathSet) add(fldPath *field.Path, value, badValue string) field.ErrorList {
	if !p.seen.Has(value) {
		p.seen.Insert(value)
		return nil
	}
	return field.ErrorList{field.Invalid(fldPath, badValue, "conflicting duplicate paths")}
}

func validateProjectionSources(projection *v1.ProjectedVolumeSource, fldPath *field.Path, opts podValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}
	allPaths := &pathSet{seen: sets.Set[string]{}}

	for i, source := range projection.Sources {
		numSources := 0
		srcPath := fldPath.Child("sources").Index(i)
		if projPath := srcPath.Child("secret"); source.Secret != nil {
			numSources++
			if len(source.Secret.Name) == 0 {
				allErrs = append(allErrs, field.Required(projPath.Child("name"), ""))
			}
			itemsPath := projPath.Child("items")
			for i, kp := range source.Secret.Items {
				itemPath := itemsPath.Index(i)
				allErrs = append(allErrs, validateKeyToPath(&kp, itemPath)...)
				if len(kp.Path) > 0 {
					allErrs = append(allErrs, allPaths.add(fldPath, kp.Path, source.Secret.Name)...)
				}
			}
		}
		if projPath := srcPath.Child("configMap"); source.ConfigMap != nil {
			numSources++
			if len(source.ConfigMap.Name) == 0 {
				allErrs = append(allErrs, field.Required(projPath.Child("name"), ""))
			}
			itemsPath := projPath.Child("items")
			for i, kp := range source.ConfigMap.Items {
				itemPath := itemsPath.Index(i)
				allErrs = append(allErrs, validateKeyToPath(&kp, itemPath)...)
				if len(kp.Path) > 0 {
					allErrs = append(allErrs, allPaths.add(fldPath, kp.Path, source.ConfigMap.Name)...)
				}
			}
		}
		if projPath := srcPath.Child("downwardAPI"); source.DownwardAPI != nil {
			numSources++
			for _, file := range source.DownwardAPI.Items {
				allErrs = append(allErrs, validateDownwardAPIVolumeFile(&file, projPath, opts)...)
				if len(file.Path) > 0 {
					allErrs = append(allErrs, allPaths.add(fldPath, file.Path, file.Path)...)
				}
			}
		}
		if projPath := srcPath.Child("serviceAccountToken"); source.ServiceAccountToken != nil {
			numSources++
			if exp := source.ServiceAccountToken.ExpirationSeconds; exp == nil {
				allErrs = append(allErrs, field.Required(projPath.Child("expirationSeconds"), ""))
			} else {
				if *exp < 10*60 {
					allErrs = append(allErrs, field.Invalid(projPath.Child("expirationSeconds"), *exp, "may not specify a duration less than 10 minutes"))
				}
				if *exp > 1<<32 {
					allErrs = append(allErrs, field.Invalid(projPath.Child("expirationSeconds"), *exp, "may not specify a duration larger than 2^32 seconds"))
				}
			}
			if source.ServiceAccountToken.Path == "" {
				allErrs = append(allErrs, field.Required(fldPath.Child("path"), ""))
			} else if !opts.AllowNonLocalProjectedTokenPath {
				allErrs = append(allErrs, ValidateLocalNonReservedPath(source.ServiceAccountToken.Path, fldPath.Child("path"))...)
			}
			allErrs = append(allErrs, validateUserField(source.ServiceAccountToken.User, projPath.Child("user"))...)
		}
		if projPath := srcPath.Child("clusterTrustBundle"); source.ClusterTrustBundle != nil {
			numSources++
			allErrs = append(allErrs, validateClusterTrustBundleProjection(source.ClusterTrustBundle, projPath)...)
			allErrs = append(allErrs, allPaths.add(fldPath, source.ClusterTrustBundle.Path, source.ClusterTrustBundle.Path)...)
		}
		if projPath := srcPath.Child("podCertificate"); source.PodCertificate != nil {
			numSources++
			allErrs = append(allErrs, validatePodCertificateProjection(source.PodCertificate, projPath, fldPath, allPaths)...)
		}
		if numSources > 1 {
			allErrs = append(allErrs, field.Forbidden(srcPath, "may not specify more than 1 volume type per source"))
		}
	}
	return allErrs
}

func validateClusterTrustBundleProjection(ctb *v1.ClusterTrustBundleProjection, projPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	usingName := ctb.Name != nil
	usingSignerName := ctb.SignerName != nil

	switch {
	case usingName && usingSignerName:
		allErrs = append(allErrs, field.Invalid(projPath, internal(ctb), "only one of name and signerName may be used"))
	case usingName:
		if *ctb.Name == "" {
			allErrs = append(allErrs, field.Required(projPath.Child("name"), "must be a valid object name"))
		}

		name := *ctb.Name
		signerName, _ := extractSignerNameFromClusterTrustBundleName(name)
		for _, msg := range ValidateClusterTrustBundleName(signerName)(name, false) {
			allErrs = append(allErrs, field.Invalid(projPath.Child("name"), name, fmt.Sprintf("not a valid clustertrustbundlename: %v", msg)))
		}

		if ctb.LabelSelector != nil {
			allErrs = append(allErrs, field.Invalid(projPath.Child("labelSelector"), ctb.LabelSelector, "labelSelector must be unset if name is specified"))
		}
	case usingSignerName:
		if *ctb.SignerName == "" {
			allErrs = append(allErrs, field.Required(projPath.Child("signerName"), "must be a valid signer name"))
		}

		allErrs = append(allErrs, ValidateSignerName(projPath.Child("signerName"), *ctb.SignerName)...)

		labelSelectorErrs := unversionedvalidation.ValidateLabelSelector(
			ctb.LabelSelector,
			unversionedvalidation.LabelSelectorValidationOptions{AllowInvalidLabelValueInSelector: false},
			projPath.Child("labelSelector"),
		)
		allErrs = append(allErrs, labelSelectorErrs...)

	default:
		allErrs = append(allErrs, field.Required(projPath, "either name or signerName must be specified"))
	}

	if ctb.Path == "" {
		allErrs = append(allErrs, field.Required(projPath.Child("path"), ""))
	}

	allErrs = append(allErrs, validateUserField(ctb.User, projPath.Child("user"))...)
	allErrs = append(allErrs, ValidateLocalNonReservedPath(ctb.Path, projPath.Child("path"))...)
	return allErrs
}

func validatePodCertificateProjection(pc *v1.PodCertificateProjection, projPath, fldPath *field.Path, allPaths *pathSet) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, ValidateSignerName(projPath.Child("signerName"), pc.SignerName)...)

	if pc.UserAnnotations != nil {
		allErrs = append(allErrs, validateUserAnnotations(pc.UserAnnotations, projPath.Child("userAnnotations"))...)
	}
	allErrs = append(allErrs, validateUserField(pc.User, projPath.Child("user"))...)

	switch pc.KeyType {
	case "RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519":
		// ok
	default:
		allErrs = append(allErrs, field.NotSupported(projPath.Child("keyType"), pc.KeyType, []string{"RSA3072", "RSA4096", "ECDSAP256", "ECDSAP384", "ECDSAP521", "ED25519"}))
	}

	if pc.MaxExpirationSeconds != nil {
		if *pc.MaxExpirationSeconds < 3600 {
			allErrs = append(allErrs, field.Invalid(projPath.Child("maxExpirationSeconds"), *pc.MaxExpirationSeconds, "if provided, maxExpirationSeconds must be >= 3600"))
		}
		maxMax := maxMaxExpirationSeconds
		if IsKubernetesSignerName(pc.SignerName) {
			maxMax = kubernetesMaxMaxExpirationSeconds
		}
		if *pc.MaxExpirationSeconds > int32(maxMax) {
			allErrs = append(allErrs, field.Invalid(projPath.Child("maxExpirationSeconds"), *pc.MaxExpirationSeconds, fmt.Sprintf("if provided, maxExpirationSeconds must be <= %d", maxMax)))
		}
	}

	numPaths := 0
	for _, p := range []struct {
		value string
		name  string
	}{
		{pc.CredentialBundlePath, "credentialBundlePath"},
		{pc.KeyPath, "keyPath"},
		{pc.CertificateChainPath, "certificateChainPath"},
	} {
		if len(p.value) == 0 {
			continue
		}
		numPaths++
		allErrs = append(allErrs, ValidateLocalNonReservedPath(p.value, projPath.Child(p.name))...)
		allErrs = append(allErrs, allPaths.add(fldPath, p.value, p.value)...)
	}

	if numPaths == 0 {
		allErrs = append(allErrs, field.Required(projPath, "specify at least one of credentialBundlePath, keyPath, and certificateChainPath"))
	}
	return allErrs
}

// validateUserAnnotations validates that the UserAnnotations are correctly defined.
func validateUserAnnotations(userAnnotations map[string]string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	for k := range userAnnotations {
		// The case doesn't matter, so convert to lowercase before checking.
		allErrs = append(allErrs, validation.IsDomainPrefixedKey(fldPath, strings.ToLower(k))...)
	}
	if err := apimachineryvalidation.ValidateAnnotationsSize(userAnnotations); err != nil {
		allErrs = append(allErrs, field.TooLong(fldPath, "" /*unused*/, apimachineryvalidation.TotalAnnotationSizeLimitB))
	}
	return allErrs
}

// IsKubernetesSignerName checks if signerName is one reserved by the Kubernetes project.
func IsKubernetesSignerName(signerName string) bool {
	hostName, _, _ := strings.Cut(signerName, "/")
	return hostName == "kubernetes.io" || strings.HasSuffix(hostName, ".kubernetes.io")
}

// ValidateSignerName checks that signerName is syntactically valid.
func ValidateSignerName(fldPath *field.Path, signerName string) field.ErrorList {
	var el field.ErrorList
	if len(signerName) == 0 {
		el = append(el, field.Required(fldPath, ""))
		return el
	}

	segments := strings.Split(signerName, "/")
	// validate that there is one '/' in the signerName.
	if len(segments) != 2 {
		el = append(el, field.Invalid(fldPath, signerName, "must be a fully qualified domain and path of the form 'example.com/signer-name'"))
		return el
	}

	// validate that segments[0] is less than 253 characters altogether
	maxDomainSegmentLength := validation.DNS1123SubdomainMaxLength
	if len(segments[0]) > maxDomainSegmentLength {
		el = append(el, field.TooLong(fldPath, "" /*unused*/, maxDomainSegmentLength))
	}
	// validate that segments[0] consists of valid DNS1123 labels separated by '.'
	domainLabels := strings.Split(segments[0], ".")
	for _, lbl := range domainLabels {
		if errs := validation.IsDNS1123Label(lbl); len(errs) > 0 {
			for _, err := range errs {
				el = append(el, field.Invalid(fldPath, segments[0], fmt.Sprintf("validating label %q: %s", lbl, err)))
			}
			break
		}
	}

	// validate that there is at least one '.' in segments[0]
	if len(domainLabels) < 2 {
		el = append(el, field.Invalid(fldPath, segments[0], "should be a domain with at least two segments separated by dots"))
	}

	// validate that segments[1] consists of valid DNS1123 subdomains separated by '.'.
	pathLabels := strings.Split(segments[1], ".")
	for _, lbl := range pathLabels {
		if errs := validation.IsDNS1123Subdomain(lbl); len(errs) > 0 {
			for _, err := range errs {
				el = append(el, field.Invalid(fldPath, segments[1], fmt.Sprintf("validating label %q: %s", lbl, err)))
			}
			break
		}
	}

	// ensure that segments[1] can accommodate a dns label + dns subdomain + '.'
	maxPathSegmentLength := validation.DNS1123SubdomainMaxLength + validation.DNS1123LabelMaxLength + 1
	maxSignerNameLength := maxDomainSegmentLength + maxPathSegmentLength + 1
	if len(signerName) > maxSignerNameLength {
		el = append(el, field.TooLong(fldPath, "" /*unused*/, maxSignerNameLength))
	}

	return el
}

// ValidateClusterTrustBundleName checks that a ClusterTrustBundle name conforms
// to the rules documented on the type.
func ValidateClusterTrustBundleName(signerName string) func(name string, prefix bool) []string {
	return func(name string, isPrefix bool) []string {
		if signerName == "" {
			if strings.Contains(name, ":") {
				return []string{"ClusterTrustBundle without signer name must not have \":\" in its name"}
			}
			return apimachineryvalidation.NameIsDNSSubdomain(name, isPrefix)
		}

		requiredPrefix := strings.ReplaceAll(signerName, "/", ":") + ":"
		if !strings.HasPrefix(name, requiredPrefix) {
			return []string{fmt.Sprintf("ClusterTrustBundle for signerName %s must be named with prefix %s", signerName, requiredPrefix)}
		}
		return apimachineryvalidation.NameIsDNSSubdomain(strings.TrimPrefix(name, requiredPrefix), isPrefix)
	}
}

func extractSignerNameFromClusterTrustBundleName(name string) (string, bool) {
	if splitPoint := strings.LastIndex(name, ":"); splitPoint != -1 {
		// This looks like it refers to a signerName trustbundle.
		return strings.ReplaceAll(name[:splitPoint], ":", "/"), true
	}
	return "", false
}

// ValidateCSIDriverName validates that csiDriverName is well formatted.
func ValidateCSIDriverName(driverName string, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}

	if len(driverName) == 0 {
		allErrs = append(allErrs, field.Required(fldPath, ""))
		return allErrs
	}

	if len(driverName) > 63 {
		allErrs = append(allErrs, field.TooLong(fldPath, "" /*unused*/, 63))
	}

	for _, msg := range validation.IsDNS1123Subdomain(strings.ToLower(driverName)) {
		allErrs = append(allErrs, field.Invalid(fldPath, driverName, msg))
	}

	return allErrs
}

func validateCSIVolumeSource(csi *v1.CSIVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	allErrs = append(allErrs, ValidateCSIDriverName(csi.Driver, fldPath.Child("driver"))...)

	if csi.NodePublishSecretRef != nil {
		if len(csi.NodePublishSecretRef.Name) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Child("nodePublishSecretRef", "name"), ""))
		} else {
			for _, msg := range ValidateSecretName(csi.NodePublishSecretRef.Name, false) {
				allErrs = append(allErrs, field.Invalid(fldPath.Child("name"), csi.NodePublishSecretRef.Name, msg))
			}
		}
	}

	return allErrs
}

func validateEphemeralVolumeSource(ephemeral *v1.EphemeralVolumeSource, fldPath *field.Path) field.ErrorList {
	allErrs := field.ErrorList{}
	if ephemeral.VolumeClaimTemplate == nil {
		allErrs = append(allErrs, field.Required(fldPath.Child("volumeClaimTemplate"), ""))
	} else {
		// ValidationOptionsForPersistentVolumeClaimTemplate(template, nil): no ratcheting,
		// VolumeAttributesClass GA.
		claimTemplate := ephemeral.VolumeClaimTemplate
		tmplPath := fldPath.Child("volumeClaimTemplate")
		allErrs = append(allErrs, ValidateTemplateObjectMeta(&claimTemplate.ObjectMeta, tmplPath.Child("metadata"))...)
		allErrs = append(allErrs, validatePersistentVolumeClaimSpec(&claimTemplate.Spec, tmplPath.Child("spec"))...)
	}
	return allErrs
}

// ValidateTemplateObjectMeta validates the metadata of an embedded template:
// only labels and annotations may be set.
func ValidateTemplateObjectMeta(objMeta *metav1.ObjectMeta, fldPath *field.Path) field.ErrorList {
	allErrs := apimachineryvalidation.ValidateAnnotations(objMeta.Annotations, fldPath.Child("annotations"))
	allErrs = append(allErrs, unversionedvalidation.ValidateLabels(objMeta.Labels, fldPath.Child("labels"))...)
	// All other fields are not supported and thus must not be set
	// to avoid confusion.
	allErrs = append(allErrs, validateFieldAllowList(*objMeta, allowedTemplateObjectMetaFields, "cannot be set", fldPath)...)
	return allErrs
}

var allowedTemplateObjectMetaFields = map[string]bool{
	"Annotations": true,
	"Labels":      true,
}
