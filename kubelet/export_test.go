package kubelet

import "time"

// SetHeartbeat makes s post node status and renew leases every d instead of every 10 s, so
// that tests see heartbeats without waiting for them.
func SetHeartbeat(s *Simulator, d time.Duration) { s.heartbeat = d }
