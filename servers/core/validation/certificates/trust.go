package certificates

// ClusterTrustBundles: CA certificates published for everyone to trust, optionally on behalf
// of a signer (whose name then prefixes the bundle's).

import (
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"strings"

	certificatesv1 "k8s.io/api/certificates/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// maxTrustBundle is the most a bundle may hold, in bytes (kube-apiserver's limit; k8s.io/api
// does not export it).
const maxTrustBundle = 1 << 20

// ValidateClusterTrustBundle is the rule list of a new ClusterTrustBundle: a name that carries
// its signer's (or no ':' without one), a well-formed signer name, and CA certificates.
func ValidateClusterTrustBundle(b *certificatesv1.ClusterTrustBundle) field.ErrorList {
	return trustBundle(b, true)
}

// ValidateClusterTrustBundleUpdate: the signer never changes; certificates that did not change
// are not parsed again (a newer Go may read old ones differently).
func ValidateClusterTrustBundleUpdate(b, old *certificatesv1.ClusterTrustBundle) field.ErrorList {
	return validation.Join(
		trustBundle(b, b.Spec.TrustBundle != old.Spec.TrustBundle),
		validation.MetaUpdate(&b.ObjectMeta, &old.ObjectMeta, field.NewPath("metadata")),
		// The generated rule is alpha (shadowed): ours is the one shown.
		validation.Immutable(spec.Child("signerName"), b.Spec.SignerName, old.Spec.SignerName).
			WithOrigin("immutable").MarkAlpha().MarkCoveredByDeclarative(),
	)
}

func trustBundle(b *certificatesv1.ClusterTrustBundle, parse bool) field.ErrorList {
	errs := validation.Meta(&b.ObjectMeta, false, bundleName(b.Spec.SignerName), field.NewPath("metadata"))
	if b.Spec.SignerName != "" {
		errs = append(errs, namedSigner(spec.Child("signerName"), b.Spec.SignerName)...)
	}
	if parse {
		errs = append(errs, caCertificates(spec.Child("trustBundle"), b.Spec.TrustBundle)...)
	}
	return errs
}

// bundleName: a bundle of signer example.com/foo is named "example.com:foo:<a DNS subdomain>";
// a bundle of no signer has no ':' in its name.
func bundleName(signer string) validation.NameRule {
	return func(name string, prefix bool) []string {
		if signer == "" {
			if strings.Contains(name, ":") {
				return []string{`ClusterTrustBundle without signer name must not have ":" in its name`}
			}
			return apivalidation.NameIsDNSSubdomain(name, prefix)
		}
		want := strings.ReplaceAll(signer, "/", ":") + ":"
		rest, ok := strings.CutPrefix(name, want)
		if !ok {
			return []string{fmt.Sprintf("ClusterTrustBundle for signerName %s must be named with prefix %s", signer, want)}
		}
		return apivalidation.NameIsDNSSubdomain(rest, prefix)
	}
}

// caCertificates: PEM CERTIFICATE blocks without headers, each a CA certificate, none twice, at
// least one. After a bad block, nothing else is reported.
func caCertificates(p *field.Path, bundle string) field.ErrorList {
	if len(bundle) > maxTrustBundle {
		return field.ErrorList{field.TooLong(p, "", maxTrustBundle)}
	}
	bad := func(format string, args ...any) *field.Error {
		return field.Invalid(p, "<value omitted>", fmt.Sprintf(format, args...))
	}
	var errs field.ErrorList
	seen := map[string][]int{}
	var order []string
	rest := []byte(bundle)
	for i := 0; ; i++ {
		var block *pem.Block
		if block, rest = pem.Decode(rest); block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			errs = append(errs, bad("entry %d has bad block type: %v", i, block.Type))
			continue
		}
		if len(block.Headers) > 0 {
			errs = append(errs, bad("entry %d has PEM block headers", i))
			continue
		}
		cert, err := x509.ParseCertificate(block.Bytes)
		switch {
		case err != nil:
			errs = append(errs, bad("entry %d does not parse as X.509", i))
		case !cert.IsCA:
			errs = append(errs, bad("entry %d does not have the CA bit set", i))
		case !cert.BasicConstraintsValid:
			errs = append(errs, bad("entry %d has invalid basic constraints", i))
		default:
			key := string(block.Bytes)
			if seen[key] == nil {
				order = append(order, key)
			}
			seen[key] = append(seen[key], i)
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if len(seen) == 0 {
		return field.ErrorList{bad("at least one trust anchor must be provided")}
	}
	for _, key := range order {
		if at := seen[key]; len(at) > 1 {
			errs = append(errs, bad("duplicate trust anchor (indices %v)", at))
		}
	}
	return errs
}

// namedSigner: the signer of a trust bundle or a pod certificate: a domain of at least two
// DNS labels, '/', and a path of DNS subdomains joined by '.', 571 bytes at most (room for
// "<fqdn>/<namespace>.<name>"). A CertificateSigningRequest's signer is checked by signer.
func namedSigner(p *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	domain, path, ok := strings.Cut(name, "/")
	if !ok || strings.Contains(path, "/") {
		return field.ErrorList{field.Invalid(p, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	maxDomain := utilvalidation.DNS1123SubdomainMaxLength
	maxName := maxDomain + 1 + utilvalidation.DNS1123SubdomainMaxLength + utilvalidation.DNS1123LabelMaxLength + 1
	return validation.Join(
		validation.When(len(domain) > maxDomain, field.TooLong(p, "", maxDomain)),
		dotted(p, domain),
		validation.When(!strings.Contains(domain, "."), field.Invalid(p, domain, "should be a domain with at least two segments separated by dots")),
		firstBadPart(p, path, utilvalidation.IsDNS1123Subdomain),
		validation.When(len(name) > maxName, field.TooLong(p, "", maxName)),
	)
}

// firstBadPart reports the first of part's '.'-separated pieces that check refuses.
func firstBadPart(p *field.Path, part string, check func(string) []string) field.ErrorList {
	for piece := range strings.SplitSeq(part, ".") {
		if msgs := check(piece); len(msgs) > 0 {
			var errs field.ErrorList
			for _, m := range msgs {
				errs = append(errs, field.Invalid(p, part, fmt.Sprintf("validating label %q: %s", piece, m)))
			}
			return errs
		}
	}
	return nil
}

// kubernetesSigner: a signer of the Kubernetes project, whose domain is kubernetes.io or one of
// its subdomains.
func kubernetesSigner(name string) bool {
	domain, _, _ := strings.Cut(name, "/")
	return domain == "kubernetes.io" || strings.HasSuffix(domain, ".kubernetes.io")
}
