package validation

// CertificateSigningRequest validation, ported from kubernetes v1.37.2
// pkg/apis/certificates/validation/validation.go (ValidateCertificateSigningRequest*,
// with ParseCSR from pkg/apis/certificates/helpers.go). The errors marked covered are
// reported by the generated declarative rule (+k8s:beta zeroOrOneOf Approved/Denied
// conditions). Requests come in through certificates.k8s.io/v1 only, so the v1beta1
// tolerances do not apply.

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"

	certificatesv1 "k8s.io/api/certificates/v1"
	v1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// LegacyUnknownSignerName is the signerName of CSRs created through v1beta1 without one; the
// v1 API does not accept it.
const LegacyUnknownSignerName = "kubernetes.io/legacy-unknown"

var (
	// trueConditionTypes may only have a status of True.
	trueConditionTypes = sets.NewString(
		string(certificatesv1.CertificateApproved),
		string(certificatesv1.CertificateDenied),
		string(certificatesv1.CertificateFailed),
	)
	trueStatusOnly  = sets.NewString(string(v1.ConditionTrue))
	allStatusValues = sets.NewString(string(v1.ConditionTrue), string(v1.ConditionFalse), string(v1.ConditionUnknown))

	allValidUsages = sets.NewString(
		string(certificatesv1.UsageSigning),
		string(certificatesv1.UsageDigitalSignature),
		string(certificatesv1.UsageContentCommitment),
		string(certificatesv1.UsageKeyEncipherment),
		string(certificatesv1.UsageKeyAgreement),
		string(certificatesv1.UsageDataEncipherment),
		string(certificatesv1.UsageCertSign),
		string(certificatesv1.UsageCRLSign),
		string(certificatesv1.UsageEncipherOnly),
		string(certificatesv1.UsageDecipherOnly),
		string(certificatesv1.UsageAny),
		string(certificatesv1.UsageServerAuth),
		string(certificatesv1.UsageClientAuth),
		string(certificatesv1.UsageCodeSigning),
		string(certificatesv1.UsageEmailProtection),
		string(certificatesv1.UsageSMIME),
		string(certificatesv1.UsageIPsecEndSystem),
		string(certificatesv1.UsageIPsecTunnel),
		string(certificatesv1.UsageIPsecUser),
		string(certificatesv1.UsageTimestamping),
		string(certificatesv1.UsageOCSPSigning),
		string(certificatesv1.UsageMicrosoftSGC),
		string(certificatesv1.UsageNetscapeSGC),
	)
)

type certificateValidationOptions struct {
	allowSettingApprovalConditions bool
	allowSettingCertificate        bool
	allowBothApprovedAndDenied     bool
	allowResettingCertificate      bool
	allowLegacySignerName          bool
	allowDuplicateConditionTypes   bool
	allowEmptyConditionType        bool
	allowArbitraryCertificate      bool
	allowUnknownUsages             bool
	allowDuplicateUsages           bool
}

// ParseCSR decodes a PEM-encoded PKCS#10 certificate signing request.
func ParseCSR(pemBytes []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(pemBytes)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}

// validateCSR validates the signature and formatting of a PEM-encoded PKCS#10 request.
func validateCSR(obj *certificatesv1.CertificateSigningRequest) error {
	csr, err := ParseCSR(obj.Spec.Request)
	if err != nil {
		return err
	}
	return csr.CheckSignature()
}

