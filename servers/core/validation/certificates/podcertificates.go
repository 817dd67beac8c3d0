package certificates

// PodCertificateRequests: a kubelet asks a signer for a certificate for one pod, its key proved
// by a stub PKCS#10 request that the key signed; the signer answers through /status, once:
// Issued with the chain, or Denied, or Failed. (The older way, a public key and a signature
// over the pod's UID, is not in certificates.k8s.io/v1.)

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/mail"
	"strings"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/types"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

type pcr = certificatesv1.PodCertificateRequest

// The limits of a request (kube-apiserver's; k8s.io/api does not export them).
const (
	maxKeyBytes       = 10 << 10  // stubPKCS10Request
	maxChainBytes     = 100 << 10 // status.certificateChain
	maxUIDBytes       = 128
	minExpiration     = 60 * 60           // an hour
	maxExpiration     = 91 * 24 * 60 * 60 // 91 days
	maxKubeExpiration = 24 * 60 * 60      // a day, for the signers of the Kubernetes project
)

var (
	pkcs10Path = spec.Child("stubPKCS10Request")
	chainPath  = field.NewPath("status", "certificateChain")
)

// ValidatePodCertificateRequest is the rule list of a new PodCertificateRequest: the signer, the
// pod, service account and node it is for, how long the certificate may last, and the key.
func ValidatePodCertificateRequest(r *pcr) field.ErrorList {
	s := &r.Spec
	uid := func(p *field.Path, id string) field.ErrorList {
		return validation.Join(
			validation.When(id == "", field.Invalid(p, id, "must not be empty")),
			validation.When(len(id) > maxUIDBytes, field.TooLong(p, id, maxUIDBytes)),
		)
	}
	errs := validation.Join(
		validation.Meta(&r.ObjectMeta, true, validation.SubdomainName, field.NewPath("metadata")),
		namedSigner(spec.Child("signerName"), s.SignerName),
		userAnnotations(spec.Child("unverifiedUserAnnotations"), s.UnverifiedUserAnnotations),
		validation.DNSSubdomain(spec.Child("podName"), s.PodName),
		uid(spec.Child("podUID"), string(s.PodUID)),
		validation.DNSSubdomain(spec.Child("serviceAccountName"), s.ServiceAccountName),
		uid(spec.Child("serviceAccountUID"), string(s.ServiceAccountUID)),
		validation.DNSSubdomain(spec.Child("nodeName"), string(s.NodeName)),
		uid(spec.Child("nodeUID"), string(s.NodeUID)),
	)
	if s.MaxExpirationSeconds == nil {
		return append(errs, field.Required(spec.Child("maxExpirationSeconds"), "must be set"))
	}
	longest := int32(maxExpiration)
	if kubernetesSigner(s.SignerName) {
		longest = maxKubeExpiration
	}
	if e := *s.MaxExpirationSeconds; e < minExpiration || e > longest {
		errs = append(errs, field.Invalid(spec.Child("maxExpirationSeconds"), s.MaxExpirationSeconds, fmt.Sprintf("must be in the range [%d, %d]", minExpiration, longest)))
	}
	if len(s.StubPKCS10Request) == 0 {
		return append(errs, field.Invalid(spec, field.OmitValueType{}, "exactly one of (stubPKCS10Request) or (pkixPublicKey, proofOfPossession) must be set"))
	}
	return append(errs, stubRequest(s.StubPKCS10Request)...)
}

// userAnnotations: what the pod's author passes on to the signer: domain-prefixed keys, within
// the size of annotations.
func userAnnotations(p *field.Path, annotations map[string]string) field.ErrorList {
	var errs field.ErrorList
	for key := range annotations {
		errs = append(errs, utilvalidation.IsDomainPrefixedKey(p, strings.ToLower(key))...)
	}
	if apivalidation.ValidateAnnotationsSize(annotations) != nil {
		errs = append(errs, field.TooLong(p, "", apivalidation.TotalAnnotationSizeLimitB))
	}
	return errs
}

