package core

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	genericrest "k8s.io/apiserver/pkg/registry/generic/rest"
	"k8s.io/apiserver/pkg/registry/rest"

	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/internal/chainheader"
)

// podLogREST serves pods/log: `kubectl logs`. Core checks the options and the container, then
// streams GET /containerLogs/<namespace>/<pod>/<container> from the kubelet of the pod's node,
// its errors turned into Statuses with the kubelet's code and message.
type podLogREST struct {
	pods     rest.Getter
	kubelets *kubelets
}

var _ rest.GetterWithOptions = &podLogREST{}

func (r *podLogREST) New() runtime.Object { return &corev1.Pod{} }
func (r *podLogREST) Destroy()            {}

// ProducesMIMETypes and ProducesObject say, in OpenAPI, that the answer is plain text.
func (r *podLogREST) ProducesMIMETypes(string) []string { return []string{"text/plain"} }
func (r *podLogREST) ProducesObject(string) any         { return "" }

func (r *podLogREST) NewGetOptions() (runtime.Object, bool, string) {
	return &corev1.PodLogOptions{}, false, ""
}

func (r *podLogREST) Get(ctx context.Context, name string, opts runtime.Object) (runtime.Object, error) {
	o, ok := opts.(*corev1.PodLogOptions)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid options object: %T", opts))
	}
	if o.Stream == nil { // a request without a query is not defaulted
		o.Stream = ptr.To(corev1.LogStreamAll)
	}
	if errs := validateLogOptions(o); len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Kind: "PodLogOptions"}, name, errs)
	}
	obj, err := r.pods.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	pod := obj.(*corev1.Pod)
	container, err := logContainer(pod, o.Container)
	if err != nil {
		return nil, err
	}
	if pod.Spec.NodeName == "" {
		return &genericrest.LocationStreamer{}, nil // no kubelet has it: nothing to say (204)
	}
	loc, err := r.kubelets.location(ctx, pod.Spec.NodeName)
	if err != nil {
		return nil, err
	}
	loc.Path = "/containerLogs/" + pod.Namespace + "/" + pod.Name + "/" + container
	loc.RawQuery = kubeletLogQuery(o).Encode()
	chainheader.Set(ctx, kubeletAnswers(pod.Spec.NodeName))
	return &genericrest.LocationStreamer{
		Location:        loc,
		Transport:       hopTransport{rt: r.kubelets.transport, node: pod.Spec.NodeName},
		ContentType:     "text/plain",
		Flush:           o.Follow,
		ResponseChecker: genericrest.NewGenericHttpResponseChecker(corev1.Resource("pods/log"), name),
		RedirectChecker: genericrest.PreventRedirects,
	}, nil
}

// validateLogOptions is kube-apiserver's check of PodLogOptions.
func validateLogOptions(o *corev1.PodLogOptions) field.ErrorList {
	var errs field.ErrorList
	if o.TailLines != nil && *o.TailLines < 0 {
		errs = append(errs, field.Invalid(field.NewPath("tailLines"), *o.TailLines, "must be greater than or equal to 0"))
	}
	if o.LimitBytes != nil && *o.LimitBytes < 1 {
		errs = append(errs, field.Invalid(field.NewPath("limitBytes"), *o.LimitBytes, "must be greater than 0"))
	}
	switch {
	case o.SinceSeconds != nil && o.SinceTime != nil:
		errs = append(errs, field.Forbidden(field.NewPath(""), "at most one of `sinceTime` or `sinceSeconds` may be specified"))
	case o.SinceSeconds != nil && *o.SinceSeconds < 1:
		errs = append(errs, field.Invalid(field.NewPath("sinceSeconds"), *o.SinceSeconds, "must be greater than 0"))
	}
	// Stream selection (PodLogsQuerySplitStreams, GA since v1.35).
	streams := []string{corev1.LogStreamAll, corev1.LogStreamStderr, corev1.LogStreamStdout}
	switch {
	case !slices.Contains(streams, *o.Stream):
		errs = append(errs, field.NotSupported(field.NewPath("stream"), *o.Stream, streams))
	case *o.Stream != corev1.LogStreamAll && o.TailLines != nil:
		errs = append(errs, field.Forbidden(field.NewPath(""), "`tailLines` and specific `stream` are mutually exclusive for now"))
	}
	return errs
}

// logContainer is the container whose log is asked for: the one named, or the pod's only one.
func logContainer(pod *corev1.Pod, name string) (string, error) {
	var names []string
	for _, c := range pod.Spec.InitContainers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.Containers {
		names = append(names, c.Name)
	}
	for _, c := range pod.Spec.EphemeralContainers {
		names = append(names, c.Name)
	}
	switch {
	case name != "":
		for _, n := range names {
			if n == name {
				return name, nil
			}
		}
		return "", apierrors.NewBadRequest(fmt.Sprintf("container %s is not valid for pod %s", name, pod.Name))
	case len(pod.Spec.Containers) == 1:
		return pod.Spec.Containers[0].Name, nil
	case len(pod.Spec.Containers) == 0:
		return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s", pod.Name))
	}
	return "", apierrors.NewBadRequest(fmt.Sprintf("a container name must be specified for pod %s, choose one of: [%s]", pod.Name, strings.Join(names, " ")))
}

// kubeletLogQuery is the query of /containerLogs for o.
func kubeletLogQuery(o *corev1.PodLogOptions) url.Values {
	q := url.Values{}
	flag := func(name string, on bool) {
		if on {
			q.Set(name, "true")
		}
	}
	number := func(name string, n *int64) {
		if n != nil {
			q.Set(name, strconv.FormatInt(*n, 10))
		}
	}
	flag("follow", o.Follow)
	flag("previous", o.Previous)
	flag("timestamps", o.Timestamps)
	number("sinceSeconds", o.SinceSeconds)
	number("tailLines", o.TailLines)
	number("limitBytes", o.LimitBytes)
	if o.SinceTime != nil {
		q.Set("sinceTime", o.SinceTime.Format(time.RFC3339))
	}
	if o.Stream != nil {
		q.Set("stream", *o.Stream)
	}
	return q
}