func validateCertificate(pemData []byte) error {
	if len(pemData) == 0 {
		return nil
	}
	blocks := 0
	for {
		block, remainingData := pem.Decode(pemData)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		}
		if len(block.Headers) != 0 {
			return fmt.Errorf("no PEM block headers are permitted")
		}
		blocks++
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return fmt.Errorf("found CERTIFICATE PEM block containing 0 certificates")
		}
		pemData = remainingData
	}
	if blocks == 0 {
		return fmt.Errorf("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// validateCertificateRequestName accepts any name: "We don't care what you call your
// certificate requests."
func validateCertificateRequestName(name string, prefix bool) []string { return nil }

// ValidateCertificateSigningRequestCreate validates a CSR on create.
func ValidateCertificateSigningRequestCreate(csr *certificatesv1.CertificateSigningRequest) field.ErrorList {
	opts := getCSRValidationOptions(csr, nil)
	return validateCertificateSigningRequest(csr, opts)
}

func validateCertificateSigningRequest(csr *certificatesv1.CertificateSigningRequest, opts certificateValidationOptions) field.ErrorList {
	allErrs := ValidateObjectMeta(&csr.ObjectMeta, false, validateCertificateRequestName, field.NewPath("metadata"))

	specPath := field.NewPath("spec")
	if err := validateCSR(csr); err != nil {
		allErrs = append(allErrs, field.Invalid(specPath.Child("request"), csr.Spec.Request, fmt.Sprintf("%v", err)))
	}
	if len(csr.Spec.Usages) == 0 {
		allErrs = append(allErrs, field.Required(specPath.Child("usages"), ""))
	}
	if !opts.allowUnknownUsages {
		for i, usage := range csr.Spec.Usages {
			if !allValidUsages.Has(string(usage)) {
				allErrs = append(allErrs, field.NotSupported(specPath.Child("usages").Index(i), usage, allValidUsages.List()))
			}
		}
	}
	if !opts.allowDuplicateUsages {
		seen := make(map[certificatesv1.KeyUsage]bool, len(csr.Spec.Usages))
		for i, usage := range csr.Spec.Usages {
			if seen[usage] {
				allErrs = append(allErrs, field.Duplicate(specPath.Child("usages").Index(i), usage))
			}
			seen[usage] = true
		}
	}
	if !opts.allowLegacySignerName && csr.Spec.SignerName == LegacyUnknownSignerName {
		allErrs = append(allErrs, field.Invalid(specPath.Child("signerName"), csr.Spec.SignerName, "the legacy signerName is not allowed via this API version"))
	} else {
		allErrs = append(allErrs, ValidateSignerName(specPath.Child("signerName"), csr.Spec.SignerName)...)
	}
	if csr.Spec.ExpirationSeconds != nil && *csr.Spec.ExpirationSeconds < 600 {
		allErrs = append(allErrs, field.Invalid(specPath.Child("expirationSeconds"), *csr.Spec.ExpirationSeconds, "may not specify a duration less than 600 seconds (10 minutes)"))
	}
	allErrs = append(allErrs, validateCSRConditions(field.NewPath("status", "conditions"), csr, opts)...)

	if !opts.allowArbitraryCertificate {
		if err := validateCertificate(csr.Status.Certificate); err != nil {
			allErrs = append(allErrs, field.Invalid(field.NewPath("status", "certificate"), "<certificate data>", err.Error()))
		}
	}
	return allErrs
}

func validateCSRConditions(fldPath *field.Path, csr *certificatesv1.CertificateSigningRequest, opts certificateValidationOptions) field.ErrorList {
	allErrs := field.ErrorList{}
	seenTypes := map[certificatesv1.RequestConditionType]bool{}
	hasApproved := false
	hasDenied := false

	for i, c := range csr.Status.Conditions {
		if !opts.allowEmptyConditionType && len(c.Type) == 0 {
			allErrs = append(allErrs, field.Required(fldPath.Index(i).Child("type"), ""))
		}
		allowedStatusValues := allStatusValues
		if trueConditionTypes.Has(string(c.Type)) {
			allowedStatusValues = trueStatusOnly
		}
		switch {
		case c.Status == "":
			allErrs = append(allErrs, field.Required(fldPath.Index(i).Child("status"), ""))
		case !allowedStatusValues.Has(string(c.Status)):
			allErrs = append(allErrs, field.NotSupported(fldPath.Index(i).Child("status"), c.Status, allowedStatusValues.List()))
		}
		if !opts.allowBothApprovedAndDenied {
			switch c.Type {
			case certificatesv1.CertificateApproved:
				hasApproved = true
				if hasDenied {
					allErrs = append(allErrs, field.Invalid(fldPath, c.Type, "Approved and Denied conditions are mutually exclusive").WithOrigin("zeroOrOneOf").MarkCoveredByDeclarative())
				}
			case certificatesv1.CertificateDenied:
				hasDenied = true
				if hasApproved {
					allErrs = append(allErrs, field.Invalid(fldPath, c.Type, "Approved and Denied conditions are mutually exclusive").WithOrigin("zeroOrOneOf").MarkCoveredByDeclarative())
				}
			}
		}
		if !opts.allowDuplicateConditionTypes {
			if seenTypes[c.Type] {
				allErrs = append(allErrs, field.Duplicate(fldPath.Index(i).Child("type"), c.Type))
			}
			seenTypes[c.Type] = true
		}
	}
	return allErrs
}

// ValidateCertificateSigningRequestUpdate validates an update of the main resource.
func ValidateCertificateSigningRequestUpdate(newCSR, oldCSR *certificatesv1.CertificateSigningRequest) field.ErrorList {
	opts := getCSRValidationOptions(newCSR, oldCSR)
	return validateCertificateSigningRequestUpdate(newCSR, oldCSR, opts)
}

// ValidateCertificateSigningRequestStatusUpdate validates an update of /status, which may set
// status.certificate.
func ValidateCertificateSigningRequestStatusUpdate(newCSR, oldCSR *certificatesv1.CertificateSigningRequest) field.ErrorList {
	opts := getCSRValidationOptions(newCSR, oldCSR)
	opts.allowSettingCertificate = true
	return validateCertificateSigningRequestUpdate(newCSR, oldCSR, opts)
}

// ValidateCertificateSigningRequestApprovalUpdate validates an update of /approval, which may
// add Approved and Denied conditions.
func ValidateCertificateSigningRequestApprovalUpdate(newCSR, oldCSR *certificatesv1.CertificateSigningRequest) field.ErrorList {
	opts := getCSRValidationOptions(newCSR, oldCSR)
	opts.allowSettingApprovalConditions = true
	return validateCertificateSigningRequestUpdate(newCSR, oldCSR, opts)
}

func validateCertificateSigningRequestUpdate(newCSR, oldCSR *certificatesv1.CertificateSigningRequest, opts certificateValidationOptions) field.ErrorList {
	validationErrorList := validateCertificateSigningRequest(newCSR, opts)
	metaUpdateErrorList := ValidateObjectMetaUpdate(&newCSR.ObjectMeta, &oldCSR.ObjectMeta, field.NewPath("metadata"))

	// prevent removal of existing Approved/Denied/Failed conditions
	for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed} {
		if len(findCSRConditions(newCSR, t)) < len(findCSRConditions(oldCSR, t)) {
			validationErrorList = append(validationErrorList, field.Forbidden(field.NewPath("status", "conditions"), fmt.Sprintf("updates may not remove a condition of type %q", t)))
		}
	}
	if !opts.allowSettingApprovalConditions {
		// prevent addition/removal/modification of Approved/Denied conditions
		for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied} {
			oldConditions := findCSRConditions(oldCSR, t)
			newConditions := findCSRConditions(newCSR, t)
			switch {
			case len(newConditions) < len(oldConditions):
				// removals are prevented above
			case len(newConditions) > len(oldConditions):
				validationErrorList = append(validationErrorList, field.Forbidden(field.NewPath("status", "conditions"), fmt.Sprintf("updates may not add a condition of type %q", t)))
			case !apiequality.Semantic.DeepEqual(oldConditions, newConditions):
				conditionDiff := diff.Diff(oldConditions, newConditions)
				validationErrorList = append(validationErrorList, field.Forbidden(field.NewPath("status", "conditions"), fmt.Sprintf("updates may not modify a condition of type %q\n%v", t, conditionDiff)))
			}
		}
	}
	if !bytes.Equal(newCSR.Status.Certificate, oldCSR.Status.Certificate) {
		if !opts.allowSettingCertificate {
			validationErrorList = append(validationErrorList, field.Forbidden(field.NewPath("status", "certificate"), "updates may not set certificate content"))
		} else if !opts.allowResettingCertificate && len(oldCSR.Status.Certificate) > 0 {
			validationErrorList = append(validationErrorList, field.Forbidden(field.NewPath("status", "certificate"), "updates may not modify existing certificate content"))
		}
	}
	return append(validationErrorList, metaUpdateErrorList...)
}