// stubRequest: a signed PKCS#10 request whose key is Ed25519, ECDSA on P-256/384/521, or RSA of
// 3072 or 4096 bits. What it asks for does not matter: kubelets send empty ones.
func stubRequest(der []byte) field.ErrorList {
	if len(der) > maxKeyBytes {
		return field.ErrorList{field.TooLong(pkcs10Path, der, maxKeyBytes)}
	}
	req, err := x509.ParseCertificateRequest(der)
	if err != nil {
		return field.ErrorList{field.Invalid(pkcs10Path, field.OmitValueType{}, "must be a valid PKCS#10 CSR")}
	}
	if errs := keyKind(req.PublicKey); errs != nil {
		return errs
	}
	if req.CheckSignature() != nil {
		return field.ErrorList{field.Invalid(pkcs10Path, field.OmitValueType{}, "invalid signature")}
	}
	return nil
}

// keyKind: the kinds of keys a pod certificate may be for.
func keyKind(key crypto.PublicKey) field.ErrorList {
	switch k := key.(type) {
	case ed25519.PublicKey:
	case *ecdsa.PublicKey:
		if k.Curve != elliptic.P256() && k.Curve != elliptic.P384() && k.Curve != elliptic.P521() {
			return field.ErrorList{field.Invalid(pkcs10Path, "curve "+k.Curve.Params().Name, "elliptic public keys must use curve P256, P384, or P521")}
		}
	case *rsa.PublicKey:
		if bits := k.Size() * 8; bits != 3072 && bits != 4096 {
			return field.ErrorList{field.Invalid(pkcs10Path, fmt.Sprintf("%d-bit modulus", bits), "RSA keys must have modulus size 3072 or 4096")}
		}
	default:
		return field.ErrorList{field.Invalid(pkcs10Path, field.OmitValueType{}, "unknown public key type; supported types are Ed25519, ECDSA, and RSA")}
	}
	return nil
}

// ValidatePodCertificateRequestUpdate: only the metadata of a request may change.
func ValidatePodCertificateRequestUpdate(r, old *pcr) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&r.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata")),
		validation.When(!equality.Semantic.DeepEqual(r.Spec, old.Spec), field.Invalid(spec, validation.Internal(asInternal(&r.Spec)), "field is immutable")),
	)
}

// internalSpec is how kube-apiserver prints a request's spec in an error: its internal type,
// which still has the older way's two fields.
type internalSpec struct {
	SignerName                       string
	PodName                          string
	PodUID                           types.UID
	ServiceAccountName               string
	ServiceAccountUID                types.UID
	NodeName                         types.NodeName
	NodeUID                          types.UID
	MaxExpirationSeconds             *int32
	PKIXPublicKey, ProofOfPossession []byte
	StubPKCS10Request                []byte
	UnverifiedUserAnnotations        map[string]string
}

func asInternal(s *certificatesv1.PodCertificateRequestSpec) internalSpec {
	return internalSpec{SignerName: s.SignerName, PodName: s.PodName, PodUID: s.PodUID, ServiceAccountName: s.ServiceAccountName,
		ServiceAccountUID: s.ServiceAccountUID, NodeName: s.NodeName, NodeUID: s.NodeUID, MaxExpirationSeconds: s.MaxExpirationSeconds,
		StubPKCS10Request: s.StubPKCS10Request, UnverifiedUserAnnotations: s.UnverifiedUserAnnotations}
}

// The signer's answers: conditions of these types, true, at most one of them.
var answers = []string{
	certificatesv1.PodCertificateRequestConditionTypeIssued,
	certificatesv1.PodCertificateRequestConditionTypeDenied,
	certificatesv1.PodCertificateRequestConditionTypeFailed,
}

