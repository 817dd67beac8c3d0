package soak

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
)

// CheckView holds a watcher's view against the chain: a list of the same objects at the
// view's own resourceVersion (resourceVersionMatch=Exact) must hold exactly the objects of the
// view, at their resourceVersions. An event missed leaves the view without an object, with an
// old version of one, or with one deleted since; an event made up or sent twice shows in the
// watcher's own checks.
//
// A view is taken while events arrive, and an informer's resourceVersion is that of the last
// object its handlers were told of (after a relist the list's own is not told): so a view that
// differs is taken again, for up to within; only a difference that lasts is a failure. If
// etcd has compacted the view's resourceVersion away, the view is held against the latest
// list instead. It returns "" or what differs.
func CheckView(ctx context.Context, dyn dynamic.Interface, w Watcher, within time.Duration) (string, int) {
	deadline := time.Now().Add(within)
	target := w.Target()
	client := target.Client(dyn)
	for attempt := 1; ; attempt++ {
		view := w.View()
		rv, match := strconv.FormatUint(view.RV, 10), metav1.ResourceVersionMatchExact
		if view.RV == 0 {
			rv, match = "", ""
		}
		want, _, err := listAll(ctx, client, target.Options(), rv, match)
		if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
			want, _, err = listAll(ctx, client, target.Options(), "", "")
		}
		var diff string
		if err != nil {
			diff = "listing: " + err.Error()
		} else if diff = Diff(view.Objects, want); diff == "" {
			return "", attempt
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return fmt.Sprintf("at resourceVersion %d, after %d tries: %s", view.RV, attempt, diff), attempt
		}
		sleep(ctx, 500*time.Millisecond)
	}
}

// Diff says how a view differs from a list: objects missing from it, objects it still holds,
// and objects it holds at another resourceVersion; "" if none.
func Diff(view, list map[string]uint64) string {
	var missing, extra, other []string
	for k, rv := range list {
		got, ok := view[k]
		switch {
		case !ok:
			missing = append(missing, fmt.Sprintf("%s@%d", k, rv))
		case got != rv:
			other = append(other, fmt.Sprintf("%s@%d (view @%d)", k, rv, got))
		}
	}
	for k, rv := range view {
		if _, ok := list[k]; !ok {
			extra = append(extra, fmt.Sprintf("%s@%d", k, rv))
		}
	}
	var parts []string
	for _, p := range []struct {
		what  string
		items []string
	}{{"missing", missing}, {"deleted but still held", extra}, {"at another version", other}} {
		if len(p.items) == 0 {
			continue
		}
		slices.Sort(p.items)
		shown := p.items[:min(5, len(p.items))]
		more := ""
		if len(p.items) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(p.items)-len(shown))
		}
		parts = append(parts, fmt.Sprintf("%d %s: %s%s", len(p.items), p.what, strings.Join(shown, ", "), more))
	}
	return strings.Join(parts, "; ")
}
