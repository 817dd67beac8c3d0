package commands

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/apichain/apichain/internal/tracing"
)

// traceFilter is what `chain trace` keeps of the stream: a request passes when it passes every
// filter that is set.
type traceFilter struct {
	Users []string // any of these users
	Verbs []string // any of these verbs, as the trace names them (get, list, create, ...)
	// Path is a prefix of the request's path, or a glob (path.Match: * stays within a segment)
	// that matches the path or its first segments: /api/v1/namespaces/*/pods matches every
	// pod of every namespace.
	Path       string
	SlowerThan time.Duration
}

// validate says what is wrong with the filter's flags, before anything is asked of the chain.
func (f traceFilter) validate() error {
	if isGlob(f.Path) {
		if _, err := path.Match(f.Path, ""); err != nil {
			return fmt.Errorf("--path %q: %v", f.Path, err)
		}
	}
	if f.SlowerThan < 0 {
		return fmt.Errorf("--slower-than %v: must not be negative", f.SlowerThan)
	}
	return nil
}

func (f traceFilter) matches(t *tracing.Trace) bool {
	r := t.Request
	if len(f.Users) > 0 && !slices.Contains(f.Users, r.User) {
		return false
	}
	if len(f.Verbs) > 0 && !slices.ContainsFunc(f.Verbs, func(v string) bool { return strings.EqualFold(v, r.Verb) }) {
		return false
	}
	if f.Path != "" && !pathMatches(f.Path, r.Path) {
		return false
	}
	if f.SlowerThan > 0 && t.DurationMs <= float64(f.SlowerThan)/float64(time.Millisecond) {
		return false
	}
	return true
}

func isGlob(pattern string) bool { return strings.ContainsAny(pattern, `*?[\`) }

// pathMatches says whether p passes the --path pattern: as a plain prefix, or, for a glob, by
// matching the whole path or its first few segments.
func pathMatches(pattern, p string) bool {
	if !isGlob(pattern) {
		return strings.HasPrefix(p, pattern)
	}
	for end := len(p); end > 0; end = strings.LastIndexByte(p[:end], '/') {
		if ok, _ := path.Match(pattern, p[:end]); ok {
			return true
		}
	}
	return false
}
