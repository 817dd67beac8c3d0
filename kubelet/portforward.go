package kubelet

import (
	"context"
	"io"
	"net/http"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/cri-streaming/pkg/streaming/portforward"
)

// servePortForward is /portForward/<namespace>/<pod>, served by k8s.io/cri-streaming's
// portforward as a kubelet's streaming server serves it. Behind every port of a simulated pod
// is a TCP echo: what a connection sends comes back.
func servePortForward(w http.ResponseWriter, r *http.Request, pod *corev1.Pod) {
	opts, err := portforward.NewV4Options(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	portforward.ServePortForward(w, r, echo{}, pod.Name, string(pod.UID), opts, streamTimeout, streamTimeout, portforward.SupportedProtocols)
}

// echo is portforward's PortForwarder for a pod whose every port echoes.
type echo struct{}

func (echo) PortForward(ctx context.Context, _, _ string, _ int32, stream io.ReadWriteCloser) error {
	defer stream.Close()
	done := make(chan error, 1)
	go func() { _, err := io.Copy(stream, stream); done <- err }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return nil
	}
}
