package kubelet

import (
	"slices"
	"testing"
)

func TestSubresourcesOfPaths(t *testing.T) {
	for path, want := range map[string][]string{
		"/metrics/resource": {"metrics"},
		"/metrics":          {"metrics"},
		"/stats/summary":    {"stats"},
		"/logs/syslog":      {"log"},
		"/spec/":            {"spec"},
		"/healthz":          {"healthz", "proxy"},
		"/configz":          {"configz", "proxy"},
		"/pods":             {"pods", "proxy"},
		"/runningpods/":     {"pods", "proxy"},
		"/metricsx":         {"proxy"},
		"/exec/ns/pod/c":    {"proxy"},
		"/":                 {"proxy"},
	} {
		if got := subresources(path); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
}