// ValidatePodCertificateRequestStatusUpdate: a request's status changes once, when its signer
// answers: a denial or failure is the condition alone; an issued certificate comes with its
// chain, issued to the requested key, and times that agree with it. After that, nothing changes.
func ValidatePodCertificateRequestStatusUpdate(r, old *pcr) field.ErrorList {
	if errs := validation.MetaUpdate(&r.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata")); len(errs) > 0 {
		return errs
	}
	conditions := field.NewPath("status", "conditions")
	var errs field.ErrorList
	known := 0
	for i, c := range r.Status.Conditions {
		// kube-apiserver writes these paths as "status.conditions.[i]".
		p := conditions.Child(fmt.Sprintf("[%d]", i))
		if !contains(answers, c.Type) {
			errs = append(errs, field.NotSupported(p.Child("type"), c.Type, answers))
			continue
		}
		if known++; known > 1 {
			errs = append(errs, field.Invalid(p.Child("type"), c.Type, `There may be at most one condition with type "Issued", "Denied", or "Failed"`))
		}
		if c.Status != metav1.ConditionTrue {
			errs = append(errs, field.NotSupported(p.Child("status"), c.Status, []metav1.ConditionStatus{metav1.ConditionTrue}))
		}
	}
	errs = append(errs, metavalidation.ValidateConditions(r.Status.Conditions, conditions)...)
	if len(errs) > 0 {
		return errs
	}
	status := field.NewPath("status")
	unchanged := func(want certificatesv1.PodCertificateRequestStatus, detail string) field.ErrorList {
		return validation.When(!equality.Semantic.DeepEqual(r.Status, want), field.Invalid(status, field.OmitValueType{}, detail))
	}
	switch {
	case answered(old) != "":
		return unchanged(old.Status, "immutable after PodCertificateRequest is issued, denied, or failed")
	case answered(r) == certificatesv1.PodCertificateRequestConditionTypeDenied, answered(r) == certificatesv1.PodCertificateRequestConditionTypeFailed:
		return unchanged(certificatesv1.PodCertificateRequestStatus{Conditions: r.Status.Conditions},
			"non-condition status fields must be empty when denying or failing the PodCertificateRequest")
	case answered(r) == certificatesv1.PodCertificateRequestConditionTypeIssued:
		return issued(r, old)
	}
	return unchanged(old.Status, `status is immutable unless transitioning to "Issued", "Denied", or "Failed"`)
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// answered is the type of the request's true Issued, Denied or Failed condition, or "".
func answered(r *pcr) string {
	for _, c := range r.Status.Conditions {
		if c.Status == metav1.ConditionTrue && contains(answers, c.Type) {
			return c.Type
		}
	}
	return ""
}

// issued: the chain's leaf is a certificate for the requested key, with sane names, valid
// between notBefore (about now) and notAfter, for an hour at least and maxExpirationSeconds at
// most; beginRefreshAt at least ten minutes inside that; the rest of the chain certificates.
func issued(r, old *pcr) field.ErrorList {
	st := &r.Status
	chain := st.CertificateChain
	if len(chain) > maxChainBytes {
		return field.ErrorList{field.TooLong(chainPath, chain, maxChainBytes)}
	}
	block, rest := pem.Decode([]byte(chain))
	switch {
	case block == nil:
		return field.ErrorList{field.Invalid(chainPath, chain, "issued certificate chain must contain at least one certificate")}
	case block.Type != "CERTIFICATE":
		return field.ErrorList{field.Invalid(chainPath, chain, "issued certificate chain must consist entirely of CERTIFICATE PEM blocks")}
	}
	leaf, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return field.ErrorList{field.Invalid(chainPath, chain, "leaf certificate does not parse as valid X.509")}
	}
	errs := leafNames(leaf)
	requested, keyErrs := requestedKey(old)
	if keyErrs != nil {
		return append(errs, keyErrs...)
	}
	if k, ok := requested.(interface{ Equal(crypto.PublicKey) bool }); ok && !k.Equal(leaf.PublicKey) {
		return append(errs, field.Invalid(chainPath, chain, "leaf certificate was not issued to the requested public key"))
	}
	notBefore, notAfter, refresh := field.NewPath("status", "notBefore"), field.NewPath("status", "notAfter"), field.NewPath("status", "beginRefreshAt")
	errs = append(errs, validation.Join(
		validation.When(st.NotBefore == nil, field.Required(notBefore, "must be present and consistent with the issued certificate")),
		validation.When(st.NotAfter == nil, field.Required(notAfter, "must be present and consistent with the issued certificate")),
		validation.When(st.BeginRefreshAt == nil, field.Required(refresh, "must be present and in the range [notbefore+10min, notafter-10min]")),
	)...)
	if len(errs) > 0 {
		return errs
	}
	lifetime := leaf.NotAfter.Sub(leaf.NotBefore)
	now := time.Now()
	for _, check := range []struct {
		bad bool
		err *field.Error
	}{
		{!st.NotBefore.Time.Equal(leaf.NotBefore), field.Invalid(notBefore, st.NotBefore.Time, "must be set to the NotBefore time encoded in the leaf certificate")},
		{st.NotBefore.Time.Sub(now).Abs() >= 5*time.Minute, field.Invalid(notBefore, st.NotBefore.Time, "must be set to within 5 minutes of kube-apiserver's current time")},
		{!st.NotAfter.Time.Equal(leaf.NotAfter), field.Invalid(notAfter, st.NotAfter.Time, "must be set to the NotAfter time encoded in the leaf certificate")},
		{lifetime < time.Hour, field.Invalid(chainPath, lifetime, "leaf certificate lifetime must be >= 1 hour")},
		{lifetime > time.Duration(*r.Spec.MaxExpirationSeconds)*time.Second, field.Invalid(chainPath, lifetime,
			fmt.Sprintf("leaf certificate lifetime must be <= spec.maxExpirationSeconds (%v)", *r.Spec.MaxExpirationSeconds))},
		{st.BeginRefreshAt.Time.Before(st.NotBefore.Add(10 * time.Minute)), field.Invalid(refresh, st.BeginRefreshAt.Time, "must be at least 10 minutes after status.notBefore")},
		{st.BeginRefreshAt.Time.After(st.NotAfter.Add(-10 * time.Minute)), field.Invalid(refresh, st.BeginRefreshAt.Time, "must be at least 10 minutes before status.notAfter")},
	} {
		if check.bad {
			return field.ErrorList{check.err}
		}
	}
	// The rest of the chain cannot be verified without its root; each must be a certificate.
	for {
		if block, rest = pem.Decode(rest); block == nil {
			return nil
		}
		if block.Type != "CERTIFICATE" {
			return field.ErrorList{field.Invalid(chainPath, chain, "issued certificate chain must consist entirely of CERTFICATE PEM blocks")}
		}
		if _, err := x509.ParseCertificate(block.Bytes); err != nil {
			return field.ErrorList{field.Invalid(chainPath, chain, "intermediate certificate does not parse as valid X.509")}
		}
	}
}