func findCSRConditions(csr *certificatesv1.CertificateSigningRequest, conditionType certificatesv1.RequestConditionType) []certificatesv1.CertificateSigningRequestCondition {
	var retval []certificatesv1.CertificateSigningRequestCondition
	for i, c := range csr.Status.Conditions {
		if c.Type == conditionType {
			retval = append(retval, csr.Status.Conditions[i])
		}
	}
	return retval
}

// getCSRValidationOptions returns the tolerances for data the stored object already has.
func getCSRValidationOptions(newCSR, oldCSR *certificatesv1.CertificateSigningRequest) certificateValidationOptions {
	return certificateValidationOptions{
		allowBothApprovedAndDenied:   oldCSR != nil && len(findCSRConditions(oldCSR, certificatesv1.CertificateApproved)) > 0 && len(findCSRConditions(oldCSR, certificatesv1.CertificateDenied)) > 0,
		allowLegacySignerName:        oldCSR != nil && oldCSR.Spec.SignerName == LegacyUnknownSignerName,
		allowDuplicateConditionTypes: oldCSR != nil && hasDuplicateCSRConditionTypes(oldCSR),
		allowEmptyConditionType:      oldCSR != nil && hasEmptyCSRConditionType(oldCSR),
		allowArbitraryCertificate:    allowArbitraryCertificate(newCSR, oldCSR),
		allowDuplicateUsages:         oldCSR != nil && hasDuplicateUsage(oldCSR.Spec.Usages),
		allowUnknownUsages:           oldCSR != nil && hasUnknownUsage(oldCSR.Spec.Usages),
	}
}

