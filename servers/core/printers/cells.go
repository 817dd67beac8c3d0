package printers

import (
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metatable "k8s.io/apimachinery/pkg/api/meta/table"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// The cells several resources share.

// age is the Age cell: how long ago t was ("12s", "5d"), or <unknown>.
func age(t metav1.Time) string {
	return metatable.ConvertToHumanReadableDateType(t)
}

// createdAt is the row of kube-apiserver's default table (Name, Created At),
// which it uses for the resources without a printer of their own.
func createdAt[T metav1.Object](o T) []any {
	return []any{o.GetName(), o.GetCreationTimestamp().UTC().Format(time.RFC3339)}
}

// joined joins f of each item with sep.
func joined[T any](items []T, sep string, f func(T) string) string {
	parts := make([]string, len(items))
	for i, item := range items {
		parts[i] = f(item)
	}
	return strings.Join(parts, sep)
}

// containerNames and containerImages are the Containers and Images cells.
func containerNames(cs []corev1.Container) string {
	return joined(cs, ",", func(c corev1.Container) string { return c.Name })
}

func containerImages(cs []corev1.Container) string {
	return joined(cs, ",", func(c corev1.Container) string { return c.Image })
}

// firstOf shows the first n items and counts the rest: "a,b,c + 2 more...".
func firstOf(items []string, n int, sep string) string {
	if len(items) <= n {
		return strings.Join(items, sep)
	}
	return fmt.Sprintf("%s + %d more...", strings.Join(items[:n], sep), len(items)-n)
}

// ratio is a "ready/desired" cell.
func ratio(have, want int32) string {
	return fmt.Sprintf("%d/%d", have, want)
}

// boolText shows an optional boolean: True, False or <unset>.
func boolText(b *bool) string {
	switch {
	case b == nil:
		return "<unset>"
	case *b:
		return "True"
	}
	return "False"
}

// orTerminating is a phase, or Terminating once the object is being deleted.
func orTerminating[P ~string](o metav1.Object, phase P) string {
	if o.GetDeletionTimestamp() != nil {
		return "Terminating"
	}
	return string(phase)
}

// sortedAddresses are the load balancer addresses of a Service or an Ingress:
// each ingress point's IP, else its hostname, sorted, without repeats.
func sortedAddresses[T any](points []T, ipOrHost func(T) string) []string {
	addresses := sets.New[string]()
	for _, p := range points {
		if a := ipOrHost(p); a != "" {
			addresses.Insert(a)
		}
	}
	return sets.List(addresses)
}
