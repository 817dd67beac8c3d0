package discovery

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// SetDefaults_EndpointPort: an unnamed TCP port. Each port gets its own values, so that
// changing one defaulted port never changes another.
func SetDefaults_EndpointPort(p *discoveryv1.EndpointPort) {
	fill.Nil(&p.Name, "")
	fill.Nil(&p.Protocol, corev1.ProtocolTCP)
}