func hasDuplicateCSRConditionTypes(csr *certificatesv1.CertificateSigningRequest) bool {
	seen := map[certificatesv1.RequestConditionType]bool{}
	for _, c := range csr.Status.Conditions {
		if seen[c.Type] {
			return true
		}
		seen[c.Type] = true
	}
	return false
}

func hasEmptyCSRConditionType(csr *certificatesv1.CertificateSigningRequest) bool {
	for _, c := range csr.Status.Conditions {
		if len(c.Type) == 0 {
			return true
		}
	}
	return false
}

func allowArbitraryCertificate(newCSR, oldCSR *certificatesv1.CertificateSigningRequest) bool {
	switch {
	case newCSR != nil && oldCSR != nil && bytes.Equal(newCSR.Status.Certificate, oldCSR.Status.Certificate):
		return true // tolerate updates that don't touch status.certificate
	case oldCSR != nil && validateCertificate(oldCSR.Status.Certificate) != nil:
		return true // compatibility with existing data
	default:
		return false
	}
}

func hasUnknownUsage(usages []certificatesv1.KeyUsage) bool {
	for _, usage := range usages {
		if !allValidUsages.Has(string(usage)) {
			return true
		}
	}
	return false
}

func hasDuplicateUsage(usages []certificatesv1.KeyUsage) bool {
	seen := make(map[certificatesv1.KeyUsage]bool, len(usages))
	for _, usage := range usages {
		if seen[usage] {
			return true
		}
		seen[usage] = true
	}
	return false
}
