package etcd

import (
	"context"
	"fmt"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
)

// KeyValue is one key and its value, as a Seed writes it.
type KeyValue struct {
	Key   string
	Value []byte
}

// Limits of one seeding transaction, below what etcd accepts of one request by default (128
// operations, 1.5 MiB).
const (
	seedTxnOps   = 128
	seedTxnBytes = 1 << 20
)

// seed writes kvs into the member if it holds no key at all (a new data dir), and says
// whether it did. It writes through the member itself, not a client: the member is in this
// process, and no client is connected yet. A few transactions, each applied at once.
func (s *Server) seed(ctx context.Context, kvs []KeyValue) (bool, error) {
	if len(kvs) == 0 {
		return false, nil
	}
	// Every key: the range from "\x00" to the end ("\x00" as range_end).
	held, err := s.etcd.Server.Range(ctx, &pb.RangeRequest{Key: []byte{0}, RangeEnd: []byte{0}, CountOnly: true})
	if err != nil {
		return false, fmt.Errorf("reading whether etcd is empty: %w", err)
	}
	if held.Count > 0 {
		return false, nil
	}
	var ops []*pb.RequestOp
	size := 0
	flush := func() error {
		if len(ops) == 0 {
			return nil
		}
		if _, err := s.etcd.Server.Txn(ctx, &pb.TxnRequest{Success: ops}); err != nil {
			return fmt.Errorf("seeding etcd: %w", err)
		}
		ops, size = nil, 0
		return nil
	}
	for _, kv := range kvs {
		n := len(kv.Key) + len(kv.Value)
		if len(ops) == seedTxnOps || (len(ops) > 0 && size+n > seedTxnBytes) {
			if err := flush(); err != nil {
				return false, err
			}
		}
		ops = append(ops, &pb.RequestOp{Request: &pb.RequestOp_RequestPut{RequestPut: &pb.PutRequest{Key: []byte(kv.Key), Value: kv.Value}}})
		size += n
	}
	if err := flush(); err != nil {
		return false, err
	}
	return true, nil
}