// leafNames: the leaf's DNS names and e-mail addresses are well formed.
func leafNames(leaf *x509.Certificate) field.ErrorList {
	var errs field.ErrorList
	for _, name := range leaf.DNSNames {
		errs = append(errs, validation.Join(
			validation.When(name == "", field.Invalid(chainPath, name, "leaf certificate should not contain empty DNSName")),
			validation.When(strings.Contains(name, ".."), field.Invalid(chainPath, name, "leaf certificate's DNSName should not contain '..'")),
			validation.When(strings.HasPrefix(name, ".") || strings.HasSuffix(name, "."), field.Invalid(chainPath, name, "leaf certificate's DNSName should not start or end with '.'")),
		)...)
	}
	for _, address := range leaf.EmailAddresses {
		if _, err := mail.ParseAddress(address); err != nil {
			errs = append(errs, field.Invalid(chainPath, address, "leaf certificate should not contain invalid EmailAddress"))
		}
	}
	return errs
}

// requestedKey is the key the stored request asked a certificate for.
func requestedKey(r *pcr) (crypto.PublicKey, field.ErrorList) {
	req, err := x509.ParseCertificateRequest(r.Spec.StubPKCS10Request)
	if err != nil {
		return nil, field.ErrorList{field.Invalid(pkcs10Path, field.OmitValueType{}, "must be a valid PKCS#10 CSR")}
	}
	return req.PublicKey, nil
}
