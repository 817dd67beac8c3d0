// Package certificates validates the certificates.k8s.io kinds Core serves:
// CertificateSigningRequest, as it is created and as it changes through the main resource,
// /status (where a signer sets the certificate) and /approval (where an approver decides);
// ClusterTrustBundle (trust.go); PodCertificateRequest and its /status (podcertificates.go).
//
// It sits in the Core server of the chain: the Definitions and the subresource strategies of
// servers/core/registry/certificates call these functions as their Validate hooks, after the
// registry has restored what a request may not change (the spec always, the status on the main
// resource, all but the conditions on /approval); a non-empty error list becomes
// kube-apiserver's 422 Invalid. The rules, paths and messages are kube-apiserver v1.37.2's, as
// observed. Any name is accepted for a CertificateSigningRequest: its name means nothing to its
// signer.
//
// The generated declarative rule that a request is at most one of Approved and Denied is
// enforced: ours is marked as covered by it, and the client sees the generated message.
//
// An update tolerates what the stored request already breaks (a legacy signer, unknown or
// repeated usages, repeated conditions, an unparsable certificate...), rule by rule, so that
// old requests stay updatable. Left out: the errors of several conditions at once come rule by
// rule rather than condition by condition. Who may attest for a bundle's signer is admission's
// (servers/chain/admission), who may answer a pod certificate request the registry's.
package certificates

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"slices"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/diff"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

type csr = certificatesv1.CertificateSigningRequest

// LegacySigner is the signer of requests created through v1beta1 without one; v1 refuses it.
const LegacySigner = "kubernetes.io/legacy-unknown"

var (
	spec       = field.NewPath("spec")
	conditions = field.NewPath("status", "conditions")
	cert       = field.NewPath("status", "certificate")

	// usages are the key usages a request may ask for, sorted as kube-apiserver lists them.
	usages = slices.Sorted(slices.Values([]certificatesv1.KeyUsage{
		certificatesv1.UsageSigning, certificatesv1.UsageDigitalSignature, certificatesv1.UsageContentCommitment,
		certificatesv1.UsageKeyEncipherment, certificatesv1.UsageKeyAgreement, certificatesv1.UsageDataEncipherment,
		certificatesv1.UsageCertSign, certificatesv1.UsageCRLSign, certificatesv1.UsageEncipherOnly,
		certificatesv1.UsageDecipherOnly, certificatesv1.UsageAny, certificatesv1.UsageServerAuth,
		certificatesv1.UsageClientAuth, certificatesv1.UsageCodeSigning, certificatesv1.UsageEmailProtection,
		certificatesv1.UsageSMIME, certificatesv1.UsageIPsecEndSystem, certificatesv1.UsageIPsecTunnel,
		certificatesv1.UsageIPsecUser, certificatesv1.UsageTimestamping, certificatesv1.UsageOCSPSigning,
		certificatesv1.UsageMicrosoftSGC, certificatesv1.UsageNetscapeSGC,
	}))
)

// rules returns what each rule finds wrong with a request, one list per rule, in the order
// of the request's fields: an update skips those the stored request already breaks.
func rules(r *csr) []field.ErrorList {
	usagesPath := spec.Child("usages")
	return []field.ErrorList{
		request(spec.Child("request"), r.Spec.Request),
		validation.When(len(r.Spec.Usages) == 0, field.Required(usagesPath, "")),
		validation.Each(usagesPath, r.Spec.Usages, func(p *field.Path, u *certificatesv1.KeyUsage) field.ErrorList {
			return validation.Supported(p, *u, usages...)
		}),
		validation.Duplicates(usagesPath, r.Spec.Usages),
		signer(spec.Child("signerName"), r.Spec.SignerName),
		validation.IfSet(spec.Child("expirationSeconds"), r.Spec.ExpirationSeconds, func(p *field.Path, s int32) field.ErrorList {
			return validation.When(s < 600, field.Invalid(p, s, "may not specify a duration less than 600 seconds (10 minutes)"))
		}),
		validation.Each(conditions, r.Status.Conditions, condition),
		repeatedConditions(r),
		// Reported by the generated rule, with its own message.
		validation.Covered("zeroOrOneOf", validation.When(len(ofType(r, certificatesv1.CertificateApproved)) > 0 && len(ofType(r, certificatesv1.CertificateDenied)) > 0,
			field.Invalid(conditions, certificatesv1.CertificateDenied, "Approved and Denied conditions are mutually exclusive"))),
		certificate(cert, r.Status.Certificate),
	}
}

