package core

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/conversion"
	"k8s.io/apimachinery/pkg/runtime"
)

// addQueryConversions teaches the scheme to read the options of pods/log, pods/exec,
// pods/attach, pods/portforward and nodes/proxy from a query string, as the generated
// conversions of kubernetes' pkg/apis/core/v1 do. A value that does not parse is a 400.
func addQueryConversions(scheme *runtime.Scheme) error {
	for _, into := range []any{(*corev1.PodLogOptions)(nil), (*corev1.PodExecOptions)(nil), (*corev1.PodAttachOptions)(nil),
		(*corev1.PodPortForwardOptions)(nil), (*corev1.NodeProxyOptions)(nil)} {
		if err := scheme.AddConversionFunc((*url.Values)(nil), into, func(a, b any, _ conversion.Scope) error {
			return optionsFromQuery(&query{values: *a.(*url.Values)}, b)
		}); err != nil {
			return err
		}
	}
	return nil
}

func optionsFromQuery(q *query, into any) error {
	switch o := into.(type) {
	case *corev1.PodLogOptions:
		o.Container = q.values.Get("container")
		o.Follow, o.Previous, o.Timestamps = q.flag("follow"), q.flag("previous"), q.flag("timestamps")
		o.InsecureSkipTLSVerifyBackend = q.flag("insecureSkipTLSVerifyBackend")
		o.SinceSeconds, o.TailLines, o.LimitBytes = q.number("sinceSeconds"), q.number("tailLines"), q.number("limitBytes")
		o.SinceTime = q.time("sinceTime")
		if q.values.Has("stream") {
			s := q.values.Get("stream")
			o.Stream = &s
		}
	case *corev1.PodExecOptions:
		o.Container, o.Command = q.values.Get("container"), q.values["command"]
		o.Stdin, o.Stdout, o.Stderr, o.TTY = q.flag("stdin"), q.flag("stdout"), q.flag("stderr"), q.flag("tty")
	case *corev1.PodAttachOptions:
		o.Container = q.values.Get("container")
		o.Stdin, o.Stdout, o.Stderr, o.TTY = q.flag("stdin"), q.flag("stdout"), q.flag("stderr"), q.flag("tty")
	case *corev1.PodPortForwardOptions:
		for _, v := range q.values["ports"] {
			port, err := strconv.ParseInt(v, 10, 32)
			q.fail("ports", err)
			o.Ports = append(o.Ports, int32(port))
		}
	case *corev1.NodeProxyOptions:
		o.Path = q.values.Get("path")
	}
	return q.err
}

// query reads typed parameters, keeping the first error.
type query struct {
	values url.Values
	err    error
}

func (q *query) fail(name string, err error) {
	if err != nil && q.err == nil {
		q.err = fmt.Errorf("%s: %w", name, err)
	}
}

func (q *query) flag(name string) bool {
	if q.values.Get(name) == "" {
		return false
	}
	b, err := strconv.ParseBool(q.values.Get(name))
	q.fail(name, err)
	return b
}

func (q *query) number(name string) *int64 {
	if !q.values.Has(name) {
		return nil
	}
	n, err := strconv.ParseInt(q.values.Get(name), 10, 64)
	q.fail(name, err)
	return &n
}

func (q *query) time(name string) *metav1.Time {
	if q.values.Get(name) == "" {
		return nil
	}
	t, err := time.Parse(time.RFC3339, q.values.Get(name))
	q.fail(name, err)
	return &metav1.Time{Time: t}
}
