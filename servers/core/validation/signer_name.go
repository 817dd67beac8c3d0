package validation

import (
	"fmt"
	"strings"

	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// ValidateSignerName checks a certificate signer's name, "<domain>/<path>": a domain of two
// or more DNS labels, and a path of DNS subdomains joined by dots. It is what is left of the
// old pod validation that the old certificates.go still uses.
func ValidateSignerName(path *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	domain, rest, found := strings.Cut(name, "/")
	if !found || strings.Contains(rest, "/") {
		return field.ErrorList{field.Invalid(path, name, "must be a fully qualified domain and path of the form 'example.com/signer-name'")}
	}
	var errs field.ErrorList
	if len(domain) > utilvalidation.DNS1123SubdomainMaxLength {
		errs = append(errs, field.TooLong(path, "", utilvalidation.DNS1123SubdomainMaxLength))
	}
	// Only the first bad part of each half is reported, with every reason it is bad.
	firstBad := func(value string, check func(string) []string) {
		for _, part := range strings.Split(value, ".") {
			if msgs := check(part); len(msgs) > 0 {
				for _, m := range msgs {
					errs = append(errs, field.Invalid(path, value, fmt.Sprintf("validating label %q: %s", part, m)))
				}
				return
			}
		}
	}
	firstBad(domain, utilvalidation.IsDNS1123Label)
	if !strings.Contains(domain, ".") {
		errs = append(errs, field.Invalid(path, domain, "should be a domain with at least two segments separated by dots"))
	}
	firstBad(rest, utilvalidation.IsDNS1123Subdomain)
	// The domain, a '/', and a path of room for one subdomain, a '.' and one label.
	limit := utilvalidation.DNS1123SubdomainMaxLength + 1 + utilvalidation.DNS1123SubdomainMaxLength + 1 + utilvalidation.DNS1123LabelMaxLength
	if len(name) > limit {
		errs = append(errs, field.TooLong(path, "", limit))
	}
	return errs
}