// ValidateCertificateSigningRequest is the rule list of a new request.
func ValidateCertificateSigningRequest(r *csr) field.ErrorList {
	errs := validation.Meta(&r.ObjectMeta, false, anyName, field.NewPath("metadata"))
	return append(errs, validation.Join(rules(r)...)...)
}

func anyName(string, bool) []string { return nil }

// ValidateCertificateSigningRequestUpdate: through the main resource nothing but the metadata
// changes (the registry restores spec and status).
func ValidateCertificateSigningRequestUpdate(r, old *csr) field.ErrorList {
	return update(r, old, false, false)
}

// ValidateCertificateSigningRequestStatusUpdate: a signer sets the certificate (once) and
// conditions of its own, but may not decide the request.
func ValidateCertificateSigningRequestStatusUpdate(r, old *csr) field.ErrorList {
	return update(r, old, false, true)
}

// ValidateCertificateSigningRequestApprovalUpdate: an approver adds Approved or Denied.
func ValidateCertificateSigningRequestApprovalUpdate(r, old *csr) field.ErrorList {
	return update(r, old, true, false)
}

// update is the rule list of every update: the metadata's, the rules of a new request that
// the stored one keeps, no decision or failure taken back, none made but through /approval, and the
// certificate set only through /status, and only once.
func update(r, old *csr, decide, sign bool) field.ErrorList {
	errs := validation.MetaUpdate(&r.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata"))
	kept := rules(old)
	for i, found := range rules(r) {
		if len(kept[i]) == 0 {
			errs = append(errs, found...)
		}
	}
	for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed} {
		errs = append(errs, validation.When(len(ofType(r, t)) < len(ofType(old, t)),
			validation.Forbiddenf(conditions, "updates may not remove a condition of type %q", t))...)
	}
	for _, t := range []certificatesv1.RequestConditionType{certificatesv1.CertificateApproved, certificatesv1.CertificateDenied} {
		now, before := ofType(r, t), ofType(old, t)
		switch {
		case decide || len(now) < len(before):
		case len(now) > len(before):
			errs = append(errs, validation.Forbiddenf(conditions, "updates may not add a condition of type %q", t))
		case !equality.Semantic.DeepEqual(now, before):
			errs = append(errs, validation.Forbiddenf(conditions, "updates may not modify a condition of type %q\n%v", t, diff.Diff(before, now)))
		}
	}
	if !bytes.Equal(r.Status.Certificate, old.Status.Certificate) {
		switch {
		case !sign:
			errs = append(errs, field.Forbidden(cert, "updates may not set certificate content"))
		case len(old.Status.Certificate) > 0:
			errs = append(errs, field.Forbidden(cert, "updates may not modify existing certificate content"))
		}
	}
	return errs
}

func ofType(r *csr, t certificatesv1.RequestConditionType) []certificatesv1.CertificateSigningRequestCondition {
	var out []certificatesv1.CertificateSigningRequestCondition
	for _, c := range r.Status.Conditions {
		if c.Type == t {
			out = append(out, c)
		}
	}
	return out
}

// request: spec.request is a PEM "CERTIFICATE REQUEST" whose signature holds.
func request(p *field.Path, data []byte) field.ErrorList {
	parsed, err := ParseRequest(data)
	if err == nil {
		err = parsed.CheckSignature()
	}
	if err != nil {
		return field.ErrorList{field.Invalid(p, data, err.Error())}
	}
	return nil
}

// ParseRequest reads the PKCS#10 request in a PEM "CERTIFICATE REQUEST" block (what
// spec.request holds), for validation and for admission plugins that look at the subject.
func ParseRequest(data []byte) (*x509.CertificateRequest, error) {
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE REQUEST" {
		return nil, errors.New("PEM block type must be CERTIFICATE REQUEST")
	}
	return x509.ParseCertificateRequest(block.Bytes)
}

