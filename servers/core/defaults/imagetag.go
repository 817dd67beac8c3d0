package defaults

// imageTag reproduces what kubernetes v1.37.2 SetDefaults_Container /
// SetDefaults_Volume obtain from pkg/util/parsers.ParseImageName: the tag of a
// docker image reference, "latest" when the reference has neither tag nor
// digest, and "" when the reference does not parse. ParseImageName is built on
// github.com/distribution/reference (ParseNormalizedNamed) and
// github.com/opencontainers/go-digest, which are not dependencies of this
// module, so the parts of their grammar that decide the outcome are ported here
// (distribution/reference regexp.go, normalize.go, reference.go Parse).

import (
	"regexp"
	"strings"
)

const (
	refAlphanumeric        = `[a-z0-9]+`
	refSeparator           = `(?:[._]|__|[-]+)`
	refDomainNameComponent = `(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])`
	refOptionalPort        = `(?::[0-9]+)?`
	refTag                 = `[\w][\w.-]{0,127}`
	refDigest              = `[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][[:xdigit:]]{32,}`
	refIdentifier          = `([a-f0-9]{64})`
	refIPv6Address         = `\[(?:[a-fA-F0-9:]+)\]`
	refDomainName          = refDomainNameComponent + `(?:\.` + refDomainNameComponent + `)*`
	refHost                = `(?:` + refDomainName + `|` + refIPv6Address + `)`
	refDomainAndPort       = refHost + refOptionalPort
	refPathComponent       = refAlphanumeric + `(?:` + refSeparator + refAlphanumeric + `)*`
	refRemoteName          = refPathComponent + `(?:/` + refPathComponent + `)*`
	refNamePat             = `(?:` + refDomainAndPort + `/)?` + refRemoteName
	// nameTotalLengthMax is the maximum total number of characters in a repository name.
	refNameTotalLengthMax = 255
)

var (
	referenceRegexp          = regexp.MustCompile(`^(` + refNamePat + `)(?::(` + refTag + `))?(?:@(` + refDigest + `))?$`)
	anchoredIdentifierRegexp = regexp.MustCompile(`^` + refIdentifier + `$`)
	// go-digest only knows (and kubernetes only links) sha256, sha384 and sha512,
	// each with a fixed-length lower-case hex encoding.
	digestEncodedLength = map[string]int{"sha256": 64, "sha384": 96, "sha512": 128}
	lowerHexRegexp      = regexp.MustCompile(`^[a-f0-9]+$`)
)

func imageTag(image string) string {
	// ParseNormalizedNamed
	if anchoredIdentifierRegexp.MatchString(image) {
		return ""
	}
	domain, remainder := splitDockerDomain(image)
	remote := remainder
	if tagSep := strings.IndexRune(remainder, ':'); tagSep > -1 {
		remote = remainder[:tagSep]
	}
	if strings.ToLower(remote) != remote {
		return ""
	}
	// Parse
	matches := referenceRegexp.FindStringSubmatch(domain + "/" + remainder)
	if matches == nil || len(matches[1]) > refNameTotalLengthMax {
		return ""
	}
	tag, dgst := matches[2], matches[3]
	if dgst != "" {
		alg, encoded, _ := strings.Cut(dgst, ":")
		if n, ok := digestEncodedLength[alg]; !ok || len(encoded) != n || !lowerHexRegexp.MatchString(encoded) {
			return ""
		}
	}
	// ParseImageName: if no tag was specified, use the default "latest".
	if tag == "" && dgst == "" {
		return "latest"
	}
	return tag
}

// splitDockerDomain is distribution/reference splitDockerDomain.
func splitDockerDomain(name string) (domain, remoteName string) {
	const (
		legacyDefaultDomain = "index.docker.io"
		defaultDomain       = "docker.io"
		officialRepoPrefix  = "library/"
	)
	maybeDomain, maybeRemoteName, ok := strings.Cut(name, "/")
	if !ok {
		return defaultDomain, officialRepoPrefix + name
	}
	switch {
	case maybeDomain == "localhost":
		domain, remoteName = maybeDomain, maybeRemoteName
	case maybeDomain == legacyDefaultDomain:
		domain, remoteName = defaultDomain, maybeRemoteName
	case strings.ContainsAny(maybeDomain, ".:"):
		domain, remoteName = maybeDomain, maybeRemoteName
	case strings.ToLower(maybeDomain) != maybeDomain:
		domain, remoteName = maybeDomain, maybeRemoteName
	default:
		domain, remoteName = defaultDomain, name
	}
	if domain == defaultDomain && !strings.ContainsRune(remoteName, '/') {
		remoteName = officialRepoPrefix + remoteName
	}
	return domain, remoteName
}