// condition: a type, and a status: True, False or Unknown, but only True for the decisions
// and for Failed (they are never taken back, so never false).
func condition(p *field.Path, c *certificatesv1.CertificateSigningRequestCondition) field.ErrorList {
	statuses := []corev1.ConditionStatus{corev1.ConditionFalse, corev1.ConditionTrue, corev1.ConditionUnknown}
	switch c.Type {
	case certificatesv1.CertificateApproved, certificatesv1.CertificateDenied, certificatesv1.CertificateFailed:
		statuses = statuses[1:2]
	}
	return validation.Join(
		validation.Required(p.Child("type"), string(c.Type)),
		validation.OneOf(p.Child("status"), c.Status, statuses...),
	)
}

// repeatedConditions: a type appears once.
func repeatedConditions(r *csr) field.ErrorList {
	seen := map[certificatesv1.RequestConditionType]bool{}
	return validation.Each(conditions, r.Status.Conditions, func(p *field.Path, c *certificatesv1.CertificateSigningRequestCondition) field.ErrorList {
		again := seen[c.Type]
		seen[c.Type] = true
		return validation.When(again, field.Duplicate(p.Child("type"), c.Type))
	})
}

// certificate: empty, or one or more PEM "CERTIFICATE" blocks without headers, each holding
// certificates.
func certificate(p *field.Path, data []byte) field.ErrorList {
	if err := certificateErr(data); err != nil {
		return field.ErrorList{field.Invalid(p, "<certificate data>", err.Error())}
	}
	return nil
}

func certificateErr(data []byte) error {
	if len(data) == 0 {
		return nil
	}
	blocks := 0
	for block, rest := pem.Decode(data); block != nil; block, rest = pem.Decode(rest) {
		blocks++
		switch {
		case block.Type != "CERTIFICATE":
			return fmt.Errorf("only CERTIFICATE PEM blocks are allowed, found %q", block.Type)
		case len(block.Headers) > 0:
			return errors.New("no PEM block headers are permitted")
		}
		certs, err := x509.ParseCertificates(block.Bytes)
		if err != nil {
			return err
		}
		if len(certs) == 0 {
			return errors.New("found CERTIFICATE PEM block containing 0 certificates")
		}
	}
	if blocks == 0 {
		return errors.New("must contain at least one CERTIFICATE PEM block")
	}
	return nil
}

// signer: a signer's name is a domain of at least two labels, '/', and a path of labels
// ("example.com/my-signer"), 253 bytes at most in all; v1 refuses the legacy signer.
func signer(p *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	if name == LegacySigner {
		return field.ErrorList{field.Invalid(p, name, "the legacy signerName is not allowed via this API version")}
	}
	domain, path, ok := strings.Cut(name, "/")
	if !ok || strings.Contains(path, "/") {
		return field.ErrorList{field.Invalid(p, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	return validation.Join(
		validation.When(len(domain) > utilvalidation.DNS1123SubdomainMaxLength, field.TooLong(p, domain, utilvalidation.DNS1123SubdomainMaxLength)),
		dotted(p, domain),
		validation.When(!strings.Contains(domain, "."), field.Invalid(p, domain, "should be a domain with at least two segments separated by dots")),
		dotted(p, path),
		validation.When(len(path) > utilvalidation.DNS1123SubdomainMaxLength-len(domain)-1,
			field.TooLong(p, path, utilvalidation.DNS1123SubdomainMaxLength-len(domain)-1)),
	)
}

// dotted reports the first of part's '.'-separated labels that is not a DNS label.
func dotted(p *field.Path, part string) field.ErrorList {
	for _, label := range strings.Split(part, ".") {
		if msgs := utilvalidation.IsDNS1123Label(label); len(msgs) > 0 {
			var errs field.ErrorList
			for _, m := range msgs {
				errs = append(errs, field.Invalid(p, part, fmt.Sprintf("validating label %q: %s", label, m)))
			}
			return errs
		}
	}
	return nil
}
